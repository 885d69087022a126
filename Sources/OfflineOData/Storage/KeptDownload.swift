/// A download of one defining request that was interrupted (killed, cut, or stopped) with pages
/// kept: the next download resumes after them. `status` in the tool shows it, so a stopped
/// download is not taken for one that never ran.
@_spi(Tool) public struct KeptDownload: Sendable, Equatable {
    public var definingRequest: String
    /// The pages kept so far.
    public var pages: Int
    /// The entities those pages hold.
    public var entities: Int
}
