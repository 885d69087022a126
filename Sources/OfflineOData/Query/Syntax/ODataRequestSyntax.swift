/// A whole relative request URL, parsed: `resource/path?query#fragment`.
public struct ODataRequestSyntax: Sendable, Equatable {
    public var path: ResourcePathSyntax
    public var options: QueryOptionsSyntax
    /// Text after a raw `#` (context URLs such as `$metadata#Customers`), undecoded and unparsed.
    public var fragment: String?

    public init(path: ResourcePathSyntax, options: QueryOptionsSyntax, fragment: String?) {
        self.path = path
        self.options = options
        self.fragment = fragment
    }
}

/// The resource path: `Categories(1)/Products/$count`. An empty path addresses the service document.
public struct ResourcePathSyntax: Sendable, Equatable {
    public var segments: [PathSegmentSyntax]
    public var range: SourceRange

    public init(segments: [PathSegmentSyntax], range: SourceRange) {
        self.segments = segments
        self.range = range
    }
}
