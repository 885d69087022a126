import Testing
@_spi(Tool) @testable import OfflineOData

/// The rest of the query language (issue 23) read from the reader tests' sample store, each
/// expectation computed by hand from `ReadTestStore.sample()`: OData 4.01 `cast` and `isof` (on
/// primitive values and on the derived type `Test.SpecialAgency`), `matchesPattern`, `case`, and
/// `$search` (a term is a case-insensitive substring of a string property).
@Suite struct QueryLanguageReadTests {
    let store: ReadTestStore

    init() throws { store = try ReadTestStore.sample() }

    func ids(_ filter: String, sourceLocation: SourceLocation = #_sourceLocation) -> [Int64] {
        store.agencyIDs(filter: urlEncoded(filter), sourceLocation: sourceLocation)
    }

    @Test func castConvertsPrimitiveValues() {
        #expect(ids("cast(Rating,Edm.String) eq '5'") == [1])
        // Decimals go towards zero into an integer type: 100.25 → 100, 0.001 → 0, -3 → -3.
        #expect(ids("cast(Revenue,Edm.Int32) eq 100") == [4])
        #expect(ids("cast(Revenue,Edm.Int32) eq 0") == [6])
        #expect(ids("cast(Revenue,Edm.Int32) lt 0") == [5])
        // No name is an integer literal, so every cast is null.
        #expect(ids("cast(Name,Edm.Int32) eq null") == [1, 2, 3, 4, 5, 6, 8])
        #expect(ids("cast(Score,Edm.Decimal) gt 1") == [1, 4])
        #expect(ids("cast(Active,Edm.String) eq 'false'") == [2])
        #expect(ids("cast('12',Edm.Int32) add Rating eq 17") == [1])
        #expect(ids("cast(Color,Edm.String) eq 'Blue'") == [4])
        #expect(ids("cast(Opened,Edm.String) eq '2019-06-15'") == [2])
        #expect(ids("cast(Founded,Edm.String) eq '2019-12-31T23:30:00Z'") == [2])
        #expect(ids("cast(Big,Edm.Int32) eq null and Big ne null") == [1])
        #expect(ids("cast(null,Edm.Int32) eq null") == [1, 2, 3, 4, 5, 6, 8])
        #expect((try? store.ids("Agencies?$orderby=cast(Revenue,Edm.Double) desc&$top=2")) == [4, 2])
    }

    @Test func isofTestsPrimitiveTypesAndWidening() {
        #expect(ids("isof(Rating,Edm.Int64)") == [1, 2, 4, 5, 6])
        #expect(ids("isof(Rating,Edm.Decimal)") == [1, 2, 4, 5, 6])
        #expect(ids("isof(Rating,Edm.Int16)") == [])
        #expect(ids("isof(Rating,Edm.Double)") == [])
        #expect(ids("isof(Name,Edm.String)") == [1, 2, 3, 4, 5, 6, 8])
        #expect(ids("isof(Name,Edm.Int32)") == [])
        #expect(ids("isof(Color,Test.Color)") == [1, 2, 4])
        #expect(ids("not isof(Rating,Edm.Int32)") == [3, 8])
    }

    @Test func isofAndCastTestDerivedEntityTypes() {
        #expect(ids("isof(Test.SpecialAgency)") == [8])
        #expect(ids("isof($it,Test.SpecialAgency)") == [8])
        #expect(ids("isof('Test.SpecialAgency')") == [8])
        #expect(ids("isof(Test.Agency)") == [1, 2, 3, 4, 5, 6, 8])
        #expect(ids("cast(Test.SpecialAgency) ne null") == [8])
        #expect(ids("cast($it,Test.SpecialAgency) eq null") == [1, 2, 3, 4, 5, 6])
        // A lambda variable is an entity too.
        #expect(ids("Bookings/any(b:isof(b,Test.Booking))") == [1, 2, 4])
    }

    @Test func matchesPatternFindsRegularExpressions() {
        #expect(ids("matchesPattern(Name,'^A.*[0-9]$')") == [5])
        #expect(ids("matchesPattern(City,'(?i)^rome$')") == [1, 2])
        #expect(ids("matchesPattern(Name,'^Ü')") == [6])
        #expect(ids("matchesPattern(Name,'%')") == [4])
        #expect(ids("not matchesPattern(City,'o')") == [4, 5, 6])
    }

    @Test func aBadPatternInTheDataIsAFaultOfTheRequest() throws {
        try store.insert("Agencies", [("ID", .integer(9)), ("Name", .text("x")), ("City", .text("(unclosed"))])
        let error = store.error("Agencies?$filter=" + urlEncoded("matchesPattern(Name,City)"))
        #expect(error?.code == .semantic)
        #expect(error?.message.contains("not a valid regular expression") == true)
    }

