import Testing
@_spi(Tool) @testable import OfflineOData

/// The model comparison on the 40 third-party `$metadata` documents: each against itself gives no
/// difference, and each against variants made from it by editing its text (a property added,
/// removed, made mandatory; a key's type changed; an entity set added or removed; a max length
/// widened) gives exactly the one expected difference.
@Suite(.needsFixtures) struct ModelComparisonFixtureTests {
    static let documents = MetadataFixtureTests.documents

    @Test(arguments: documents)
    func documentAgainstItselfHasNoDifference(_ path: String) throws {
        let bytes = try #require(Fixtures.bytes(path))
        let first = try MetadataReader.read(bytes)
        let second = try MetadataReader.read(bytes)
        #expect(ModelComparison.differences(from: first, to: second) == [])
    }

    @Test(arguments: documents)
    func variantsGiveTheExpectedDifference(_ path: String) throws {
        let bytes = try #require(Fixtures.bytes(path))
        let model = try MetadataReader.read(bytes)
        let variants = VariantMaker(bytes: bytes, model: model).variants()
        for variant in variants {
            let changed: MetadataModel
            do {
                changed = try MetadataReader.read(variant.bytes)
            } catch {
                Issue.record("\(path): the variant '\(variant.name)' does not read: \(error)")
                continue
            }
            let differences = ModelComparison.differences(from: model, to: changed)
            #expect(differences == [variant.expected], "\(path): \(variant.name)")
            // And back: the reverse edit is the opposite difference (or its own), never nothing.
            #expect(!ModelComparison.differences(from: changed, to: model).isEmpty, "\(path): \(variant.name) reversed")
        }
        // Every document that has an entity type of an entity set gets the property edits.
        if let container = model.entityContainer, container.entitySets.contains(where: { model.entityType(named: $0.entityType) != nil }) {
            #expect(variants.contains { $0.name == "added set" }, "\(path)")
        }
    }

    /// How many variants the 40 documents give, by kind: each kind is exercised on most documents.
    @Test func everyKindOfVariantIsExercised() throws {
        var counts: [String: Int] = [:]
        for path in Self.documents {
            let bytes = try #require(Fixtures.bytes(path))
            let model = try MetadataReader.read(bytes)
            for variant in VariantMaker(bytes: bytes, model: model).variants() { counts[variant.name, default: 0] += 1 }
        }
        for kind in ["added property", "removed property", "made mandatory", "changed key type", "added set", "removed set"] {
            #expect((counts[kind] ?? 0) >= 20, "\(kind): \(counts[kind] ?? 0) documents")
        }
    }
}

/// Makes variants of a `$metadata` document by editing its bytes at the elements the model says
/// where they are (their line), each with the one difference it must give.
struct VariantMaker {
    struct Variant {
        var name: String
        var bytes: [UInt8]
        var expected: ModelDifference
    }

    let bytes: [UInt8]
    let model: MetadataModel
    private let lineStarts: [Int]

