import Testing
@_spi(Tool) @testable import OfflineOData

/// The queue's compaction as a pure function: each rule of issue 25, and each case it must leave alone.
@Suite struct QueueCompactionTests {
    static let keys = ["A": ["ID"], "B": ["ID"]]

    /// A queued request on entity set A (or `set`), local entity `entity`, with the next id.
    static func request(_ id: Int64, _ method: RequestMethod, _ entity: Int64, _ body: String? = nil, key: String? = nil,
                        set: String = "A", etag: String? = nil, transaction: String? = nil) -> QueuedRequest {
        let url = method == .post ? set : "\(set)('\(key ?? "k\(entity)")')"
        return QueuedRequest(id: id, method: method, url: url, body: body, entitySet: set, entityID: entity, etag: etag,
                             transactionID: transaction)
    }

    static func compact(_ queue: [QueuedRequest]) -> QueueCompaction { QueueCompaction.compact(queue, keyProperties: keys) }

    @Test func aCreateTakesTheFinalValuesOfItsUpdates() {
        let result = Self.compact([
            Self.request(1, .post, 1, #"{"ID":"k1","Name":"a","City":"x"}"#),
            Self.request(2, .patch, 1, #"{"Name":"b"}"#),
            Self.request(3, .patch, 1, #"{"Name":"c","Price":1.50}"#),
        ])
        #expect(result.queue.map(\.id) == [1])
        #expect(result.queue.first?.body == #"{"ID":"k1","Name":"c","City":"x","Price":1.50}"#, "later values win, numbers keep their text")
        #expect(result.replaced == [1: [2, 3]])
        #expect(result.dropped == [2, 3])
        #expect(result.cancelled.isEmpty)
    }

    @Test func aCreateTakesNoUpdateToNull() {
        let result = Self.compact([
            Self.request(1, .post, 1, #"{"ID":"k1","Name":"a","City":"x"}"#),
            Self.request(2, .patch, 1, #"{"City":null}"#),
            Self.request(3, .patch, 1, #"{"Name":"b"}"#),
        ])
        #expect(result.queue.map(\.id) == [1, 2], "the update to null stays an update; the later one joins it")
        #expect(result.queue.last?.body == #"{"City":null,"Name":"b"}"#)
    }

    @Test func consecutiveUpdatesMergePropertyByProperty() {
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a","City":"x"}"#, etag: "W/\"1\""),
            Self.request(2, .patch, 1, #"{"City":null}"#, etag: "W/\"1\""),
        ])
        #expect(result.queue.map(\.id) == [1])
        #expect(result.queue.first?.body == #"{"Name":"a","City":null}"#)
        #expect(result.queue.first?.etag == "W/\"1\"")
    }

    @Test func updatesFollowedByADeleteBecomeTheDelete() {
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a"}"#),
            Self.request(2, .put, 2, #"{"Name":"z"}"#),
            Self.request(3, .patch, 1, #"{"Name":"b"}"#),
            Self.request(4, .delete, 1),
        ])
        #expect(result.queue.map(\.id) == [2, 4])
        #expect(result.replaced == [4: [1, 3]])
    }

    @Test func aCreateFollowedByADeleteDisappearsWithEverythingBetween() {
        let result = Self.compact([
            Self.request(1, .post, 1, #"{"ID":"k1","Name":"a"}"#),
            Self.request(2, .patch, 1, #"{"Name":"b"}"#),
            Self.request(3, .delete, 1),
            Self.request(4, .delete, 2),
        ])
        #expect(result.queue.map(\.id) == [4])
        #expect(result.dropped == [1, 2, 3])
        #expect(result.cancelled == [QueueCompaction.Entity(entitySet: "A", entityID: 1)])
        #expect(result.replaced.isEmpty)
    }

    @Test func neverAcrossATransactionBoundary() {
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a"}"#, transaction: "t1"),
            Self.request(2, .patch, 1, #"{"Name":"b"}"#, transaction: "t2"),
            Self.request(3, .patch, 2, #"{"Name":"a"}"#),
            Self.request(4, .patch, 3, #"{"Name":"x"}"#, transaction: "t3"),
            Self.request(5, .patch, 2, #"{"Name":"b"}"#),
            Self.request(6, .patch, 4, #"{"Name":"a"}"#, transaction: "t4"),
            Self.request(7, .patch, 4, #"{"Name":"b"}"#, transaction: "t4"),
        ])
        #expect(result.queue.map(\.id) == [1, 3, 2, 4, 6].sorted(),
                "requests of different transactions stay apart; those of one, or of none, merge across others")
        #expect(result.replaced == [3: [5], 6: [7]])
    }

    @Test func neverAcrossARequestThatNamesTheEntity() {
        let result = Self.compact([
            Self.request(1, .post, 1, #"{"ID":"k1","Name":"a"}"#),
            Self.request(2, .post, 10, #"{"ID":"b1","Agency":"k1"}"#, set: "B"),
            Self.request(3, .delete, 1),
            Self.request(4, .patch, 2, #"{"Name":"a"}"#),
            Self.request(5, .patch, 11, #"{"Owner@odata.bind":"A('k2')"}"#, key: "b2", set: "B"),
            Self.request(6, .patch, 2, #"{"Name":"b"}"#),
        ])
        #expect(result.queue.map(\.id) == [1, 2, 3, 4, 5, 6], "a foreign key value or a link between them keeps them apart")
        let unrelated = Self.compact([
            Self.request(1, .post, 1, #"{"ID":"k1","Name":"a"}"#),
            Self.request(2, .post, 10, #"{"ID":"b1","Agency":"k7"}"#, set: "B"),
            Self.request(3, .delete, 1),
        ])
        #expect(unrelated.queue.map(\.id) == [2])
    }

    @Test func neverARequestMarkedNotToMergeNorOneSentOrCarryingLinks() {
        var marked = Self.request(2, .patch, 1, #"{"Name":"b"}"#)
        marked.mergeable = false
        var sent = Self.request(4, .patch, 2, #"{"Name":"a"}"#)
        sent.state = .inDoubt
        var firstSent = Self.request(7, .patch, 3, #"{"Name":"a"}"#)
        firstSent.firstSent = "Thu, 26 Nov 2026 10:00:00 GMT"
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a"}"#), marked, Self.request(3, .patch, 1, #"{"Name":"c"}"#),
            sent, Self.request(5, .patch, 2, #"{"Name":"b"}"#),
            Self.request(6, .post, 4, #"{"ID":"k4","Items":[{"ID":1}]}"#), Self.request(8, .delete, 4),
            firstSent, Self.request(9, .delete, 3),
        ])
        #expect(result.dropped.isEmpty, "a marked, in-doubt or once-sent request, and a deep insert, stay as they are")
    }

    @Test func neverWhenTheETagsDiffer() {
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a"}"#, etag: "W/\"1\""),
            Self.request(2, .patch, 1, #"{"Name":"b"}"#, etag: "W/\"2\""),
        ])
        #expect(result.dropped.isEmpty)
    }

    @Test func aPutStartsARunAndTakesTheUpdatesAfterIt() {
        let result = Self.compact([
            Self.request(1, .patch, 1, #"{"Name":"a"}"#),
            Self.request(2, .put, 1, #"{"Name":"b"}"#),
            Self.request(3, .patch, 1, #"{"City":"c"}"#),
        ])
        #expect(result.queue.map(\.id) == [1, 2])
        #expect(result.queue.last?.body == #"{"Name":"b","City":"c"}"#)
        #expect(result.queue.last?.method == .put)
    }

    @Test func anEmptyQueueAndOneOfSingleRequestsStayAsTheyAre() {
        #expect(Self.compact([]) == QueueCompaction(queue: [], replaced: [:], dropped: [], cancelled: []))
        let queue = [Self.request(1, .post, 1, #"{"ID":"k1"}"#), Self.request(2, .patch, 2, #"{"Name":"a"}"#), Self.request(3, .delete, 3)]
        #expect(Self.compact(queue).queue == queue)
    }

    @Test func keyPredicateValuesAreReadFromURLs() {
        #expect(QueueReferences.tokens(ofURL: "A('it''s')?$x=1") == ["s:it's"])
        #expect(QueueReferences.tokens(ofURL: "B(k1=5,k2='x')").isSuperset(of: ["n:5", "s:x"]))
        #expect(QueueReferences.tokens(ofURL: "C(guid'0a')") == ["s:0a"])
    }
}

/// The bodies the compaction joins.
@Suite struct MergedBodyTests {
    @Test func onlyFlatObjectsOfPropertyValuesTakePart() {
        #expect(MergedBody.isFlatObject(#"{"a":1,"b":"x","c":null,"d":true}"#))
        #expect(!MergedBody.isFlatObject(#"{"a":{"b":1}}"#), "a nested value")
        #expect(!MergedBody.isFlatObject(#"{"a":[1]}"#), "a collection or deep insert")
        #expect(!MergedBody.isFlatObject(#"{"Owner@odata.bind":"A('1')"}"#), "a link")
        #expect(!MergedBody.isFlatObject(#"{"__metadata":{}}"#))
        #expect(!MergedBody.isFlatObject(#"{"a":1,"a":2}"#), "a repeated member")
        #expect(!MergedBody.isFlatObject("[1]") && !MergedBody.isFlatObject("not json"))
    }

    @Test func laterMembersWinAndAKeyStaysTheCreates() {
        #expect(MergedBody.merge([#"{"ID":"k","a":1}"#, #"{"ID":"~1","b":2,"a":3}"#], keepingFirst: ["ID"])
                == #"{"ID":"k","a":3,"b":2}"#)
        #expect(MergedBody.merge([#"{"a":1}"#, nil]) == nil)
    }
}
