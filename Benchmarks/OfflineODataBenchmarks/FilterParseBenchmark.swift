@_spi(Tool) import OfflineOData

/// `filter-parse`: median time to parse a typical three-clause `$filter` into the syntax tree
/// (parse only; binding and SQL translation come later and share the 5 µs budget).
///
/// The filter is `country eq 'US' and price gt 100.5 and startswith(name,'Lufthansa')`: a string
/// comparison, a decimal comparison and a canonical function, joined by `and`.
///
/// Baseline: the same text turned into UTF-8 bytes and scanned once, counting quote characters.
/// Any parser must at least get the bytes and look at each one, so this is the floor a byte-level
/// parser can be compared with; the ratio says how much the lexing, the tree and the error
/// bookkeeping cost on top.
func filterParseBenchmark() throws {
    let filter = "country eq 'US' and price gt 100.5 and startswith(name,'Lufthansa')"
    let parser = ODataURLParser(dialect: .v4)
    // Samples of about a millisecond each, many of them: on a shared machine a short sample is
    // less likely to be preempted, and the median of many discards the ones that were.
    let baselineIterations = 20_000
    let iterations = 500
    var sink = 0

    let baseline = Harness.median(samples: 101, iterations: baselineIterations) {
        for _ in 0..<baselineIterations {
            let bytes = Array(filter.utf8)
            var quotes = 0
            for byte in bytes where byte == UInt8(ascii: "'") { quotes += 1 }
            sink &+= quotes
        }
    }
    let parse = try Harness.median(samples: 101, iterations: iterations) {
        for _ in 0..<iterations {
            let tree = try parser.parseFilter(filter)
            sink &+= tree.range.length
        }
    }
    let fullOption = try Harness.median(samples: 101, iterations: iterations) {
        for _ in 0..<iterations {
            let options = try parser.parseQueryOptions("$filter=" + filter)
            sink &+= options.filter?.range.length ?? 0
        }
    }
    Harness.report("filter-parse (parseFilter, ns/parse)", value: parse, unit: "ns",
                   baseline: ("byte scan counting quotes", baseline), budget: "parse+bind+SQL <= 5000 ns")
    Harness.report("filter-parse ($filter= via parseQueryOptions, ns/parse)", value: fullOption, unit: "ns",
                   baseline: ("byte scan counting quotes", baseline))
    if sink == 42 { print("") }
}
