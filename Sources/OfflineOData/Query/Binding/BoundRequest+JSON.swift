/// A bound request as JSON, for people and tools (`offline-odata parse`): what the binder made of
/// a URL, with every name resolved, every type known and every literal in its stored form.
extension BoundRequest {
    @_spi(Tool) public func jsonDescription() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("target")
        switch target {
        case .serviceDocument: writer.writeString("serviceDocument")
        case .metadata: writer.writeString("metadata")
        case .batch: writer.writeString("batch")
        case .operation(let name):
            writer.writeString("operation")
            writer.writeKey("operation"); writer.writeString(name)
        case .collection: writer.writeString("collection")
        case .entity: writer.writeString("entity")
        case .count: writer.writeString("count")
        case .mediaValue: writer.writeString("mediaValue")
        case .streamProperty(let name):
            writer.writeString("streamProperty")
            writer.writeKey("property"); writer.writeString(name)
        case .property(let path, let rawValue):
            writer.writeString(rawValue ? "propertyValue" : "property")
            writer.writeKey("property"); writer.writeString(path.joined(separator: "/"))
        }
        if let path { Self.write(path, to: &writer) }
        Self.write(options, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ path: BoundPath, to writer: inout JSONWriter) {
        writer.writeKey("entitySet"); writer.writeString(path.entitySet)
        writer.writeKey("entityType"); writer.writeString(path.entityType)
        writer.writeKey("rootSet"); writer.writeString(path.rootSet)
        if let key = path.rootKey { writer.writeKey("key"); write(key, to: &writer) }
        if !path.steps.isEmpty {
            writer.writeKey("navigation")
            writer.beginArray()
            for step in path.steps {
                writer.beginObject()
                writer.writeKey("name"); writer.writeString(step.navigation.name)
                writer.writeKey("targetSet"); writer.writeString(step.navigation.targetSet)
                if let key = step.key { writer.writeKey("key"); write(key, to: &writer) }
                writer.endObject()
            }
            writer.endArray()
        }
        if let casts = path.castTypes { writer.writeKey("castTypes"); writer.writeValue(.array(casts.map { .string($0) })) }
    }

