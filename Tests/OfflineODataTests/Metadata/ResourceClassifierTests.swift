import Testing
@_spi(Tool) @testable import OfflineOData

/// Entity sets, keys, navigation, function imports (V2 and V4), action imports and bound
/// operations are told apart, on a V2 fixture (ODataDemo) and a V4 one (TripPin).
@Suite(.needsFixtures) struct ResourceClassifierTests {
    static let v2 = Result { () throws(ODataError) in
        try MetadataReader.read(Fixtures.bytes("oasis-odata-openapi/odata-rw-v2.xml") ?? [])
    }
    static let v4 = Result { () throws(ODataError) in
        try MetadataReader.read(Fixtures.bytes("oasis-odata-openapi/TripPin.xml") ?? [])
    }
    static let tripPin = "Microsoft.OData.SampleService.Models.TripPin"

    func entityPath(_ classification: ResourceClassification, sourceLocation: SourceLocation = #_sourceLocation) -> EntityPath? {
        switch classification {
        case .entitySet(let path), .singleton(let path): return path
        default:
            Issue.record("expected entities, got \(classification)", sourceLocation: sourceLocation)
            return nil
        }
    }

    // MARK: V2

    @Test func v2EntitySetWithoutAndWithKey() throws {
        let model = try Self.v2.get()
        let all = try #require(entityPath(model.classify(path: "Products")))
        #expect(all.root == "Products" && all.key == nil && all.isCollection && all.targetType == "ODataDemo.Product")
        let one = try #require(entityPath(model.classify(path: "/Products(1)")))
        #expect(one.key == "1" && !one.isCollection)
    }

    @Test func v2NavigationFollowsTheAssociationSetToTheTargetSet() throws {
        let model = try Self.v2.get()
        let supplier = try #require(entityPath(model.classify(path: "Products(1)/Supplier")))
        #expect(supplier.navigation.map(\.property) == ["Supplier"])
        #expect(supplier.targetType == "ODataDemo.Supplier")
        #expect(supplier.targetEntitySet == "Suppliers")
        #expect(supplier.navigation.first?.multiplicity == .zeroOrOne)
        #expect(!supplier.isCollection)
        let products = try #require(entityPath(model.classify(path: "Categories(2)/Products(5)")))
        #expect(products.navigation.first?.key == "5" && products.targetEntitySet == "Products" && !products.isCollection)
        let count = try #require(entityPath(model.classify(path: "Categories(2)/Products/$count")))
        #expect(count.suffix == "$count" && count.isCollection)
    }

    @Test func v2FunctionImportIsToldApartWithItsHTTPMethod() throws {
        let model = try Self.v2.get()
        guard case .functionImport(let call) = model.classify(path: "GetProductsByRating?rating=3") else {
            Issue.record("not a function import")
            return
        }
        #expect(call.name == "GetProductsByRating" && call.httpMethod == "GET" && call.function == nil)
        guard case .functionImport(let withParentheses) = model.classify(path: "GetProductsByRating(rating=3)") else {
            Issue.record("not a function import")
            return
        }
        #expect(withParentheses.parameters == "rating=3")
    }

    @Test func v2UnknownNamesAndMisusedKeysAreUnknownWithAReason() throws {
        let model = try Self.v2.get()
        guard case .unknown(let reason) = model.classify(path: "Prodcuts(1)") else { Issue.record("accepted"); return }
        #expect(reason.contains("Prodcuts"))
        guard case .unknown(let navigationReason) = model.classify(path: "Products/Supplier") else { Issue.record("accepted"); return }
        #expect(navigationReason.contains("key"))
        guard case .unknown(let keyReason) = model.classify(path: "Products(1)/Supplier(2)") else { Issue.record("accepted"); return }
        #expect(keyReason.contains("single-valued"))
        guard case .unknown(let splitReason) = model.classify(path: "Products(1") else { Issue.record("accepted"); return }
        #expect(splitReason.contains("unclosed"))
    }

    @Test func metadataAndBatchAreRecognised() throws {
        let model = try Self.v2.get()
        #expect(model.classify(path: "$metadata") == .metadata)
        #expect(model.classify(path: "$batch") == .batch)
        #expect(model.classify([ResourceSegment(name: "$batch")]) == .batch)
    }

