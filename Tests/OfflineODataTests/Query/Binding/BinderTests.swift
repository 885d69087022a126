import Testing
@_spi(Tool) @testable import OfflineOData

/// The binder against real V2 and V4 documents and the reader tests' model: resolution, typing,
/// promotion, and errors with code, message and the offending token's offset.
@Suite(.needsFixtures) struct BinderTests {
    static let trippin: MetadataModel? = Fixtures.text("apache-olingo-odata4/trippin/trippin.xml").flatMap { try? MetadataReader.read($0) }
    static let example: MetadataModel? = Fixtures.text("sap-python-pyodata/metadata-EXAMPLE_SRV-v2.xml").flatMap { try? MetadataReader.read($0) }
    static let test: MetadataModel? = try? MetadataReader.read(readTestMetadataV4)

    func bind(_ url: String, _ model: MetadataModel?, _ dialect: Dialect = .v4) throws(ODataError) -> BoundRequest {
        guard let model else { throw ODataError(.misuse, "fixture missing") }
        return try ODataBinder(model: model, dialect: dialect).bind(ODataURLParser(dialect: dialect).parse(url))
    }

    func failure(_ url: String, _ model: MetadataModel?, _ dialect: Dialect = .v4) -> ODataError? {
        do {
            _ = try bind(url, model, dialect)
            return nil
        } catch {
            return error
        }
    }

    func expectFailure(_ url: String, _ model: MetadataModel?, dialect: Dialect = .v4, code: ODataError.Code = .semantic,
                       _ fragment: String, at offset: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = failure(url, model, dialect)
        #expect(error?.code == code, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(fragment) == true, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.offset == offset, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: Errors

    @Test func unknownEntitySet() {
        expectFailure("Peeple?$top=1", Self.trippin, "unknown entity set 'Peeple'", at: 0)
        expectFailure("Carz", Self.example, dialect: .v2, "unknown entity set 'Carz'", at: 0)
    }

    @Test func unknownProperty() {
        expectFailure("People?$filter=FirstNme eq 'x'", Self.trippin, "no property 'FirstNme'", at: 15)
        expectFailure("People?$orderby=LastName,Nope desc", Self.trippin, "no property 'Nope'", at: 25)
        expectFailure("People?$select=FirstName,Nope", Self.trippin, "no property 'Nope'", at: 25)
        expectFailure("Cars?$filter=Name eq 'a' and Colour eq 'b'", Self.example, dialect: .v2, "no property 'Colour'", at: 29)
    }

    @Test func wrongLiteralType() {
        expectFailure("Cars?$filter=Price eq 'abc'", Self.example, dialect: .v2, "'abc'", at: 22)
        expectFailure("Agencies?$filter=Rating gt 'high'", Self.test, "'high'", at: 27)
        expectFailure("Agencies?$filter=Founded lt 2020-01-01", Self.test, "2020-01-01", at: 28)
        expectFailure("Agencies?$filter=Name eq 5", Self.test, "5", at: 25)
        expectFailure("Agencies('x')", Self.test, "not a valid Edm.Int32", at: 9)
    }

    @Test func wrongFunctionArityAndArgumentTypes() {
        // Arity is part of the grammar, so the parser reports it (as a syntax error) where the call ends.
        let arity = failure("People?$filter=substring(FirstName) eq 'x'", Self.trippin)
        #expect(arity?.code == .syntax)
        #expect(arity?.message.contains("substring takes 2 to 3 argument") == true)
        #expect(arity?.offset == 34)
        expectFailure("Agencies?$filter=contains(Rating,'1')", Self.test, "contains cannot take Edm.Int32", at: 26)
        expectFailure("Agencies?$filter=year(Name) eq 2020", Self.test, "year cannot take Edm.String", at: 22)
        expectFailure("Agencies?$filter=substring(Name,'1') eq 'x'", Self.test, "substring needs Edm.Int32", at: 32)
        expectFailure("Agencies?$filter=Rating add 1", Self.test, "must be a Boolean expression", at: 17)
    }

    @Test func operationsResolveToTheirOwnTarget() throws {
        #expect(try bind("GetNearestAirport(lat=1,lon=2)", Self.trippin).target == .operation(name: "GetNearestAirport"))
        #expect(try bind("retrieve?Param='x'&$filter=Key eq 'a'", Self.example, .v2).target == .operation(name: "retrieve"))
        #expect(try bind("TopAgencies()/$count", Self.test).target == .operation(name: "TopAgencies"))
        #expect(try bind("$metadata", Self.test).target == .metadata)
        #expect(try bind("$batch", Self.test).target == .batch)
    }

    @Test func unsupportedOptionsSaySo() {
        expectFailure("Agencies?$deltatoken=abc", Self.test, code: .unsupported, "$deltatoken", at: 9)
        expectFailure("Agencies?$skiptoken=abc", Self.test, code: .unsupported, "$skiptoken", at: 9)
        expectFailure("Agencies?$format=xml", Self.test, code: .unsupported, "$format=xml", at: 9)
        expectFailure("Agencies?$filter=hassubset(Tags,Tags)", Self.test, code: .unsupported, "hassubset", at: 17)
    }

    // MARK: Resolution

    @Test func keysAndNavigation() throws {
        let request = try bind("People('russellwhyte')/Friends?$filter=FirstName eq 'Scott'", Self.trippin)
        #expect(request.target == .collection)
        #expect(request.path?.rootKey == [BoundKeyValue(property: "UserName", type: .string, value: .text("russellwhyte"))])
        #expect(request.path?.steps.map(\.navigation.name) == ["Friends"])
        #expect(request.path?.entitySet == "People")

        let composite = try bind("Bookings(Number=2,AgencyID=1)/Agency", Self.test)
        #expect(composite.target == .entity)
        #expect(composite.path?.rootKey?.map(\.property) == ["AgencyID", "Number"])
        #expect(composite.path?.steps.first?.navigation.join == .columns([.init(source: "AgencyID", target: "ID")]))

        let reverse = try bind("Agencies(1)/Bookings/$count", Self.test)
        #expect(reverse.target == .count)
        #expect(reverse.path?.steps.first?.navigation.join == .columns([.init(source: "ID", target: "AgencyID")]))
        #expect(try bind("Bookings(AgencyID=1,Number=1)/Items", Self.test).path?.steps.first?.navigation.join
            == .linkTable(navigation: "Items", partner: nil))
        #expect(try bind("Agencies(1)/Address/City/$value", Self.test).target == .property(path: ["Address", "City"], rawValue: true))
        #expect(try bind("Agencies/Test.SpecialAgency", Self.test).path?.castTypes == ["Test.SpecialAgency"])
        expectFailure("Bookings(1)", Self.test, "name each one", at: 8)
        expectFailure("Agencies/Name", Self.test, "a key predicate is missing", at: 9)
        expectFailure("Agencies(1)/Nope", Self.test, "no property 'Nope'", at: 12)
    }

