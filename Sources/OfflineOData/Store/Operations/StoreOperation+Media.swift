/// Media streams (issue 35, docs/MEDIA.md).
extension StoreOperation where Output == MediaStream {
    /// The file holding the stream of the media entity `url` addresses (`Documents(1)/$value`),
    /// as the offline store has it; see ``LocalStore/streamFile(url:)``. A read: it runs on the
    /// read lane and reads no stream byte.
    public static func streamFile(url: String) -> StoreOperation<MediaStream> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("a stream's file").streamFile(url: url)
        }
    }
}
