/// The `Edm` primitive types one read names, each looked up in the table of all primitives once.
///
/// A large document names the same dozen primitives (`Edm.String`, `Edm.Int32`, ...) thousands of
/// times: Microsoft Graph has 7,679 properties. The table hashes the whole name on every lookup
/// (about 390 instructions); a repeat is found here by comparing with the few names seen so far,
/// which for a name of up to 15 bytes (kept inside the `String`) compares two words, and for a
/// longer one (shared by ``ValueInterner``) usually finds the same storage at once.
final class PrimitiveNameCache {
    /// Beyond this many distinct names (there are about 35), names are looked up in the table.
    private static let capacity = 32
    // Fixed buffers behind `let` pointers, as in ``ValueInterner``: arrays in a class's `var`s
    // would add an exclusivity check to every lookup. Only `0..<count` is read.
    private let names = UnsafeMutablePointer<String>.allocate(capacity: PrimitiveNameCache.capacity)
    private let types = UnsafeMutablePointer<PrimitiveType?>.allocate(capacity: PrimitiveNameCache.capacity)
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init() {
        count.initialize(to: 0)
    }

    deinit {
        names.deinitialize(count: count.pointee)
        types.deinitialize(count: count.pointee)
        names.deallocate()
        types.deallocate()
        count.deallocate()
    }

    /// The primitive type named `name` (`Edm.Int32`), or nil.
    func primitive(named name: String) -> PrimitiveType? {
        let known = count.pointee
        for index in 0..<known where names[index] == name { return types[index] }
        let type = PrimitiveType.named(name)
        if known < PrimitiveNameCache.capacity {
            (names + known).initialize(to: name)
            (types + known).initialize(to: type)
            count.pointee = known + 1
        }
        return type
    }
}
