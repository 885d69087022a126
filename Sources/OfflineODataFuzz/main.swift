import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

// `offline-odata-fuzz`: libFuzzer harnesses for the engine's parsers.
//
// Built with `-sanitize=fuzzer,address` it fuzzes; built plainly it replays the files and folders
// given as arguments and prints `replayed N inputs`. `OOD_FUZZ_TARGET` picks the harness
// (default `metadata`).

guard let harness = selectedHarness else {
    print("offline-odata-fuzz: unknown OOD_FUZZ_TARGET '\(fuzzTargetName)' (known: \(harnesses.keys.sorted().joined(separator: ", ")))")
    exit(2)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let driverStatus = cfuzz_run_driver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
if driverStatus != -1 { exit(driverStatus) }

// Replay mode: no fuzzer runtime linked in.

/// Runs the harness on one file; returns how many inputs that was (0 or 1).
func replayFile(_ path: String) -> Int {
    guard let handle = fopen(path, "rb") else { return 0 }
    defer { fclose(handle) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    bytes.withUnsafeBytes { harness($0) }
    return 1
}

/// Runs the harness on a file, or on every file of a folder (recursively); returns the count.
func replay(_ path: String) -> Int {
    guard let directory = opendir(path) else { return replayFile(path) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted().reduce(0) { $0 + replay(path + "/" + $1) }
}

var replayed = 0
for argument in CommandLine.arguments.dropFirst() where !argument.hasPrefix("-") {
    replayed += replay(argument)
}
print("replayed \(replayed) inputs")
