/// Rows in aligned columns under a header line, for people; `--json` is the form for scripts.
struct TextTable {
    private let headers: [String]
    private var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    var isEmpty: Bool { rows.isEmpty }

    /// Adds a row; missing cells print as empty, extra cells are dropped.
    mutating func append(_ cells: String...) {
        // Cells hold text from the service (messages, URLs): escaped, so they neither break the
        // layout nor reach the terminal as control sequences.
        rows.append((0..<headers.count).map { $0 < cells.count ? terminalSafe(cells[$0]) : "" })
    }

    /// The header and the rows, each line indented; the last column is not padded, so lines
    /// carry no trailing blanks.
    func lines(indent: String = "  ") -> [String] {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let padded = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return indent + padded.joined(separator: "  ")
        }
    }

    /// Prints ``lines(indent:)``.
    func print(indent: String = "  ") {
        for line in lines(indent: indent) { Swift.print(line) }
    }
}