    private static func write(_ key: [BoundKeyValue], to writer: inout JSONWriter) {
        writer.beginArray()
        for value in key {
            writer.beginObject()
            writer.writeKey("property"); writer.writeString(value.property)
            writer.writeKey("type"); writer.writeString(value.type.rawValue)
            writer.writeKey("value"); write(value.value, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    private static func write(_ options: BoundQueryOptions, to writer: inout JSONWriter) {
        if let filter = options.filter { writer.writeKey("filter"); write(filter, to: &writer) }
        if let search = options.search { writer.writeKey("search"); write(search, to: &writer) }
        if !options.orderBy.isEmpty {
            writer.writeKey("orderby")
            writer.beginArray()
            for item in options.orderBy {
                writer.beginObject()
                writer.writeKey("expression"); write(item.expression, to: &writer)
                writer.writeKey("descending"); writer.writeBool(item.descending)
                writer.endObject()
            }
            writer.endArray()
        }
        if let top = options.top { writer.writeKey("top"); writer.writeNumber(top) }
        if let skip = options.skip { writer.writeKey("skip"); writer.writeNumber(skip) }
        if let select = options.select {
            writer.writeKey("select"); writer.writeValue(.array(select.map { .string($0.joined(separator: "/")) }))
        }
        if !options.expand.isEmpty {
            writer.writeKey("expand")
            writer.beginArray()
            for item in options.expand {
                writer.beginObject()
                writer.writeKey("navigation"); writer.writeString(item.navigation.name)
                writer.writeKey("targetSet"); writer.writeString(item.navigation.targetSet)
                writer.writeKey("isCollection"); writer.writeBool(item.navigation.isCollection)
                write(item.options, to: &writer)
                writer.endObject()
            }
            writer.endArray()
        }
        if options.includeCount { writer.writeKey("count"); writer.writeBool(true) }
    }

    private static func write(_ value: BoundValue, to writer: inout JSONWriter) {
        switch value {
        case .integer(let number): writer.writeNumber(number)
        case .real(let number): _ = try? writer.writeNumber(number, nonFinite: .writeODataString)
        case .text(let text): writer.writeString(text)
        case .bytes(let bytes): writer.writeString(Base64Codec.encode(bytes, urlSafe: true))
        }
    }

    /// `$search` as a tree of `term`, `and`, `or` and `not` (at most 64 terms deep, as bound).
    private static func write(_ search: BoundSearch, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("kind")
        switch search {
        case .term(let text):
            writer.writeString("term")
            writer.writeKey("text"); writer.writeString(text)
        case .not(let operand):
            writer.writeString("not")
            writer.writeKey("operand"); write(operand, to: &writer)
        case .and(let left, let right), .or(let left, let right):
            if case .and = search { writer.writeString("and") } else { writer.writeString("or") }
            writer.writeKey("left"); write(left, to: &writer)
            writer.writeKey("right"); write(right, to: &writer)
        }
        writer.endObject()
    }

    /// One expression as an object: its kind, the fields of that kind, and its type.
    private static func write(_ expression: BoundExpression, to writer: inout JSONWriter) {
        writer.beginObject()
        func node(_ kind: String) { writer.writeKey("kind"); writer.writeString(kind) }
        switch expression.kind {
        case .literal(let value):
            node("literal")
            writer.writeKey("value"); write(value, to: &writer)
        case .null:
            node("null")
        case .member(let member):
            node("property")
            writeFields(of: member, to: &writer)
        case .comparison(let op, let lhs, let rhs):
            binary("comparison", op.rawValue, lhs, rhs)
        case .arithmetic(let op, let lhs, let rhs):
            binary("arithmetic", op.rawValue, lhs, rhs)
        case .and(let lhs, let rhs):
            binary("logical", "and", lhs, rhs)
        case .or(let lhs, let rhs):
            binary("logical", "or", lhs, rhs)
        case .not(let operand):
            node("not")
            writer.writeKey("operand"); write(operand, to: &writer)
        case .negate(let operand):
            node("negate")
            writer.writeKey("operand"); write(operand, to: &writer)
        case .function(let function, let arguments):
            node("function")
            writer.writeKey("name"); writer.writeString(String(describing: function))
            write(arguments, as: "arguments", to: &writer)
        case .in(let operand, let items):
            node("in")
            writer.writeKey("operand"); write(operand, to: &writer)
            write(items, as: "items", to: &writer)
        case .has(let operand, let value):
            node("has")
            writer.writeKey("operand"); write(operand, to: &writer)
            writer.writeKey("value"); write(value, to: &writer)
        case .lambda(let lambda):
            node(String(describing: lambda.quantifier))
            writer.writeKey("scope"); writer.writeNumber(lambda.scope)
            if let predicate = lambda.predicate { writer.writeKey("predicate"); write(predicate, to: &writer) }
        case .count:
            node("count")
        case .localState(let test, _):
            node(test.functionName)
        case .isOf(let types, _):
            node("isof")
            writer.writeKey("types"); writer.writeValue(.array(types.map { .string($0) }))
        case .primitiveCast(let operand):
            node("cast")
            writer.writeKey("operand"); write(operand, to: &writer)
        case .entityCast(let types, _):
            node("cast")
            writer.writeKey("types"); writer.writeValue(.array(types.map { .string($0) }))
        case .conditional(let clauses):
            node("case")
            write(clauses, to: &writer)
        }
        writer.writeKey("type"); writer.writeString(expression.type.description)
        writer.endObject()

        func binary(_ kind: String, _ op: String, _ lhs: BoundExpression, _ rhs: BoundExpression) {
            node(kind)
            writer.writeKey("operator"); writer.writeString(op)
            writer.writeKey("left"); write(lhs, to: &writer)
            writer.writeKey("right"); write(rhs, to: &writer)
        }
    }

    /// A property path's fields: the path, its range variable when not the outermost, and each
    /// type cast on the way (the navigations before it and the types it admits).
    private static func writeFields(of member: BoundMember, to writer: inout JSONWriter) {
        writer.writeKey("path")
        writer.writeString((member.navigations.map(\.name) + member.propertyPath).joined(separator: "/"))
        if member.scope > 0 { writer.writeKey("scope"); writer.writeNumber(member.scope) }
        guard !member.casts.isEmpty else { return }
        writer.writeKey("casts")
        writer.beginArray()
        for cast in member.casts {
            writer.beginObject()
            writer.writeKey("hop"); writer.writeNumber(cast.hop)
            writer.writeKey("types"); writer.writeValue(.array(cast.types.map { .string($0) }))
            writer.endObject()
        }
        writer.endArray()
    }

    /// Expressions as the array under `key` (a function's arguments, the items of `in`).
    private static func write(_ expressions: [BoundExpression], as key: String, to writer: inout JSONWriter) {
        writer.writeKey(key)
        writer.beginArray()
        for expression in expressions { write(expression, to: &writer) }
        writer.endArray()
    }

    /// The clauses of `case(...)`, each a condition and its value.
    private static func write(_ clauses: [BoundClause], to writer: inout JSONWriter) {
        writer.writeKey("clauses")
        writer.beginArray()
        for clause in clauses {
            writer.beginObject()
            writer.writeKey("condition"); write(clause.condition, to: &writer)
            writer.writeKey("value"); write(clause.value, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }
}
