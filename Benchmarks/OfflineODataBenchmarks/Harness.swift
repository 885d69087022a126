#if canImport(Glibc)
import Glibc
#endif

/// The plain benchmark harness: repeated timed samples, reported as medians next to a baseline
/// measured in the same run. Absolute times drift on shared machines; the ratio is the figure.
enum Harness {
    /// Nanoseconds from a monotonic clock.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Nanoseconds of CPU time the process has used, on all its threads.
    static func processCPUTime() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Times `body` `samples` times (after `warmup` untimed runs) and returns the median in
    /// nanoseconds per iteration, where one call of `body` performs `iterations` iterations.
    static func median(samples: Int = 15, warmup: Int = 2, iterations: Int = 1, _ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<warmup { try body() }
        var times: [Double] = []
        for _ in 0..<samples {
            let start = now()
            try body()
            times.append(Double(now() - start) / Double(max(iterations, 1)))
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Prints one result line: `name: value unit (baseline: value unit, ratio r)`.
    static func report(_ name: String, value: Double, unit: String, baseline: (name: String, value: Double)? = nil, budget: String? = nil) {
        var line = "\(name): \(format(value)) \(unit)"
        if let baseline {
            let ratio = baseline.value > 0 ? value / baseline.value : 0
            line += " | baseline \(baseline.name): \(format(baseline.value)) \(unit) | ratio \(format(ratio))"
        }
        if let budget { line += " | budget \(budget)" }
        print(line)
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return "\(rounded)"
    }
}

/// A benchmark that cannot run (its setup failed), with what went wrong.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
