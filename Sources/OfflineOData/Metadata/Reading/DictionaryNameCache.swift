internal import CLibXML2

/// Element and attribute names classified once per distinct name and read, by pointer.
///
/// libxml2's parser keeps element and attribute names in its dictionary: every `Property` element
/// of a document points at the same bytes, which live as long as the parser context. So a kind is
/// looked up in the ``ByteNameTable`` (length, sampled bytes, `memcmp`) the first time and found
/// by its address afterwards. Only addresses the parser's dictionary owns are remembered
/// (`xmlDictOwns`); any other name is looked up by its bytes every time, as before.
final class DictionaryNameCache {
    private static let capacity = 256
    // Fixed buffers behind `let` pointers: a lookup runs per element and attribute, and arrays in
    // a class's `var`s would add uniqueness and exclusivity checks to each.
    private let addresses = UnsafeMutablePointer<UInt>.allocate(capacity: DictionaryNameCache.capacity)
    private let elements = UnsafeMutablePointer<CSDLElement?>.allocate(capacity: DictionaryNameCache.capacity)
    private let attributes = UnsafeMutablePointer<CSDLAttribute?>.allocate(capacity: DictionaryNameCache.capacity)
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    /// The parser's dictionary; it must outlive the cache.
    private let dictionary: xmlDictPtr?

    init(dictionary: xmlDictPtr?) {
        self.dictionary = dictionary
        addresses.initialize(repeating: 0, count: DictionaryNameCache.capacity)
        elements.initialize(repeating: nil, count: DictionaryNameCache.capacity)
        attributes.initialize(repeating: nil, count: DictionaryNameCache.capacity)
        count.initialize(to: 0)
    }

    deinit {
        addresses.deallocate()
        elements.deallocate()
        attributes.deallocate()
        count.deallocate()
    }

    /// The element kind of an element's local name (nil when the name is no CSDL element name).
    /// Inlined, like the lookups it makes: the parse thread calls it per element and attribute.
    @inline(__always)
    func element(_ name: UnsafePointer<UInt8>?) -> CSDLElement? {
        kind(of: name, in: CSDLElement.table, unknown: .other, remembered: elements)
    }

    /// The attribute kind of an attribute's local name (nil when the name is no CSDL attribute name).
    @inline(__always)
    func attribute(_ name: UnsafePointer<UInt8>?) -> CSDLAttribute? {
        kind(of: name, in: CSDLAttribute.table, unknown: .other, remembered: attributes)
    }

    /// `name`'s kind in `table`, remembered by the name's address in `remembered` (`unknown`
    /// marks a name the table lacks, so that it is not looked up again); nil for such a name.
    @inline(__always)
    private func kind<Kind: Equatable>(of name: UnsafePointer<UInt8>?, in table: ByteNameTable<Kind>, unknown: Kind,
                                       remembered: UnsafeMutablePointer<Kind?>) -> Kind? {
        guard let name else { return nil }
        guard let slot = slot(of: name) else { return table.value(for: name) }
        if let known = remembered[slot] { return known == unknown ? nil : known }
        let found = table.value(for: name) ?? unknown
        remembered[slot] = found
        return found == unknown ? nil : found
    }

    /// The slot remembering `name`'s address (taken now if free), or nil when the address is not
    /// the dictionary's or the table is half full. Every slot is masked to `capacity - 1`, so the
    /// buffers are indexed in bounds by construction.
    @inline(__always)
    private func slot(of name: UnsafePointer<UInt8>) -> Int? {
        let address = UInt(bitPattern: name)
        let mask = DictionaryNameCache.capacity - 1
        // Dictionary strings are at least byte aligned; mixing the high bits spreads them.
        var slot = Int(truncatingIfNeeded: (address ^ (address >> 7) ^ (address >> 15))) & mask
        while addresses[slot] != 0 {
            if addresses[slot] == address { return slot }
            slot = (slot + 1) & mask
        }
        guard count.pointee < DictionaryNameCache.capacity / 2, let dictionary,
              xmlDictOwns(dictionary, name) == 1 else { return nil }
        addresses[slot] = address
        count.pointee += 1
        return slot
    }
}
