#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// `swift run offline-odata-conformance`: runs the OASIS ABNF test cases (4.01 YAML) and the 4.0
/// corpus (jaystack `cases.json`) through the model-free parser and compares against the floor in
/// `Tests/Conformance/floor.txt`. Positive cases must parse; negative ones must fail, and the
/// error offset is compared with `FailAt`.

struct TestCase {
    var name: String
    var rule: String
    var input: String
    var failAt: Int?
}

struct Tally {
    var passed = 0
    var total = 0
    var negatives = 0
    var failAtAgreed = 0
    var byRule: [String: (passed: Int, total: Int)] = [:]
    var skipped: [String: Int] = [:]
    var failures: [String] = []
}

func run(_ cases: [TestCase], mapping: RuleMapping) -> Tally {
    var tally = Tally()
    for testCase in cases {
        let outcome: ODataError?
        switch mapping.treatment(for: testCase.rule) {
        case .skip(let reason):
            tally.skipped[reason, default: 0] += 1
            continue
        case .run(_, let entry):
            do throws(ODataError) {
                try entry(testCase.input)
                outcome = nil
            } catch {
                outcome = error
            }
        }
        if testCase.failAt == nil, let outcome, outcome.code == .unsupported {
            tally.skipped["positive cases using geo.* functions (rejected as unsupported by design)", default: 0] += 1
            tally.failures.append("  UNSUPPORTED [\(testCase.rule)] \(testCase.input) — \(outcome.message)")
            continue
        }
        let passed: Bool
        if let failAt = testCase.failAt {
            passed = outcome != nil
            tally.negatives += 1
            if let offset = outcome?.offset, offset == failAt {
                tally.failAtAgreed += 1
            } else if passed {
                tally.failures.append("  FailAt \(failAt) but error at \(outcome?.offset.map(String.init) ?? "-"): [\(testCase.rule)] \(testCase.input) — \(outcome?.message ?? "")")
            }
        } else {
            passed = outcome == nil
        }
        tally.total += 1
        var entry = tally.byRule[testCase.rule] ?? (0, 0)
        entry.total += 1
        if passed {
            tally.passed += 1
            entry.passed += 1
        } else {
            let detail = outcome.map { "error at \($0.offset.map(String.init) ?? "-"): \($0.message)" } ?? "accepted, expected failure at \(testCase.failAt ?? 0)"
            tally.failures.append("  FAIL [\(testCase.rule)] \(testCase.input) — \(detail)")
        }
        tally.byRule[testCase.rule] = entry
    }
    return tally
}

func loadYAML(_ path: String) -> (cases: [TestCase], constraints: [String: [String]])? {
    guard let bytes = readWholeFile(path) else { return nil }
    var reader = YAMLSubsetReader(String(decoding: bytes, as: UTF8.self))
    let document = reader.read()
    let cases: [TestCase] = document.testCases.compactMap { fields in
        guard let rule = fields["Rule"], let input = fields["Input"] else { return nil }
        return TestCase(name: fields["Name"] ?? "", rule: rule, input: input, failAt: fields["FailAt"].flatMap { Int($0) })
    }
    return (cases, document.constraints)
}

func loadJSONCases(_ path: String) -> [TestCase]? {
    guard let bytes = readWholeFile(path) else { return nil }
    guard case .array(let items)? = (try? JSONValue.parse(bytes)) else { return nil }
    return items.compactMap { item in
        guard let rule = fixtureText(item["-Rule"]), let input = fixtureText(item["Input"]) else { return nil }
        return TestCase(name: fixtureText(item["-Name"]) ?? "", rule: rule, input: input, failAt: fixtureText(item["-FailAt"]).flatMap { Int($0) })
    }
}

/// `key number` lines.
func readFloor(_ path: String) -> [String: Int] {
    guard let bytes = readWholeFile(path) else { return [:] }
    var floor: [String: Int] = [:]
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let value = Int(parts[1]) { floor[String(parts[0])] = value }
    }
    return floor
}

let root = fixturesRoot()
let verbose = CommandLine.arguments.contains("--verbose")
// A clone without the shared test material runs everything else: say what is skipped and how to get it.
if let folder = opendir(root) {
    closedir(folder)
} else {
    print("skipped: the OASIS ABNF test cases and the 4.0 corpus (\(root) is not there; put shared/fixtures beside the checkout or set OOD_FIXTURES)")
    exit(0)
}
guard let (yamlCases, constraints) = loadYAML(root + "/oasis-odata-abnf/odata-abnf-testcases.yaml") else {
    print("cannot read oasis-odata-abnf/odata-abnf-testcases.yaml under \(root) (set OOD_FIXTURES)")
    exit(2)
}
let jsonCases = loadJSONCases(root + "/jaystack-odata-v4-parser/cases.json") ?? []
let mapping = RuleMapping(customNames: constraints["customName"].map(Set.init))
let oasis = run(yamlCases, mapping: mapping)
let corpus40 = run(jsonCases, mapping: mapping)

print("OASIS 4.01 test cases (\(yamlCases.count) read), by rule:")
for (rule, counts) in oasis.byRule.sorted(by: { $0.value.total > $1.value.total || ($0.value.total == $1.value.total && $0.key < $1.key) }) {
    print("  \(rule): \(counts.passed)/\(counts.total)")
}
print("ABNF conformance: \(oasis.passed)/\(oasis.total)")
print("FailAt agreement: \(oasis.failAtAgreed)/\(oasis.negatives)")
print("Skipped: \(oasis.skipped.values.reduce(0, +))")
for (reason, count) in oasis.skipped.sorted(by: { $0.value > $1.value }) {
    print("  \(count) \(reason)")
}
print("4.0 corpus (jaystack cases.json, \(jsonCases.count) read): \(corpus40.passed)/\(corpus40.total), FailAt agreement \(corpus40.failAtAgreed)/\(corpus40.negatives), skipped \(corpus40.skipped.values.reduce(0, +))")
if verbose {
    print("OASIS failures and FailAt disagreements:")
    oasis.failures.forEach { print($0) }
    print("4.0 corpus failures and FailAt disagreements:")
    corpus40.failures.forEach { print($0) }
}

let floor = readFloor("Tests/Conformance/floor.txt")
var belowFloor: [String] = []
for (key, value) in [("abnf-passed", oasis.passed), ("failat-agreement", oasis.failAtAgreed), ("v40-passed", corpus40.passed)] {
    if let minimum = floor[key], value < minimum { belowFloor.append("\(key) \(value) < floor \(minimum)") }
}
if !belowFloor.isEmpty {
    print("REGRESSION: " + belowFloor.joined(separator: "; "))
    exit(1)
}

/// A JSON scalar of the 4.0 corpus as text: strings as they are, numbers by their digits.
func fixtureText(_ value: JSONValue?) -> String? {
    value?.stringValue ?? value?.numberValue?.text
}
