/// Keys for entities created offline without one, for services that assign keys themselves.
///
/// The entity needs an address at once (later requests, reads and undo name it), so the store
/// makes one up: an integer key counts down from -1, below every key the set holds (services
/// hand out positive keys, so the two never meet); a string key is `~1`, `~2`, ... (a `~` is
/// unlikely in service keys); a Guid key is a random version-4 UUID. The
/// POST sent at upload is still the caller's body, without the made-up key, and the service's
/// answer replaces it in the store and in the requests still queued (``UploadRecorder``).
enum ProvisionalKey {
    /// Fills in the key values `body` lacks. Throws ``ODataError/Code/constraint`` for a missing
    /// key the store cannot make up (dates, decimals and the like: the caller must give them).
    static func fill(_ body: inout EntityBody, table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) {
        for column in table.keyColumns where (body.value(of: column) ?? .null) == .null {
            body.provide(try value(for: column, in: table, on: db), for: column)
        }
    }

    private static func value(for column: StoredColumn, in table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> SQLValue {
        switch column.primitiveType {
        case .sByte?, .int16?, .int32?, .int64?:
            let lowest = try db.scalarInt("SELECT min(\(column.quotedName)) FROM \(table.quotedName)") ?? 0
            let next = min(lowest, 0) - 1
            let floor: Int64 = switch column.primitiveType {
            case .sByte?: Int64(Int8.min)
            case .int16?: Int64(Int16.min)
            case .int32?: Int64(Int32.min)
            default: Int64.min + 1
            }
            guard lowest > floor else {
                throw ODataError(.constraint, "no provisional key is left for '\(column.name)' in \(table.entitySet): upload first")
            }
            return .integer(next)
        case .guid?:
            return .text(randomUUID())
        case .string?:
            let highest = try db.scalarInt(
                "SELECT max(CAST(substr(\(column.quotedName), 2) AS INTEGER)) FROM \(table.quotedName) WHERE \(column.quotedName) GLOB '~[0-9]*'"
            ) ?? 0
            let key = "~\(highest + 1)"
            if let limit = column.maxLength, key.count > limit {
                throw ODataError(.constraint, "the key property '\(column.name)' is missing, and a provisional key would not fit its "
                    + "MaxLength of \(limit): an entity created offline must give it")
            }
            return .text(key)
        default:
            let type = column.primitiveType?.rawValue ?? "structured"
            throw ODataError(.constraint, "the key property '\(column.name)' is missing: the store makes up keys only of "
                + "integer, string and Guid types (this one is \(type)), so an entity created offline must give it")
        }
    }

    /// A random version-4 UUID, lowercase, as the store keeps Guids.
    private static func randomUUID() -> String {
        var bytes = randomBytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hexText(bytes[$0]) }.joined(separator: "-")
    }
}
