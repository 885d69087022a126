@_spi(Tool) import OfflineOData

/// `metadata-loop FIXTURE N [baseline]`: builds the model of the fixture N times (with `baseline`,
/// runs the benchmark's xmlTextReader loop instead) and prints nothing else, for instruction
/// counts under `valgrind --tool=callgrind`, which do not depend on the machine's load. FIXTURE is
/// a path under the fixtures folder, as in `metadata` (e.g. `msgraph-metadata/v1.0-Prod.csdl.xml`).
func metadataLoop(_ arguments: [String]) throws {
    guard let path = arguments.first, let bytes = benchmarkFixture(path) else {
        print("metadata-loop: give a fixture path under the fixtures folder (set OOD_FIXTURES)")
        return
    }
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 1
    let baseline = arguments.dropFirst(2).first == "baseline"
    var sink = 0
    for _ in 0..<count {
        if baseline {
            libxml2ReaderLoop(bytes)
        } else {
            sink &+= try MetadataReader.read(bytes).counts.entityTypes
        }
    }
    print("metadata-loop: \(count) iterations (\(sink))")
}
