@_spi(Tool) import OfflineOData

/// `filter-bind-loop N [parse]`: parses and binds `filter-bind`'s request N times and prints
/// nothing else, for instruction counts under `valgrind --tool=callgrind`, which do not depend on
/// the machine's load. The count of one parse + bind is the difference between a run of N and a
/// run of 0, divided by N (the model is read in both). With `parse`, it parses only.
func filterBindLoop(_ arguments: [String]) throws {
    let count = arguments.first.flatMap { Int($0) } ?? 1000
    let parseOnly = arguments.dropFirst().first == "parse"
    let reader = try benchmarkReader()
    let url = "Agencies?$filter=City eq 'US' and Revenue gt 100.5 and startswith(Name,'Lufthansa')"
    let parser = ODataURLParser(dialect: .v4)
    let binder = ODataBinder(model: reader.model, dialect: .v4)
    var sink = 0
    for _ in 0..<count {
        if parseOnly {
            sink &+= try parser.parse(url).path.segments.count
        } else {
            sink &+= try binder.bind(parser.parse(url)).options.orderBy.count + 1
        }
    }
    print("filter-bind-loop: \(count) iterations (\(sink))")
}
