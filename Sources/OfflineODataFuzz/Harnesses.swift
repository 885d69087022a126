#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// One harness: consumes an input and must never crash, whatever the bytes.
typealias FuzzHarness = @Sendable (UnsafeRawBufferPointer) -> Void

/// The `$metadata` reader, and on success the model's lookups and the routing of paths into it
/// (the resolver, with its reading of paths the binder refuses).
@Sendable func fuzzMetadata(_ bytes: UnsafeRawBufferPointer) {
    guard let model = try? MetadataReader.read(bytes) else { return }
    _ = model.counts
    let router = RequestRouter(mode: .mixed, model: model, dialect: .v4, definingRequests: [], hasOfflineStore: true, hasOnlineStore: true)
    for set in model.entityContainer?.entitySets ?? [] {
        _ = router.route(method: "GET", url: set.name + "(1)")
        if let type = model.entityType(named: set.entityType) {
            _ = model.keyProperties(of: type)
            for navigation in model.navigationProperties(of: type) { _ = router.route(method: "GET", url: set.name + "(1)/" + navigation.name) }
        }
    }
}

/// The `$metadata` reader with one thread and with two (the parse ahead on a thread of its own,
/// some checks beside the validation), which must agree on every input: the same model or the
/// same error. Read again with two threads in parts of 61 bytes (every boundary case between
/// parts), an accepted document must give the same model and a rejected one must be rejected
/// (which fault is named first may change with where chunks end). A disagreement aborts, which
/// libFuzzer reports as a crash with the input.
@Sendable func fuzzMetadataThreads(_ bytes: UnsafeRawBufferPointer) {
    func read(_ threads: MetadataReader.Threads, chunkSize: Int = 1 << 16) -> (accepted: Bool, text: String) {
        do {
            let model = try MetadataReader.read(bytes, options: MetadataReader.Options(), threads: threads, chunkSize: chunkSize)
            return (true, "\(model.version) \(model.edmxVersion) \(model.schemas) \(model.references) \(model.diagnostics)")
        } catch {
            return (false, "error: \(error)")
        }
    }
    let one = read(.one)
    let two = read(.two)
    let small = read(.two, chunkSize: 61)
    if one.text != two.text || one.accepted != small.accepted || (one.accepted && one.text != small.text) {
        print("metadata-threads: the reads disagree\n  one: \(one.text.prefix(2000))\n  two: \(two.text.prefix(2000))"
            + "\n  two in small parts: \(small.text.prefix(2000))")
        abort()
    }
}

/// The harnesses by `OOD_FUZZ_TARGET` name. Add one per parser.
let harnesses: [String: FuzzHarness] = [
    "metadata": fuzzMetadata,
    "metadata-threads": fuzzMetadataThreads,
    "url": fuzzURL,
    "page": fuzzPage,
    "http-answer": fuzzHTTPAnswer,
    "encrypted-file": fuzzEncryptedFile,
]

let fuzzTargetName = getenv("OOD_FUZZ_TARGET").map { String(cString: $0) } ?? "metadata"

/// The harness `OOD_FUZZ_TARGET` names (default `metadata`), nil for an unknown name.
let selectedHarness: FuzzHarness? = harnesses[fuzzTargetName]

/// The stack each input runs on. The fuzz build is unoptimised and AddressSanitizer puts redzones
/// around every local, so a frame is many times its size in the library: the URL parser's nesting
/// limit of 100 overflowed the main thread's 8 MB between 80 and 99 levels of `[` (about 90 KB a
/// level), where the unsanitised debug build fits it in 8 MB (``QueryLimitTests``).
let fuzzStackSize = 256 << 20

/// libFuzzer's entry point (also called by the replay mode through the driver shim).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, let harness = selectedHarness else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if !runOnThread(stackSize: fuzzStackSize, { harness(bytes) }) { harness(bytes) }
    return 0
}