    init(bytes: [UInt8], model: MetadataModel) {
        self.bytes = bytes
        self.model = model
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(index + 1) }
        lineStarts = starts
    }

    func variants() -> [Variant] {
        guard let container = model.entityContainer else { return [] }
        let sets = container.entitySets.filter { model.entityType(named: $0.entityType) != nil }
        guard let firstSet = sets.first, let type = model.entityType(named: firstSet.entityType) else { return [] }
        var result: [Variant] = []
        let typeName = type.qualifiedName
        let keyNames = Set(model.key(of: type).map(\.name))
        let constrained = Set(model.schemas.flatMap(\.entityTypes).flatMap(\.navigationProperties)
            .flatMap(\.referentialConstraints).flatMap { [$0.property, $0.referencedProperty] })
        let plain = type.properties.filter { !keyNames.contains($0.name) && !constrained.contains($0.name) && !$0.isConcurrencyToken }

        // A new nullable property, before the type's first property.
        if let first = type.properties.first, let start = elementStart(named: first.name, tag: "Property", line: first.sourceLine.line) {
            let added = "<Property Name=\"OodAddedProperty\" Type=\"Edm.String\"/>"
            result.append(Variant(name: "added property", bytes: inserting(added, at: start),
                                  expected: ModelDifference(kind: .propertyAdded, type: typeName, member: "OodAddedProperty",
                                                            new: "Edm.String", impact: .compatible)))
        }
        // A property removed: the first one whose removal leaves a readable document.
        for property in plain {
            guard let range = elementRange(named: property.name, tag: "Property", line: property.sourceLine.line) else { continue }
            let edited = removing(range)
            guard (try? MetadataReader.read(edited)) != nil else { continue }
            result.append(Variant(name: "removed property", bytes: edited,
                                  expected: ModelDifference(kind: .propertyRemoved, type: typeName, member: property.name,
                                                            old: property.type.description, impact: .needsData)))
            break
        }
        // A nullable property made mandatory.
        for property in plain where property.isNullable {
            guard let start = elementStart(named: property.name, tag: "Property", line: property.sourceLine.line),
                  let edited = settingNotNullable(elementAt: start) else { continue }
            result.append(Variant(name: "made mandatory", bytes: edited,
                                  expected: ModelDifference(kind: .propertyMadeMandatory, type: typeName, member: property.name,
                                                            old: "nullable", new: "not null", impact: .compatible)))
            break
        }
        // A key property's type changed (to Edm.String, or from it to Edm.Int64).
        if let keyProperty = model.keyProperties(of: type).first(where: { model.key(of: type).count == 1 && $0.type.primitiveType != nil }),
           type.property(named: keyProperty.name) != nil,
           let start = elementStart(named: keyProperty.name, tag: "Property", line: keyProperty.sourceLine.line) {
            let newType = keyProperty.type.name == "Edm.String" ? "Edm.Int64" : "Edm.String"
            if let edited = replacingAttribute("Type", with: newType, inElementAt: start),
               (try? MetadataReader.read(edited)) != nil {
                result.append(Variant(name: "changed key type", bytes: edited,
                                      expected: ModelDifference(kind: .propertyTypeChanged, type: typeName, member: keyProperty.name,
                                                                old: keyProperty.type.description, new: newType, impact: .needsData)))
            }
        }
        // A max length widened.
        if let property = type.properties.first(where: { if case .length = $0.facets.maxLength { true } else { false } }),
           case .length(let length)? = property.facets.maxLength,
           let start = elementStart(named: property.name, tag: "Property", line: property.sourceLine.line),
           let edited = replacingAttribute("MaxLength", with: String(length + 10), inElementAt: start) {
            result.append(Variant(name: "widened max length", bytes: edited,
                                  expected: ModelDifference(kind: .maxLengthChanged, type: typeName, member: property.name,
                                                            old: String(length), new: String(length + 10), impact: .compatible)))
        }
        // A new entity set of the same type, before the first set.
        if let start = elementStart(named: firstSet.name, tag: "EntitySet", line: firstSet.sourceLine.line) {
            let added = "<EntitySet Name=\"OodAddedSet\" EntityType=\"\(typeName)\"/>"
            result.append(Variant(name: "added set", bytes: inserting(added, at: start),
                                  expected: ModelDifference(kind: .entitySetAdded, entitySet: "OodAddedSet", new: typeName,
                                                            impact: .compatible)))
        }
        // An entity set removed: the first one whose removal leaves a readable document.
        for set in sets {
            guard let range = elementRange(named: set.name, tag: "EntitySet", line: set.sourceLine.line) else { continue }
            let edited = removing(range)
            guard let changed = try? MetadataReader.read(edited), changed.entityContainer != nil else { continue }
            // Removing a set may change what other sets' annotations resolve to; keep the clean cases.
            guard ModelComparison.differences(from: model, to: changed).count == 1 else { continue }
            result.append(Variant(name: "removed set", bytes: edited,
                                  expected: ModelDifference(kind: .entitySetRemoved, entitySet: set.name, old: set.entityType,
                                                            impact: .needsData)))
            break
        }
        return result
    }

    // MARK: Finding elements

    /// Where the element `<tag ... Name="name"` starts (its `<`): on `line`, or a few lines above
    /// it (the reader records the line where a start tag written over several lines ends).
    func elementStart(named name: String, tag: String, line: Int) -> Int? {
        for candidate in stride(from: line, to: max(0, line - 12), by: -1) {
            if let start = elementStart(named: name, tag: tag, onLine: candidate) { return start }
        }
        return nil
    }

    private func elementStart(named name: String, tag: String, onLine line: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let from = lineStarts[line - 1]
        let to = line < lineStarts.count ? lineStarts[line] : bytes.count
        let needle = Array("Name=\"\(name)\"".utf8)
        var index = from
        while index + needle.count <= to {
            if Array(bytes[index..<(index + needle.count)]) == needle, index > 0, bytes[index - 1] == UInt8(ascii: " ") || bytes[index - 1] == UInt8(ascii: "\t") {
                // Back to the element's `<`, which must open `tag`.
                var start = index
                while start > from, bytes[start] != UInt8(ascii: "<") { start -= 1 }
                let opening = Array("<\(tag)".utf8)
                if start + opening.count <= bytes.count, Array(bytes[start..<(start + opening.count)]) == opening,
                   bytes[start + opening.count] == UInt8(ascii: " ") || bytes[start + opening.count] == UInt8(ascii: "\t")
                    || bytes[start + opening.count] == UInt8(ascii: "\n") || bytes[start + opening.count] == UInt8(ascii: "\r") {
                    return start
                }
            }
            index += 1
        }
        return nil
    }

    /// The whole element: up to `/>`, or to its `</tag>`.
    func elementRange(named name: String, tag: String, line: Int) -> Range<Int>? {
        guard let start = elementStart(named: name, tag: tag, line: line),
              let close = bytes[start...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        if bytes[close - 1] == UInt8(ascii: "/") { return start..<(close + 1) }
        let closing = Array("</\(tag)>".utf8)
        var index = close
        while index + closing.count <= bytes.count {
            if Array(bytes[index..<(index + closing.count)]) == closing { return start..<(index + closing.count) }
            index += 1
        }
        return nil
    }

    // MARK: Editing

    func inserting(_ text: String, at offset: Int) -> [UInt8] {
        Array(bytes[..<offset]) + Array(text.utf8) + Array(bytes[offset...])
    }

    func removing(_ range: Range<Int>) -> [UInt8] { Array(bytes[..<range.lowerBound]) + Array(bytes[range.upperBound...]) }

    /// The start tag at `start` with `Nullable="false"` (replacing a `Nullable` it has).
    func settingNotNullable(elementAt start: Int) -> [UInt8]? {
        if let edited = replacingAttribute("Nullable", with: "false", inElementAt: start) { return edited }
        // No Nullable attribute: one added after the tag name.
        guard let space = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") })
        else { return nil }
        return inserting(" Nullable=\"false\"", at: space)
    }

    /// The start tag at `start` with the attribute's value replaced; nil when it has no such attribute.
    func replacingAttribute(_ attribute: String, with value: String, inElementAt start: Int) -> [UInt8]? {
        guard let close = bytes[start...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let needle = Array(" \(attribute)=\"".utf8)
        var index = start
        while index + needle.count <= close {
            let matches = Array(bytes[index..<(index + needle.count)]) == needle
                || (bytes[index] != UInt8(ascii: " ") && Array(bytes[(index + 1)..<(index + needle.count)]) == Array(needle.dropFirst())
                    && [UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[index]))
            if matches {
                let valueStart = index + needle.count
                guard let valueEnd = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return Array(bytes[..<valueStart]) + Array(value.utf8) + Array(bytes[valueEnd...])
            }
            index += 1
        }
        return nil
    }
}
