/// The JSON summary of a store's `$metadata` that applications inspect (the C API's
/// `ood_metadata`, the Python binding): what they can address, not the whole CSDL. Entity sets
/// with their type, key, properties and navigation; singletons; the operations a store sends to
/// the service (function and action imports) with their HTTP method, parameters and return type.
extension MetadataModel {
    /// `{"version","namespaces","entitySets":[...],"singletons":[...],"functionImports":[...],"actionImports":[...]}`.
    package var summaryJSONText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("version"); writer.writeString(version.rawValue)
        writer.writeKey("namespaces"); writer.writeValue(.array(namespaces.map { .string($0) }))
        writer.writeKey("entitySets")
        writer.beginArray()
        for set in entityContainer?.entitySets ?? [] { writeSummary(of: set, to: &writer) }
        writer.endArray()
        writer.writeKey("singletons")
        writer.beginArray()
        for singleton in entityContainer?.singletons ?? [] {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(singleton.name)
            writer.writeKey("entityType"); writer.writeString(singleton.type)
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("functionImports")
        writer.beginArray()
        for function in entityContainer?.functionImports ?? [] { writeSummary(of: function, to: &writer) }
        writer.endArray()
        writer.writeKey("actionImports")
        writer.beginArray()
        for action in entityContainer?.actionImports ?? [] {
            let overload = operations(named: action.action).first { !$0.isBound }
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(action.name)
            writer.writeKey("httpMethod"); writer.writeString("POST")
            writeSignature(parameters: overload?.parameters ?? [], returnType: overload?.returnType?.type, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func writeSummary(of set: EntitySet, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("name"); writer.writeString(set.name)
        writer.writeKey("entityType"); writer.writeString(set.entityType)
        let type = entityType(named: set.entityType)
        writer.writeKey("key"); writer.writeValue(.array((type.map { key(of: $0) } ?? []).map { .string($0.name) }))
        writer.writeKey("properties")
        writer.beginArray()
        for property in type.map({ properties(of: $0) }) ?? [] {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(property.name)
            writer.writeKey("type"); writer.writeString(Self.typeText(property.type))
            writer.writeKey("nullable"); writer.writeBool(property.isNullable)
            if case .length(let length) = property.facets.maxLength {
                writer.writeKey("maxLength"); writer.writeNumber(length)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("navigationProperties")
        writer.beginArray()
        for navigation in type.map({ navigationProperties(of: $0) }) ?? [] {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(navigation.name)
            writer.writeKey("target"); set.bindingTarget(forPath: navigation.name).map { writer.writeString($0) } ?? writer.writeNull()
            writer.writeKey("collection"); writer.writeBool(navigation.multiplicity == .many)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    private func writeSummary(of function: FunctionImport, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("name"); writer.writeString(function.name)
        writer.writeKey("httpMethod"); writer.writeString(function.httpMethod)
        if let qualified = function.function {
            // V4: the signature is the imported function's (its first overload).
            let overload = operations(named: qualified).first { !$0.isBound }
            writeSignature(parameters: overload?.parameters ?? [], returnType: overload?.returnType?.type, to: &writer)
        } else {
            writeSignature(parameters: function.parameters, returnType: function.returnType, to: &writer)
        }
        writer.endObject()
    }

    private func writeSignature(parameters: [Parameter], returnType: TypeReference?, to writer: inout JSONWriter) {
        writer.writeKey("parameters")
        writer.beginArray()
        for parameter in parameters {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(parameter.name)
            writer.writeKey("type"); writer.writeString(Self.typeText(parameter.type))
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("returnType"); returnType.map { writer.writeString(Self.typeText($0)) } ?? writer.writeNull()
    }

    /// `Edm.String`, or `Collection(NS.Type)`, as `$metadata` writes it.
    private static func typeText(_ type: TypeReference) -> String {
        type.isCollection ? "Collection(\(type.name))" : type.name
    }
}