    @Test func lambdasAndNavigationPathsInFilters() throws {
        let request = try bind("People?$filter=Friends/any(f: f/FirstName eq 'Scott') and Emails/all(e: endswith(e, '.com'))", Self.trippin)
        guard case .and(let any, let all)? = request.options.filter?.kind,
              case .lambda(let overFriends) = any.kind, case .lambda(let overEmails) = all.kind else {
            Issue.record("unexpected tree")
            return
        }
        #expect(overFriends.quantifier == .any && overFriends.scope == 1)
        #expect(overEmails.quantifier == .all)
        if case .items(_, let element) = overEmails.source { #expect(element == .string) } else { Issue.record("not over items") }
        expectFailure("People?$filter=Friends/any(f: f/Nope eq 1)", Self.trippin, "no property 'Nope'", at: 32)
        expectFailure("People?$filter=Friends eq null", Self.trippin, "use any(), all() or $count", at: 15)
        let toOne = try bind("Bookings?$filter=Agency/City eq 'Rome' and Agency/Bookings/$count gt 2", Self.test)
        guard case .and(let first, _)? = toOne.options.filter?.kind, case .comparison(_, let member, _) = first.kind,
              case .member(let path) = member.kind else {
            Issue.record("unexpected tree")
            return
        }
        #expect(path.navigations.map(\.name) == ["Agency"] && path.propertyPath == ["City"])
        let local = try bind("Agencies?$filter=sap.islocal() or sap.hasPendingChanges()", Self.test)
        guard case .or(let isLocal, let pending)? = local.options.filter?.kind,
              case .localState(.isLocal, 0) = isLocal.kind, case .localState(.hasPendingChanges, 0) = pending.kind else {
            Issue.record("sap functions not bound")
            return
        }
    }

    /// The binder keeps a decimal literal's text when ExactDecimal would write it the same way;
    /// that shortcut must agree with the round trip on every form.
    @Test func canonicalDecimalShortcutAgreesWithExactDecimal() {
        for text in ["0", "-0", "7", "-7", "100.5", "-100.5", "0.5", "-0.5", "0.05", "00.5", "100.50", "10.0", "5.", ".5",
                     "1e3", "-0.0", "0010", "123456789012345678901234567890.123456789", "1.2.3", "-", ""] {
            let shortcut = LiteralCoercion.isCanonicalDecimal(text)
            #expect(shortcut == (ExactDecimal(text)?.description == text), "\(text)")
        }
    }

    @Test func numericPromotionTypesLiterals() throws {
        func rhs(_ filter: String) throws -> (BoundValue?, BoundType?) {
            guard case .comparison(_, _, let right)? = try bind("Agencies?$filter=" + filter, Self.test).options.filter?.kind else { return (nil, nil) }
            if case .literal(let value) = right.kind { return (value, right.type) }
            return (nil, right.type)
        }
        #expect(try rhs("Revenue gt 10") == (.text("10"), .primitive(.decimal)))
        #expect(try rhs("Revenue gt 9.50") == (.text("9.5"), .primitive(.decimal)))
        #expect(try rhs("Rating gt 2.5") == (.real(2.5), .primitive(.double)))
        #expect(try rhs("Score lt 3") == (.real(3), .primitive(.double)))
        #expect(try rhs("Big eq 9007199254740993") == (.integer(9_007_199_254_740_993), .primitive(.int64)))
        #expect(try rhs("Founded lt 2020-01-01T01:00:00+01:00") == (.text("2020-01-01T00:00:00.0000000Z"), .primitive(.dateTimeOffset)))
        #expect(try rhs("Color eq Test.Color'Red'") == (.text("Red"), .enumeration("Test.Color")))
        #expect(try rhs("Color eq 'Green'") == (.text("Green"), .enumeration("Test.Color")))
        #expect(try rhs("Name eq null") == (nil, .null))
        let sum = try bind("Agencies?$filter=Rating add 1.5 gt 3", Self.test)
        guard case .comparison(_, let left, _)? = sum.options.filter?.kind else { Issue.record("no comparison"); return }
        #expect(left.type == .primitive(.decimal))
        expectFailure("Agencies?$filter=Color eq Test.Color'Purple'", Self.test, "'Purple' is not a member", at: 26)
    }

    @Test func v2DialectOnAV2Document() throws {
        let request = try bind("Cars?$filter=Price gt 1.5M and substringof('x', Name)&$inlinecount=allpages&$orderby=Price desc", Self.example, .v2)
        #expect(request.options.includeCount)
        #expect(request.options.orderBy.first?.descending == true)
        #expect(try bind("Cars('O''Neil')", Self.example, .v2).path?.rootKey?.first?.value == .text("O'Neil"))
        let key = try bind("Bookings(AgencyID=1,Number=2)?$filter=Agency/Founded lt datetimeoffset'2020-01-01T01:00:00+01:00'", Self.test, .v2)
        #expect(key.target == .entity)
        #expect(key.path?.rootKey?.map(\.value) == [.integer(1), .integer(2)])
        guard case .comparison(_, _, let instant)? = key.options.filter?.kind, case .literal(let value) = instant.kind else {
            Issue.record("no comparison")
            return
        }
        #expect(value == .text("2020-01-01T00:00:00.0000000Z"))
        expectFailure("Agencies?$filter=Opened lt datetime'2017-12-01T00:00'", Self.test, dialect: .v2, "does not fit Edm.Date", at: 27)
        expectFailure("Bookings(AgencyID=1,Number='2')", Self.test, dialect: .v2, "not a valid Edm.Int32", at: 27)
    }

    @Test func expandAndSelect() throws {
        let v4 = try bind("Agencies?$expand=Bookings($filter=Amount gt 5;$top=2;$expand=Items)&$select=Name,Address/City", Self.test)
        #expect(v4.options.expand.first?.navigation.name == "Bookings")
        #expect(v4.options.expand.first?.options.top == 2)
        #expect(v4.options.expand.first?.options.expand.first?.navigation.name == "Items")
        #expect(v4.options.select! == [["Name"], ["Address", "City"]])
        let v2 = try bind("Bookings?$expand=Agency/Bookings,Items", Self.test, .v2)
        #expect(v2.options.expand.map(\.navigation.name) == ["Agency", "Items"])
        #expect(v2.options.expand.first?.options.expand.first?.navigation.name == "Bookings")
        expectFailure("Agencies?$expand=Bookingz", Self.test, "no navigation property 'Bookingz'", at: 17)
    }
}
