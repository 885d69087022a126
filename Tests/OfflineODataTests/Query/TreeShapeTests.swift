import Testing
@_spi(Tool) @testable import OfflineOData

/// The syntax tree a binder will walk: segments, argument lists, options, lambdas and ranges.
@Suite("Query: tree shape")
struct QueryTreeShapeTests {
    let parser = ODataURLParser(dialect: .v4)

    @Test func resourcePathSegmentsAndArgumentLists() throws {
        let path = try parser.parseResourcePath("Categories(1)/Products(ID=5,Size='L')/Model.BestSellingProduct/$count")
        #expect(path.segments.map(\.kind) == [.name("Categories"), .name("Products"), .name("Model.BestSellingProduct"), .count])
        let key = try #require(path.segments.first?.argumentLists.first)
        #expect(key.arguments.count == 1)
        #expect(key.arguments.first?.name == nil)
        #expect(key.range == SourceRange(offset: 10, length: 3))
        let composite = try #require(path.segments.dropFirst().first?.argumentLists.first)
        #expect(composite.arguments.map(\.name) == ["ID", "Size"])
        if case .literal(let literal) = composite.arguments.last?.value.kind {
            #expect(literal.kind == .string("L"))
        } else {
            Issue.record("Size is not a literal")
        }
    }

    @Test func functionCallsKeepEveryArgumentListInOrder() throws {
        let path = try parser.parseResourcePath("ProductsByCategoryId(categoryId=@cat)(2)")
        let segment = try #require(path.segments.first)
        #expect(segment.argumentLists.count == 2)
        #expect(segment.argumentLists.first?.arguments.first?.value.kind == .parameterAlias("cat"))
        let empty = try parser.parseResourcePath("Products/Model.MostExpensive()")
        #expect(empty.segments.last?.argumentLists == [ArgumentListSyntax(arguments: [], range: SourceRange(offset: 28, length: 2))])
    }

    @Test func specialSegments() throws {
        #expect(try parser.parseResourcePath("$metadata").segments.map(\.kind) == [.metadata])
        #expect(try parser.parseResourcePath("$batch").segments.map(\.kind) == [.batch])
        #expect(try parser.parseResourcePath("$crossjoin(Customers,Orders)").segments.map(\.kind) == [.crossjoin(["Customers", "Orders"])])
        #expect(try parser.parseResourcePath("Categories(1)/Products/$ref").segments.last?.kind == .ref)
        #expect(try parser.parseResourcePath("Categories(1)/Name/$value").segments.last?.kind == .value)
        let keyAsSegment = try parser.parseResourcePath("Customers/1")
        if case .keyValue(let literal)? = keyAsSegment.segments.last?.kind {
            #expect(literal.kind == .integer(1))
        } else {
            Issue.record("no key segment")
        }
        let request = try parser.parse("$entity/Model.Customer?$id=Customers(1)&$select=Name")
        #expect(request.path.segments.map(\.kind) == [.entity, .name("Model.Customer")])
        #expect(request.options.id == "Customers(1)")
        #expect(parseError { () throws(ODataError) in try parser.parse("$entity?$format=json") }?.offset == 20)
    }

    @Test func lambdaAndRootPaths() throws {
        let filter = try parser.parseFilter("Orders/any(o:o/Items/all(i:i/Price gt 5)) and $root/Customers('A')/Name eq Name")
        guard case .binary(.and, let left, let right) = filter.kind, case .path(let orders) = left.kind else {
            Issue.record("unexpected \(filter.kind)")
            return
        }
        guard case .lambda(let any)? = orders.segments.last?.kind else {
            Issue.record("no lambda")
            return
        }
        #expect(any.quantifier == .any)
        #expect(any.variable == "o")
        guard case .binary(.eq, let rootPath, _) = right.kind, case .path(let root) = rootPath.kind else {
            Issue.record("no $root path")
            return
        }
        #expect(root.root == .root)
        #expect(root.segments.map(\.kind) == [.name("Customers"), .name("Name")])
        #expect(root.segments.first?.argumentLists.count == 1)
    }

    @Test func canonicalFunctionsAndTypeArguments() throws {
        let cast = try parser.parseFilter("cast(Price,Edm.Decimal) gt 5 and isof(Model.Vip)")
        guard case .binary(.and, let left, let right) = cast.kind, case .binary(.gt, let call, _) = left.kind,
              case .function(.cast, let arguments) = call.kind, case .function(.isof, let isofArguments) = right.kind else {
            Issue.record("unexpected \(cast.kind)")
            return
        }
        #expect(arguments.last?.kind == .typeName("Edm.Decimal"))
        #expect(isofArguments == [ExpressionSyntax(.typeName("Model.Vip"), range: SourceRange(offset: 38, length: 9))])
        for function in CanonicalFunction.allCases where function != .substringof && function != .replace {  // V2 only
            let arguments = Array(repeating: "X", count: function.arity.lowerBound).joined(separator: ",")
            #expect(throws: Never.self) { try parser.parseFilter("\(function.rawValue)(\(arguments))") }
        }
        #expect(parseError { () throws(ODataError) in try parser.parseFilter("length()") }?.offset == 7)
    }

    @Test func expandWithNestedOptions() throws {
        let options = try parser.parseQueryOptions("$expand=Items($filter=Qty gt 1;$select=Name;$expand=Product($levels=max);$top=5;$skip=1;$orderby=Name desc;$count=true),Customer/$ref")
        let items = try #require(options.expand)
        #expect(items.count == 2)
        let nested = try #require(items.first?.options)
        #expect(nested.filter != nil)
        #expect(nested.select?.count == 1)
        #expect(nested.expand?.first?.options?.levels == .max)
        #expect(nested.top == 5)
        #expect(nested.skip == 1)
        #expect(nested.count == true)
        #expect(nested.orderBy?.first?.descending == true)
        #expect(items.last?.path.map(\.kind) == [.name("Customer"), .ref])
    }

