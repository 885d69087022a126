@_spi(Tool) import OfflineOData

/// The URL parser, binder and router: the input, as UTF-8 text, is parsed in both dialects, bound
/// against the flight sample's model of that dialect and routed. Errors are fine; traps are not.
@Sendable func fuzzURL(_ bytes: UnsafeRawBufferPointer) {
    let url = String(decoding: bytes, as: UTF8.self)
    for (dialect, model) in [(Dialect.v4, fuzzV4Model), (Dialect.v2, fuzzV2Model)] {
        guard let model else { continue }
        // The router resolves the URL (parse, bind, and the parsed path alone when binding fails).
        _ = RequestRouter(mode: .mixed, model: model, dialect: dialect, definingRequests: [], hasOfflineStore: true,
                          hasOnlineStore: true).route(method: "GET", url: url)
        guard let syntax = try? ODataURLParser(dialect: dialect).parse(url) else { continue }
        _ = try? ODataBinder(model: model, dialect: dialect).bind(syntax)
    }
}

/// A small model with every kind of property a `$filter` can meet, in V4 and in V2.
let fuzzV4Model: MetadataModel? = try? MetadataReader.read(fuzzModelDocument(version: "4.0"))
let fuzzV2Model: MetadataModel? = try? MetadataReader.read(fuzzModelDocument(version: "1.0"))

func fuzzModelDocument(version: String) -> String {
    let v4 = version == "4.0"
    let edmx = v4 ? "http://docs.oasis-open.org/odata/ns/edmx" : "http://schemas.microsoft.com/ado/2007/06/edmx"
    let edm = v4 ? "http://docs.oasis-open.org/odata/ns/edm" : "http://schemas.microsoft.com/ado/2008/09/edm"
    let dataServices = v4 ? "<edmx:DataServices>" :
        #"<edmx:DataServices m:DataServiceVersion="2.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">"#
    let time = v4 ? "Edm.TimeOfDay" : "Edm.Time"
    let date = v4 ? "Edm.Date" : "Edm.DateTime"
    let navigation = v4
        ? #"<NavigationProperty Name="Items" Type="Collection(F.Item)" Partner="Order"/>"#
        : #"<NavigationProperty Name="Items" Relationship="F.Order_Items" FromRole="Order" ToRole="Items"/>"#
    let back = v4
        ? #"<NavigationProperty Name="Order" Type="F.Order"><ReferentialConstraint Property="OrderID" ReferencedProperty="ID"/></NavigationProperty>"#
        : #"<NavigationProperty Name="Order" Relationship="F.Order_Items" FromRole="Items" ToRole="Order"/>"#
    let association = v4 ? "" : """
        <Association Name="Order_Items"><End Type="F.Order" Multiplicity="1" Role="Order"/><End Type="F.Item" Multiplicity="*" Role="Items"/>
        <ReferentialConstraint><Principal Role="Order"><PropertyRef Name="ID"/></Principal><Dependent Role="Items"><PropertyRef Name="OrderID"/></Dependent></ReferentialConstraint></Association>
        """
    let associationSet = v4 ? "" : #"<AssociationSet Name="Order_Items" Association="F.Order_Items"><End EntitySet="Orders" Role="Order"/><End EntitySet="Items" Role="Items"/></AssociationSet>"#
    let bindings = v4 ? #"<NavigationPropertyBinding Path="Items" Target="Items"/>"# : ""
    let itemBindings = v4 ? #"<NavigationPropertyBinding Path="Order" Target="Orders"/>"# : ""
    let operations = v4
        ? #"<Function Name="Top"><Parameter Name="n" Type="Edm.Int32"/><ReturnType Type="Collection(F.Order)"/></Function>"#
        : ""
    let imports = v4
        ? #"<FunctionImport Name="Top" Function="F.Top" EntitySet="Orders"/>"#
        : #"<FunctionImport Name="Top" ReturnType="Collection(F.Order)" EntitySet="Orders" m:HttpMethod="GET"><Parameter Name="n" Type="Edm.Int32"/></FunctionImport>"#
    return """
        <edmx:Edmx Version="\(v4 ? "4.0" : "1.0")" xmlns:edmx="\(edmx)">\(dataServices)
        <Schema Namespace="F" xmlns="\(edm)">
        <ComplexType Name="Address"><Property Name="City" Type="Edm.String"/><Property Name="Zip" Type="Edm.String"/></ComplexType>
        <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>
        <Property Name="Price" Type="Edm.Decimal" Precision="15" Scale="2"/><Property Name="Big" Type="Edm.Int64"/>
        <Property Name="Ratio" Type="Edm.Double"/><Property Name="Flag" Type="Edm.Boolean"/><Property Name="Id" Type="Edm.Guid"/>
        <Property Name="At" Type="Edm.DateTimeOffset"/><Property Name="Day" Type="\(date)"/><Property Name="Clock" Type="\(time)"/>
        <Property Name="Data" Type="Edm.Binary"/><Property Name="Address" Type="F.Address"/>
        \(navigation)</EntityType>
        <EntityType Name="Item"><Key><PropertyRef Name="OrderID"/><PropertyRef Name="Line"/></Key>
        <Property Name="OrderID" Type="Edm.Int32" Nullable="false"/><Property Name="Line" Type="Edm.Int16" Nullable="false"/>
        <Property Name="Text" Type="Edm.String"/>\(back)</EntityType>
        \(association)\(operations)
        <EntityContainer Name="C"\(v4 ? "" : #" m:IsDefaultEntityContainer="true""#)>
        <EntitySet Name="Orders" EntityType="F.Order">\(bindings)</EntitySet>
        <EntitySet Name="Items" EntityType="F.Item">\(itemBindings)</EntitySet>
        \(associationSet)\(imports)</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
        """
}