    @Test func caseGivesTheFirstTrueClausesValue() {
        let level = "case(Rating gt 3:'high',Rating gt 1:'mid',true:'low')"
        #expect(ids("\(level) eq 'high'") == [1, 4])
        #expect(ids("\(level) eq 'mid'") == [2, 6])
        // A null Rating makes both comparisons false: the last clause holds.
        #expect(ids("\(level) eq 'low'") == [3, 5, 8])
        // Values promote to one type (Decimal); no true clause gives null.
        #expect(ids("case(Rating eq 5:Revenue,true:0) gt 9") == [1])
        #expect(ids("case(Rating eq 5:'x') eq null") == [2, 3, 4, 5, 6, 8])
        #expect((try? store.ids("Agencies?$orderby=" + urlEncoded("case(City eq 'Rome':0,true:1)") + ",ID")) == [1, 2, 3, 4, 5, 6, 8])
    }

    func searched(_ search: String, _ set: String = "Agencies") -> [Int64] {
        (try? store.ids("\(set)?$search=" + urlEncoded(search))) ?? [-1]
    }

    @Test func searchMatchesTermsInStringPropertiesIgnoringCase() {
        // City Rome (1, also Address/City), rome (2); the deleted 7 is never found.
        #expect(searched("rome") == [1, 2])
        #expect(searched("ROME OR paris") == [1, 2, 4])
        #expect(searched("agency NOT 100") == [5])
        #expect(searched("agency AND NOT 100") == [5])
        #expect(searched("\"brien & co\"") == [3])
        #expect(searched("zürich") == [6])
        // A derived type's property is searched too (Perk of the SpecialAgency).
        #expect(searched("GYM") == [8])
        // Agency 3 has no City: it does not contain the term, so NOT holds.
        #expect(searched("NOT rome") == [3, 4, 5, 6, 8])
        #expect(searched("(alpha OR beta) rome") == [1, 2])
        #expect((try? store.ids("Agencies?$search=rome&$filter=Rating gt 4")) == [1])
        #expect((try? store.raw("Agencies/$count?$search=rome").body).map { String(decoding: $0, as: UTF8.self) } == "2")
    }

    @Test func searchInsideExpandNarrowsTheRelatedEntities() throws {
        let agency = try store.read("Agencies(1)?$expand=Bookings($search=y)")
        #expect(agency["Bookings"]?.arrayValue?.compactMap { $0["Number"]?.int64Value } == [2])
    }

    @Test func searchWithTooManyTermsIsRefused() {
        let terms = (0...ODataBinder.maxSearchTerms).map { "w\($0)" }.joined(separator: " ")
        let error = store.error("Agencies?$search=" + urlEncoded(terms))
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("more than 64 words") == true)
    }
}

/// Binding and translation of the same functions: their kinds and types, every value bound (not in
/// the SQL text), and a clear error with the offending token's offset for every bad input.
@Suite struct QueryLanguageBindingTests {
    static let model = try? MetadataReader.read(readTestMetadataV4)

    func bind(_ url: String) throws(ODataError) -> BoundRequest {
        guard let model = Self.model else { throw ODataError(.misuse, "model missing") }
        return try ODataBinder(model: model, dialect: .v4).bind(ODataURLParser(dialect: .v4).parse(url))
    }

    func failure(_ url: String) -> ODataError? {
        do throws(ODataError) {
            _ = try bind(url)
            return nil
        } catch {
            return error
        }
    }

    func expectFailure(_ url: String, _ code: ODataError.Code, _ fragment: String, at offset: Int,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let error = failure(url)
        #expect(error?.code == code, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(fragment) == true, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.offset == offset, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    func sql(_ url: String) throws -> SQLQuery? {
        guard let model = Self.model else { return nil }
        return try ReadTranslation.plan(try bind(url), schema: try StoreSchema(model: model)).main
    }

    @Test func bindsKindsAndTypes() throws {
        let cast = try bind("Agencies?$filter=cast(Rating,Edm.String) eq '5'").options.filter
        guard case .comparison(_, let left, _)? = cast?.kind, case .primitiveCast(let operand) = left.kind else {
            Issue.record("cast is not a primitive cast: \(String(describing: cast?.kind))")
            return
        }
        #expect(left.type == .primitive(.string))
        #expect(operand.type == .primitive(.int32))
        let entity = try bind("Agencies?$filter=cast(Test.SpecialAgency) eq null").options.filter
        guard case .comparison(_, let casted, _)? = entity?.kind, case .entityCast(let types, 0) = casted.kind else {
            Issue.record("cast(Type) is not an entity cast")
            return
        }
        #expect(types == ["Test.SpecialAgency"])
        #expect(casted.type == .entity("Test.SpecialAgency"))
        let level = try bind("Agencies?$filter=case(Rating eq 1:Revenue,true:2) gt 1").options.filter
        guard case .comparison(_, let conditional, _)? = level?.kind, case .conditional(let clauses) = conditional.kind else {
            Issue.record("case is not a conditional")
            return
        }
        #expect(conditional.type == .primitive(.decimal))
        #expect(clauses.count == 2)
        #expect(try bind("Agencies?$search=a OR \"b c\" NOT d").options.search == .or(.term("a"), .and(.term("b c"), .not(.term("d")))))
    }