    @Test func selectItems() throws {
        let select = try parser.parseSelect("Name,Address/City,Model.Vip/Rank,*,Model.*,Model.Fn(A,B),Addresses($top=2)")
        #expect(select.count == 7)
        #expect(select[1].path.map(\.kind) == [.name("Address"), .name("City")])
        #expect(select[3].path.first?.kind == .name("*"))
        #expect(select[4].path.first?.kind == .name("Model.*"))
        #expect(select[5].path.first?.argumentLists.first?.arguments.count == 2)
        #expect(select[6].options?.top == 2)
    }

    @Test func queryOptionsOfEveryKind() throws {
        let options = try parser.parseQueryOptions("$filter=A eq @p&@p='x'&$orderby=A,B desc&$top=3&$skip=4&$count=true&$search=blue OR green&$skiptoken=abc&$deltatoken=d1&$format=json&custom=1&flag")
        #expect(options.parameterAliases.map(\.name) == ["p"])
        #expect(options.orderBy?.map(\.descending) == [false, true])
        #expect(options.top == 3 && options.skip == 4 && options.count == true)
        #expect(options.skipToken == "abc" && options.deltaToken == "d1" && options.format == "json")
        #expect(options.customOptions.map(\.name) == ["custom", "flag"])
        #expect(options.customOptions.map(\.value) == ["1", nil])
        if case .or(let left, let right)? = options.search?.kind {
            #expect(left.kind == .word("blue"))
            #expect(right.kind == .word("green"))
        } else {
            Issue.record("search is \(String(describing: options.search))")
        }
        #expect(options.range(of: .top) == SourceRange(offset: 41, length: 6))
    }

    @Test func rangesPointIntoTheOriginalText() throws {
        let request = try parser.parse("Products?$filter=Name%20eq%20%27O%27%27Neil%27")
        let filter = try #require(request.options.filter)
        #expect(filter.range == SourceRange(offset: 17, length: 29))
        guard case .binary(_, let left, let right) = filter.kind else {
            Issue.record("not binary")
            return
        }
        #expect(left.range == SourceRange(offset: 17, length: 4))
        #expect(right.range == SourceRange(offset: 29, length: 17))
    }

    @Test func unaryMinusAndSignedLiterals() throws {
        #expect(try parser.parseFilter("-5").kind == .literal(LiteralSyntax(kind: .integer(-5), text: "-5", range: SourceRange(offset: 0, length: 2))))
        guard case .unary(.negate, _) = try parser.parseFilter("-Price").kind else {
            Issue.record("not a negation")
            return
        }
        guard case .binary(.sub, _, let right) = try parser.parseFilter("a sub -1").kind, case .literal = right.kind else {
            Issue.record("not a subtraction of -1")
            return
        }
    }
}

/// 4.01 JSON array and object literals inside expressions.
@Suite("Query: JSON literals")
struct QueryJSONLiteralTests {
    let parser = ODataURLParser(dialect: .v4)

    @Test func arraysAndObjects() throws {
        let filter = try parser.parseFilter(#"Name in ["Milk", "Ch\"eese"] and Address eq {"Street":"Main","No":1 add 2,"Tags":[]}"#)
        guard case .binary(.and, let left, let right) = filter.kind,
              case .binary(.in, _, let array) = left.kind, case .array(let items) = array.kind,
              case .binary(.eq, _, let object) = right.kind, case .object(let members) = object.kind else {
            Issue.record("unexpected \(filter.kind)")
            return
        }
        #expect(items.count == 2)
        if case .literal(let literal) = items.last?.kind { #expect(literal.kind == .string("Ch\"eese")) }
        #expect(members.map(\.name) == ["Street", "No", "Tags"])
        #expect(members.last?.value.kind == .array([]))
    }

    @Test func percentEncodedJSON() throws {
        let filter = try parser.parseFilter("Model.Available(complex=%7B%22Name%22:%22a%5Cu0041%22%7D)")
        guard case .path(let path) = filter.kind, case .object(let members)? = path.segments.first?.argumentLists.first?.arguments.first?.value.kind,
              case .literal(let value)? = members.first?.value.kind else {
            Issue.record("unexpected \(filter.kind)")
            return
        }
        #expect(value.kind == .string("aA"))
    }
}

/// 4.01 `$filter(...)` path segments keep the range of the whole segment.
@Suite("Query: filter segments")
struct QueryFilterSegmentTests {
    @Test func filterSegmentRange() throws {
        let path = try ODataURLParser().parseResourcePath("Products/$filter(Age gt 3)/$count")
        guard case .filter(let expression) = path.segments.dropFirst().first?.kind else {
            Issue.record("no filter segment")
            return
        }
        #expect(expression.range == SourceRange(offset: 17, length: 8))
        #expect(path.segments.dropFirst().first?.range == SourceRange(offset: 9, length: 17))
        let member = try ODataURLParser().parseFilter("Items/$filter(Qty gt 1)/$count gt 0")
        guard case .binary(.gt, let left, _) = member.kind, case .path(let items) = left.kind else {
            Issue.record("unexpected \(member.kind)")
            return
        }
        #expect(items.segments.dropFirst().first?.range == SourceRange(offset: 6, length: 17))
    }
}
