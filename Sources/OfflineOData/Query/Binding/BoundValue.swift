/// A literal value in the form the store keeps it (see `StorageForm`): integers and booleans as
/// integers, doubles as reals, decimals and durations as exact decimal text, dates and instants as
/// their canonical fixed-width text, GUIDs in lower case, binary as bytes.
package enum BoundValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes([UInt8])
}
