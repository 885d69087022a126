@_spi(Tool) import OfflineOData

/// `metadata-variants FIXTURE [ROUNDS]`: the model read in several ways (threads, chunk sizes)
/// against the xmlTextReader loop, in alternating rounds, for choosing the reader's settings.
/// Prints each way's median wall time over the loop's, and its CPU time over the loop's.
func metadataVariants(_ arguments: [String]) throws {
    guard let path = arguments.first, let bytes = benchmarkFixture(path) else {
        print("metadata-variants: give a fixture path under the fixtures folder (set OOD_FIXTURES)")
        return
    }
    let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 15
    let ways: [(String, MetadataReader.Threads, Int)] = [
        ("two, 64K", .two, 1 << 16), ("two, 256K", .two, 1 << 18), ("two, 1M", .two, 1 << 20),
        ("one, 64K", .one, 1 << 16),
    ]
    var wall = Array(repeating: [Double](), count: ways.count + 1)
    var cpu = Array(repeating: UInt64(0), count: ways.count + 1)
    for round in -1..<rounds {
        for index in 0...ways.count {
            // As in `metadata`: the model is let go after the clock stops (a store keeps it).
            var model: MetadataModel?
            let cpuStart = Harness.processCPUTime(), start = Harness.now()
            if index == ways.count {
                libxml2ReaderLoop(bytes)
            } else {
                let way = ways[index]
                model = try bytes.withUnsafeBytes { buffer in
                    try MetadataReader.read(buffer, options: .init(), threads: way.1, chunkSize: way.2)
                }
            }
            if round >= 0 {
                wall[index].append(Double(Harness.now() - start))
                cpu[index] += Harness.processCPUTime() - cpuStart
            }
            withExtendedLifetime(model) {}
            model = nil
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let loopWall = median(wall[ways.count]), loopCPU = Double(cpu[ways.count])
    print("metadata-variants \(path): loop \(Harness.format(loopWall / 1e6)) ms wall, \(Harness.format(loopCPU / Double(rounds) / 1e6)) ms CPU")
    for (index, way) in ways.enumerated() {
        print("  \(way.0): \(Harness.format(median(wall[index]) / 1e6)) ms, wall \(Harness.format(median(wall[index]) / loopWall))x, CPU \(Harness.format(Double(cpu[index]) / loopCPU))x")
    }
}
