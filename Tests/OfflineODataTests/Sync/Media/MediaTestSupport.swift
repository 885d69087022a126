#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// What the media suites share: a store of a media test service made from its `$metadata`, the
/// service's media log (`/_media_log`), and the files of a store's stream folder.
protocol MediaSuite {}

extension MediaSuite {
    /// A store of `backend`'s media model with `definingRequests`.
    func makeMediaStore(_ backend: TestBackend, in folder: TemporaryFolder,
                        definingRequests: [DefiningRequest]) throws -> LocalStore {
        let (_, metadata) = try backend.get("$metadata", headers: ["Accept": "application/xml"])
        return try LocalStore.create(path: folder.file("media.store"), metadata: String(decoding: metadata, as: UTF8.self),
                                     definingRequests: definingRequests, serviceRoot: backend.serviceRoot)
    }

    /// The entries of one kind ("gets", "posts", ...) of the service's media log.
    func log(_ backend: TestBackend, _ kind: String) throws -> [JSONValue] {
        let response = try backend.send(HTTPRequest(method: "GET", url: backend.origin + "/_media_log"))
        guard case .array(let entries)? = try JSONValue.parse(response.body)[kind] else { return [] }
        return entries
    }

    /// (path, status, bytes) of each stream the service sent.
    func gets(_ backend: TestBackend) throws -> [(path: String, status: Int, bytes: Int)] {
        try log(backend, "gets").map { ($0["path"]?.text ?? "", Int($0["status"]?.text ?? "") ?? 0, Int($0["bytes"]?.text ?? "") ?? 0) }
    }

    /// Empties the stream folder (TemporaryFolder removes flat files only).
    func removeStreams(_ store: LocalStore) {
        for name in store.streamFolder.names() { unlink(store.streamFolder.path + "/" + name) }
        rmdir(store.streamFolder.path)
    }

    /// The bytes of the file at `path` ([] when it cannot be read).
    func fileBytes(_ path: String) -> [UInt8] {
        guard let handle = fopen(path, "rb") else { return [] }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count == 0 { break }
            bytes += buffer.prefix(count)
        }
        return bytes
    }
}
