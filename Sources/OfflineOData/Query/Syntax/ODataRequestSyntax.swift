/// A whole relative request URL, parsed: `resource/path?query#fragment`.
@_spi(Tool) public struct ODataRequestSyntax: Sendable, Equatable {
    package var path: ResourcePathSyntax
    package var options: QueryOptionsSyntax
    /// Text after a raw `#` (context URLs such as `$metadata#Customers`), undecoded and unparsed.
    package var fragment: String?

    package init(path: ResourcePathSyntax, options: QueryOptionsSyntax, fragment: String?) {
        self.path = path
        self.options = options
        self.fragment = fragment
    }
}

/// The resource path: `Categories(1)/Products/$count`. An empty path addresses the service document.
package struct ResourcePathSyntax: Sendable, Equatable {
    package var segments: [PathSegmentSyntax]
    package var range: SourceRange

    package init(segments: [PathSegmentSyntax], range: SourceRange) {
        self.segments = segments
        self.range = range
    }
}
