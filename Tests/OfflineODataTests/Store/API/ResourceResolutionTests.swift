import Testing
@_spi(Tool) @testable import OfflineOData

/// What a request addresses, as routing sees it: entity sets (with keys and navigation),
/// function imports (V2 and V4), action imports and bound operations told apart, on a V2 fixture
/// (ODataDemo) and a V4 one (TripPin), whether the offline binder takes the path or not (it does
/// not keep singletons or containment; those are read off the parsed path, ``UnboundPathResource``).
/// These were the path classifier's cases; the parser's grammar now decides them.
@Suite(.needsFixtures) struct ResourceResolutionTests {
    static let v2 = Result { () throws(ODataError) in
        try MetadataReader.read(Fixtures.bytes("oasis-odata-openapi/odata-rw-v2.xml") ?? [])
    }
    static let v4 = Result { () throws(ODataError) in
        try MetadataReader.read(Fixtures.bytes("oasis-odata-openapi/TripPin.xml") ?? [])
    }
    static let tripPin = "Microsoft.OData.SampleService.Models.TripPin"

    func resolve(_ url: String, v2: Bool) throws -> ResolvedRequest {
        let model = try (v2 ? Self.v2 : Self.v4).get()
        return RequestResolver(model: model, dialect: v2 ? .v2 : .v4, limits: LocalReader.defaultParserLimits).resolve(method: .get, url: url)
    }

    func resource(_ url: String, v2: Bool = false) throws -> RequestResource { try resolve(url, v2: v2).resource }

    func unknownReason(_ url: String, v2: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard case .unknown(let reason) = try resource(url, v2: v2) else {
            Issue.record("\(url) was accepted", sourceLocation: sourceLocation)
            return ""
        }
        return reason
    }

    // MARK: V2

    @Test func v2EntitySetWithoutAndWithKey() throws {
        #expect(try resource("Products", v2: true) == .collection(entitySet: "Products"))
        #expect(try resource("/Products(1)", v2: true) == .entity(entitySet: "Products"))
    }

    @Test func v2NavigationFollowsTheAssociationSetToTheTargetSet() throws {
        #expect(try resource("Products(1)/Supplier", v2: true) == .entity(entitySet: "Suppliers"))
        #expect(try resource("Categories(2)/Products(5)", v2: true) == .entity(entitySet: "Products"))
        #expect(try resource("Categories(2)/Products/$count", v2: true) == .count(entitySet: "Products"))
        #expect(try resolve("Categories(2)/Products/$count", v2: true).suffix == .count)
    }

    @Test func v2FunctionImportIsToldApart() throws {
        let function = RequestResource.operation(OperationResource(kind: .functionImport, name: "GetProductsByRating"))
        #expect(try resource("GetProductsByRating?rating=3", v2: true) == function)
        #expect(try resource("GetProductsByRating(rating=3)", v2: true) == function)
    }

    @Test func v2UnknownNamesAndMisusedKeysAreUnknownWithAReason() throws {
        #expect(try unknownReason("Prodcuts(1)", v2: true).contains("Prodcuts"))
        #expect(try unknownReason("Products/Supplier", v2: true).contains("key"))
        #expect(try unknownReason("Products(1)/Supplier(2)", v2: true).contains("single-valued"))
        // The parser's own message for the unclosed key (the classifier said "unclosed").
        #expect(try !unknownReason("Products(1", v2: true).isEmpty)
    }

    @Test func metadataAndBatchAreRecognised() throws {
        #expect(try resource("$metadata", v2: true) == .metadata)
        #expect(try resource("$batch", v2: true) == .batch)
    }

    @Test func v2PropertyAndValueSegments() throws {
        let name = try resolve("Products(1)/Name/$value", v2: true)
        #expect(name.resource == .property(entitySet: "Products") && name.suffix == .value)
    }

    // MARK: V4

    @Test func v4KeyWithAnEncodedSlashInsideIsOneSegment() throws {
        // A `/` inside a key is written `%2F`: the parser's grammar (an unencoded one ends the segment).
        #expect(try resource("People('russell%2Fwhyte')") == .entity(entitySet: "People"))
        // Unencoded, the `/` ends the segment inside the quotes: the path does not parse, and the
        // request is unknown with the parser's reason (the classifier took it as one segment).
        #expect(try !unknownReason("People('russell/whyte')").isEmpty)
    }

    @Test func v4NavigationThroughBindingsAndContainment() throws {
        #expect(try resource("People('russellwhyte')/Friends") == .collection(entitySet: "People"))
        // Containment: the planned items have no entity set of their own; the root's is named.
        #expect(try resource("People('russellwhyte')/Trips(1)/PlanItems") == .collection(entitySet: "People"))
    }

    @Test func v4SingletonWithNavigation() throws {
        #expect(try resource("Me/Friends") == .collection(entitySet: "People"))
        #expect(try resource("Me") == .entity(entitySet: "Me"))
        _ = try unknownReason("Me(1)")
    }

    @Test func v4FunctionAndActionImportsAreToldApart() throws {
        #expect(try resource("GetNearestAirport(lat=33,lon=-118)")
                == .operation(OperationResource(kind: .functionImport, name: "GetNearestAirport")))
        #expect(try resource("ResetDataSource") == .operation(OperationResource(kind: .actionImport, name: "ResetDataSource")))
    }

    @Test func v4BoundFunctionsAndActionsAreToldApart() throws {
        #expect(try resource("People('russellwhyte')/\(Self.tripPin).GetFavoriteAirline()")
                == .operation(OperationResource(kind: .bound, name: Self.tripPin + ".GetFavoriteAirline")))
        #expect(try resource("Me/\(Self.tripPin).ShareTrip") == .operation(OperationResource(kind: .bound, name: Self.tripPin + ".ShareTrip")))
        // A name that is neither a derived type nor an operation bound to what the path addresses.
        #expect(try unknownReason("Me/\(Self.tripPin).NoSuchTrip").contains("NoSuchTrip"))
        // ShareTrip is bound to a single person, not to the collection.
        // An operation bound to one entity, asked of the collection, is refused naming it where
        // the path is read off the syntax tree (containment, which the binder does not keep); the
        // binder takes any operation of that name and leaves the binding's check to the service.
        #expect(try unknownReason("People('russellwhyte')/Trips/\(Self.tripPin).GetInvolvedPeople()").contains("GetInvolvedPeople"))
        #expect(try resource("People('russellwhyte')/Trips(1)/\(Self.tripPin).GetInvolvedPeople()")
                == .operation(OperationResource(kind: .bound, name: Self.tripPin + ".GetInvolvedPeople")))
    }

    @Test func v4TypeCastContinuesWithTheDerivedType() throws {
        #expect(try resource("People('a')/Trips(1)/PlanItems(2)/\(Self.tripPin).Flight/Airline") == .entity(entitySet: "People"))
        _ = try unknownReason("People('a')/Trips(1)/PlanItems(2)/\(Self.tripPin).Flight/NoSuchNavigation")
    }

    @Test func optionsTheOfflineStoreRefusesDoNotHideThePath() throws {
        #expect(try resource("Me?$skiptoken=1") == .entity(entitySet: "Me"))
        #expect(try resource("People?$skiptoken=1") == .collection(entitySet: "People"))
        #expect(try resolve("People?$top=3&$skiptoken=1", v2: false).top == 3)
    }
}
