#if canImport(Glibc)
import Glibc
#endif

/// Finds the column of an element (or of one of its attributes) on a known line of the document.
///
/// libxml2 gives each element's line but not its column, and the parser's own position runs
/// ahead of the node being read. Errors are rare, so the column is found afterwards by looking at
/// the bytes of that line: the start tag `<[prefix:]Name`, then the attribute `Name=` inside it.
struct SourceColumnLocator {
    let bytes: UnsafeRawBufferPointer
    /// Line starts, found on the first lookup (a document with many tolerated defects asks often);
    /// copies share it, whatever thread they run on.
    private let lines = LineIndex()

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The line and 1-based column (in characters) of the element's start tag, or of its attribute.
    ///
    /// libxml2 may record the line where a multi-line start tag ends, so the search takes the last
    /// start tag with that name that begins at most a few lines earlier. Without a match the line
    /// stays as given and the column is nil.
    func locate(line: Int, element: String, attribute: String? = nil) -> (line: Int, column: Int?) {
        guard line > 0, let lineStart = offset(ofLine: line) else { return (line, nil) }
        let name = Array(element.utf8)
        let windowStart = offset(ofLine: max(1, line - 30)) ?? lineStart
        let lineEnd = endOfLine(from: lineStart)
        guard !name.isEmpty, let tagStart = lastTag(name, from: windowStart, before: lineEnd) else { return (line, nil) }
        var target = tagStart
        if let attribute, let attributeStart = findAttribute(Array(attribute.utf8), from: tagStart) {
            target = attributeStart
        }
        let (targetLine, targetLineStart) = lineAndStart(of: target)
        return (targetLine, characterCount(from: targetLineStart, to: target) + 1)
    }

    /// Convenience for callers that only need the column on the given line.
    func column(line: Int, element: String, attribute: String? = nil) -> Int? {
        locate(line: line, element: element, attribute: attribute).column
    }

    private func endOfLine(from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
        return index
    }

    /// The 1-based line number and line start of `offset`.
    private func lineAndStart(of offset: Int) -> (Int, Int) {
        let starts = lines.starts(in: bytes)
        // The last line start at or before `offset`.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, starts.isEmpty ? 0 : starts[low])
    }

    /// Byte offset where 1-based `line` starts.
    private func offset(ofLine line: Int) -> Int? {
        let starts = lines.starts(in: bytes)
        guard line >= 1, line <= starts.count else { return nil }
        return starts[line - 1]
    }

    /// The last start tag with this local name that begins in `start..<end`.
    private func lastTag(_ name: [UInt8], from start: Int, before end: Int) -> Int? {
        var found: Int?
        var index = start
        while let next = findTag(name, from: index, before: end) {
            found = next
            index = next + 1
        }
        return found
    }

    /// The offset of `<` of a start tag with this local name, searching from `start` onward.
    private func findTag(_ name: [UInt8], from start: Int, before end: Int) -> Int? {
        var index = start
        while index < min(end, bytes.count) {
            if bytes[index] == UInt8(ascii: "<") {
                var nameStart = index + 1
                // Skip a prefix (`edmx:`).
                var scan = nameStart
                while scan < bytes.count, isNameByte(bytes[scan]) { scan += 1 }
                if scan < bytes.count, bytes[scan] == UInt8(ascii: ":") { nameStart = scan + 1 }
                if matches(name, at: nameStart), !isNameByte(byte(at: nameStart + name.count)) { return index }
            }
            index += 1
        }
        return nil
    }

    /// The offset of `Name=` (preceded by white space) inside the tag starting at `tagStart`.
    private func findAttribute(_ name: [UInt8], from tagStart: Int) -> Int? {
        var index = tagStart + 1
        var quote: UInt8?
        while index < bytes.count {
            let current = bytes[index]
            if let open = quote {
                if current == open { quote = nil }
            } else if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") {
                quote = current
            } else if current == UInt8(ascii: ">") {
                return nil
            } else if isSpace(current), matches(name, at: index + 1) {
                var after = index + 1 + name.count
                while after < bytes.count, isSpace(bytes[after]) { after += 1 }
                if byte(at: after) == UInt8(ascii: "=") { return index + 1 }
            }
            index += 1
        }
        return nil
    }

    private func matches(_ name: [UInt8], at start: Int) -> Bool {
        guard start >= 0, start + name.count <= bytes.count else { return false }
        for (offset, expected) in name.enumerated() where bytes[start + offset] != expected { return false }
        return true
    }

    private func byte(at index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func isNameByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
            || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// Characters (not continuation bytes) between two offsets; a tab counts as one.
    private func characterCount(from start: Int, to end: Int) -> Int {
        var count = 0
        var index = start
        while index < end && index < bytes.count {
            if bytes[index] & 0xC0 != 0x80 { count += 1 }
            index += 1
        }
        return count
    }
}

/// The byte offsets where the lines of a document start, computed once and shared by every copy
/// of the locator: the checks that run on threads of their own (``DetachedCheck``) use the
/// validator's, so a large document with tolerated defects is indexed once (3.5 M instructions for
/// Microsoft Graph), not once per thread. The lock makes the first lookup safe from any thread.
private final class LineIndex: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`.
    private var cached: [Int]?

    func starts(in bytes: UnsafeRawBufferPointer) -> [Int] {
        lock.withLock {
            if let cached { return cached }
            let starts = LineIndex.index(bytes)
            cached = starts
            return starts
        }
    }

    private static func index(_ bytes: UnsafeRawBufferPointer) -> [Int] {
        var starts = [0]
        guard let base = bytes.baseAddress else { return starts }
        // memchr finds the newlines far faster than a byte loop; megabyte documents are common.
        var offset = 0
        while offset < bytes.count, let found = memchr(base + offset, 0x0A, bytes.count - offset) {
            let index = base.distance(to: UnsafeRawPointer(found))
            starts.append(index + 1)
            offset = index + 1
        }
        return starts
    }
}
