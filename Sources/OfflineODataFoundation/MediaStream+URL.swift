import FoundationEssentials
import OfflineOData

/// A media stream's file as a `URL` (docs/MEDIA.md), for APIs that read files by URL
/// (`FileHandle(forReadingFrom:)`, `URLSession` uploads, `Data(contentsOf:options: .alwaysMapped)`):
/// the store hands over the file, never its bytes.
extension MediaStream {
    public var url: URL { URL(filePath: path) }
}
