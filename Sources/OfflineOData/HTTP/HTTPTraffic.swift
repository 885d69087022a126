internal import CCurl

/// Bytes of message bodies a transport moved, as libcurl counts them on the wire: request bodies
/// sent, answer bodies received (before decompression; headers not included). An upload reports
/// its share in its progress, so a user sees what it costs the network.
package struct HTTPTraffic: Sendable, Equatable {
    package var sent = 0
    package var received = 0

    package init(sent: Int = 0, received: Int = 0) {
        self.sent = sent
        self.received = received
    }

    package mutating func add(_ other: HTTPTraffic) {
        sent += other.sent
        received += other.received
    }

    /// What moved since `earlier`, a reading of the same transport.
    package func since(_ earlier: HTTPTraffic) -> HTTPTraffic {
        HTTPTraffic(sent: max(0, sent - earlier.sent), received: max(0, received - earlier.received))
    }

    /// The body bytes of the transfer `easy` just made (libcurl's `CURLINFO_SIZE_UPLOAD_T` and
    /// `CURLINFO_SIZE_DOWNLOAD_T`); nothing when libcurl cannot say.
    static func ofLastTransfer(on easy: UnsafeMutableRawPointer) -> HTTPTraffic {
        var uploaded: curl_off_t = 0
        var downloaded: curl_off_t = 0
        if ccurl_getinfo_offset(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded) != CURLE_OK { uploaded = 0 }
        if ccurl_getinfo_offset(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded) != CURLE_OK { downloaded = 0 }
        return HTTPTraffic(sent: Int(max(0, uploaded)), received: Int(max(0, downloaded)))
    }
}
