internal import CCurl

/// Finds the socket a request went out on, so that its answer is acknowledged without delay.
///
/// A service that writes an answer in two segments (its headers, then its body) with Nagle's
/// algorithm on (Python's `http.server`, many small servers) holds the second segment until the
/// first is acknowledged. On a kept-alive connection Linux delays that acknowledgement by up to
/// 40 ms: having just sent the request, it expects to answer with data and piggyback the ACK. A
/// fresh connection starts in quick-ACK mode and does not wait, which is why reusing connections
/// for changes made such uploads slower. Turning quick ACKs on (`TCP_QUICKACK`) once the answer
/// begins sends the pending ACK at once and the rest of the answer's without delay; the kernel
/// drops back to delaying when the next request leaves, so it is done for every answer.
///
/// libcurl 7.88 does not tell a transfer's socket while it runs (`CURLINFO_ACTIVESOCKET` only
/// after it), so the candidates are the sockets this handle opened (the socket-option callback)
/// and the one the last transfer left open; the pre-request callback's addresses and ports pick
/// the one the request is on. A descriptor closed and reused since never matches those four.
/// Used under the transport's lock only.
final class AnswerAcknowledgement {
    /// The candidate descriptors, the most recent first.
    private var sockets: [Int32] = []
    /// At most this many are remembered: the handle keeps few connections to one service.
    private static let remembered = 4

    /// A socket libcurl opened, or the one a transfer left open (-1: none).
    func remember(_ socket: Int32) {
        guard socket >= 0 else { return }
        sockets.removeAll { $0 == socket }
        sockets.insert(socket, at: 0)
        if sockets.count > Self.remembered { sockets.removeLast() }
    }

    /// The socket of the connection from `localPort` to `peer`:`peerPort`, if one of the candidates.
    func socket(localPort: Int32, peer: UnsafePointer<CChar>?, peerPort: Int32) -> Int32? {
        sockets.first { ccurl_socket_is_connection($0, localPort, peer, peerPort) != 0 }
    }

    /// How many answers were acknowledged at once so far (tests check that requests find their socket).
    private(set) var answersAcknowledged = 0

    /// Sends the pending ACK on `socket` now and the next ones without delay.
    func acknowledgeQuickly(_ socket: Int32) {
        ccurl_acknowledge_quickly(socket)
        answersAcknowledged += 1
    }
}