    @Test func v2PropertyAndValueSegments() throws {
        let model = try Self.v2.get()
        let name = try #require(entityPath(model.classify(path: "Products(1)/Name/$value")))
        #expect(name.propertyPath == ["Name"] && name.suffix == "$value")
    }

    // MARK: V4

    @Test func v4KeyWithQuotesAndSlashesInsideIsOneSegment() throws {
        let model = try Self.v4.get()
        let person = try #require(entityPath(model.classify(path: "People('russell/whyte')")))
        #expect(person.key == "'russell/whyte'" && person.targetType == Self.tripPin + ".Person")
    }

    @Test func v4NavigationThroughBindingsAndContainment() throws {
        let model = try Self.v4.get()
        let friends = try #require(entityPath(model.classify(path: "People('russellwhyte')/Friends")))
        #expect(friends.targetEntitySet == "People" && friends.isCollection)
        let trips = try #require(entityPath(model.classify(path: "People('russellwhyte')/Trips(1)/PlanItems")))
        #expect(trips.navigation.map(\.property) == ["Trips", "PlanItems"])
        #expect(trips.navigation.first?.targetEntitySet == nil)  // containment: no entity set
        #expect(trips.targetType == Self.tripPin + ".PlanItem" && trips.isCollection)
    }

    @Test func v4SingletonWithNavigation() throws {
        let model = try Self.v4.get()
        guard case .singleton(let me) = model.classify(path: "Me/Friends") else { Issue.record("not a singleton"); return }
        #expect(me.root == "Me" && me.targetEntitySet == "People" && me.isCollection)
        guard case .unknown = model.classify(path: "Me(1)") else { Issue.record("a singleton took a key"); return }
    }

    @Test func v4FunctionAndActionImportsAreToldApart() throws {
        let model = try Self.v4.get()
        guard case .functionImport(let function) = model.classify(path: "GetNearestAirport(lat=33,lon=-118)") else {
            Issue.record("not a function import")
            return
        }
        #expect(function.function == Self.tripPin + ".GetNearestAirport" && function.httpMethod == "GET")
        #expect(model.classify(path: "ResetDataSource")
                == .actionImport(ActionImportCall(name: "ResetDataSource", action: Self.tripPin + ".ResetDataSource")))
    }

    @Test func v4BoundFunctionsAndActionsAreToldApart() throws {
        let model = try Self.v4.get()
        guard case .boundOperation(let function) = model.classify(path: "People('russellwhyte')/\(Self.tripPin).GetFavoriteAirline()") else {
            Issue.record("not a bound operation")
            return
        }
        #expect(function.kind == .function && function.operation == Self.tripPin + ".GetFavoriteAirline")
        #expect(function.binding.root == "People" && function.binding.key == "'russellwhyte'")
        guard case .boundOperation(let action) = model.classify(path: "Me/\(Self.tripPin).ShareTrip") else {
            Issue.record("not a bound operation")
            return
        }
        #expect(action.kind == .action && action.binding.root == "Me")
        // Bound to a single person, not to the collection.
        guard case .unknown(let reason) = model.classify(path: "People/\(Self.tripPin).ShareTrip") else {
            Issue.record("bound to a collection")
            return
        }
        #expect(reason.contains("ShareTrip"))
    }

    @Test func v4TypeCastContinuesWithTheDerivedType() throws {
        let model = try Self.v4.get()
        let flight = try #require(entityPath(model.classify(path: "People('a')/Trips(1)/PlanItems(2)/\(Self.tripPin).Flight/Airline")))
        #expect(flight.targetType == Self.tripPin + ".Airline")
    }

    @Test func segmentsFromTheURLParserAreClassifiedTheSameWay() throws {
        let model = try Self.v4.get()
        let segments = [ResourceSegment(name: "People", keyPredicate: "'a'", hasParentheses: true), ResourceSegment(name: "Friends")]
        #expect(model.classify(segments) == model.classify(path: "People('a')/Friends"))
    }
}
