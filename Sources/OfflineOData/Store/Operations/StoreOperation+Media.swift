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

extension StoreOperation where Output == StoreResponse {
    /// Creates a media entity of `entitySet` offline: its stream from the file at `contentPath`
    /// (copied into the store's stream folder), of `contentType`, and its properties (`properties`,
    /// JSON without the key); see ``LocalStore/createMedia(entitySet:contentPath:contentType:properties:)``.
    /// The answer is the entity as stored (a `201` with its provisional key in `Location`); the
    /// upload sends the stream (a media `POST`), then the properties (`PATCH`).
    public static func createMedia(entitySet: String, contentPath: String, contentType: String,
                                   properties: [UInt8] = Array("{}".utf8)) -> StoreOperation<StoreResponse> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("creating a media entity")
            let outcome = try offline.createMedia(entitySet: entitySet, contentPath: contentPath, contentType: contentType,
                                                  properties: properties)
            context.announceChanges([entitySet])
            let type = offline.model.entitySet(named: entitySet)?.entityType
            return outcome.response(shape: AnswerShape(kind: .entity, entitySet: entitySet, entityType: type))
        }
    }

    /// Replaces the stream of the media entity `url` addresses (`Documents(1)/$value`) offline
    /// with the file at `contentPath`, of `contentType`; see
    /// ``LocalStore/replaceStream(url:contentPath:contentType:)``. The answer is a `204`; the
    /// upload sends a `PUT` of the entity's `$value`, streamed from the file.
    public static func replaceStream(url: String, contentPath: String, contentType: String) -> StoreOperation<StoreResponse> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("replacing a stream")
            let outcome = try offline.replaceStream(url: url, contentPath: contentPath, contentType: contentType)
            context.announceChanges([outcome.entitySet])
            return StoreResponse(status: 204, contentType: "", body: [])
        }
    }
}
