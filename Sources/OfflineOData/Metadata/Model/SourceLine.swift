/// Where a model element was declared, so that validation can name the line of a fault.
///
/// Only the line is kept per element (a column would cost a lookup per node while reading); the
/// column of an error is found afterwards from the document bytes, see `SourceColumnLocator`.
public struct SourceLine: Sendable, Hashable {
    /// 1-based line of the element's start tag; 0 when unknown (a model built in code).
    public var line: Int

    package init(_ line: Int) { self.line = line }

    public static let unknown = SourceLine(0)
}