    @Test func theBoundRequestsJSONShowsTheNewForms() throws {
        let json = try JSONValue.parse(try bind("Agencies?$search=rome NOT paris&$filter=" + urlEncoded("case(isof(Test.SpecialAgency):cast(Rating,Edm.String),true:'-') eq '1'")).jsonDescription())
        let options = json["options"] ?? json
        #expect(options["search"]?["kind"]?.stringValue == "and")
        #expect(options["search"]?["right"]?["kind"]?.stringValue == "not")
        #expect(options["search"]?["left"]?["text"]?.stringValue == "rome")
        let conditional = options["filter"]?["left"]
        #expect(conditional?["kind"]?.stringValue == "case")
        #expect(conditional?["clauses"]?.arrayValue?.first?["condition"]?["kind"]?.stringValue == "isof")
        #expect(conditional?["clauses"]?.arrayValue?.first?["value"]?["kind"]?.stringValue == "cast")
    }

    @Test func valuesAreBoundParametersNotSQLText() throws {
        let pattern = try sql("Agencies?$filter=matchesPattern(Name,'^Zq[0-9]+$')")
        #expect(pattern?.sql.contains("ood_matches(") == true)
        #expect(pattern?.sql.contains("Zq") == false)
        #expect(pattern?.parameters.contains(.text("^Zq[0-9]+$")) == true)
        let cast = try sql("Agencies?$filter=cast(Revenue,Edm.Int32) eq 7")
        #expect(cast?.sql.contains("ood_cast(") == true)
        #expect(cast?.parameters.contains(.integer(PrimitiveCast.Form.decimal.rawValue)) == true)
        #expect(cast?.parameters.contains(.integer(PrimitiveCast.Form.int32.rawValue)) == true)
        let search = try sql("Agencies?$search=Qwertz")
        #expect(search?.sql.contains("ood_lower(") == true)
        #expect(search?.sql.lowercased().contains("qwertz") == false)
        #expect(search?.parameters.contains(.text("qwertz")) == true)
        // A cast to the value's own type is the value itself.
        #expect(try sql("Agencies?$filter=cast(Name,Edm.String) eq 'a'")?.sql.contains("ood_cast") == false)
    }

    @Test func badTypeArgumentsAreClearErrors() {
        expectFailure("Agencies?$filter=cast(Rating,Edm.Nope) eq 1", .semantic, "unknown type 'Edm.Nope'", at: 29)
        expectFailure("Agencies?$filter=cast(Rating,Test.Address) eq null", .unsupported, "complex type", at: 29)
        expectFailure("Agencies?$filter=cast(Name,Edm.Binary) eq null", .unsupported, "Edm.Binary", at: 27)
        expectFailure("Agencies?$filter=cast(Edm.String) eq 'a'", .semantic, "cast the entity itself", at: 17)
        expectFailure("Agencies?$filter=cast(Bookings/$count,Test.SpecialAgency) eq null", .semantic, "needs an entity", at: 22)
        expectFailure("Bookings?$filter=isof(Agency,Test.SpecialAgency)", .unsupported, "related entity", at: 22)
        expectFailure("Agencies?$filter=cast(Color,Test.Color) eq null", .unsupported, "enumeration type", at: 28)
        expectFailure("Agencies?$filter=isof(Rating)", .semantic, "unknown type 'Rating': it is a property", at: 22)
        expectFailure("Agencies?$filter=isof(Rating,1)", .semantic, "needs a type name", at: 17)
        expectFailure("Agencies?$filter=isof(Rating,Name)", .semantic, "unknown type 'Name'", at: 29)
    }

    @Test func badPatternsAreClearErrors() {
        expectFailure("Agencies?$filter=matchesPattern(Name,'(a')", .semantic, "not a valid regular expression", at: 37)
        expectFailure("Agencies?$filter=matchesPattern(Name,'(a%2B)%2B')", .semantic, "exponential time", at: 37)
        let long = String(repeating: "a", count: MatchPattern.maxLength + 1)
        expectFailure("Agencies?$filter=matchesPattern(Name,'\(long)')", .semantic, "at most 256", at: 37)
        expectFailure("Agencies?$filter=matchesPattern(Rating,'a')", .semantic, "matchesPattern cannot take Edm.Int32", at: 32)
    }

    @Test func badConditionalsAreClearErrors() {
        expectFailure("Agencies?$filter=case(Name:'a') eq 'a'", .semantic, "'case' needs a Boolean operand", at: 22)
        expectFailure("Agencies?$filter=case(Rating eq 1:Name,true:Rating) eq 'a'", .semantic, "one type", at: 44)
        expectFailure("Agencies?$filter=case(true:Address) eq null", .semantic, "complex value", at: 27)
        expectFailure("Agencies?$filter=case(Rating eq 1:'a',true:2) eq 'a'", .semantic, "does not fit", at: 43)
    }
}
