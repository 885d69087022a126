import Testing
@_spi(Tool) @testable import OfflineOData

/// Conflict policies (issue 37) against the real V4 (odatapy) and V2 (mock-sap) services: another
/// writer changes or deletes an agency between the store's download and its upload; each policy
/// ends in its documented state on the service and in the store (docs/CONFLICTS.md).
@Suite(.serialized) struct ConflictPolicyTests {
    static let kinds: [TestBackend.Kind] = [.v4, .v2]

    /// A store with the US agencies downloaded from `backend`, and the first agency's key.
    struct Scene {
        let backend: TestBackend
        let folder = TemporaryFolder()
        let store: LocalStore
        let key: String
        var url: String { "TravelagencyCollection('\(key)')" }

        init(_ kind: TestBackend.Kind, name: String = "conflict.store") throws {
            backend = try TestBackend.start(kind, csrf: false)
            store = try LocalStore.create(path: folder.file(name), metadata: kind == .v4 ? FlightSample.v4Metadata : FlightSample.v2Metadata,
                                          definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
            _ = try store.download()
            let body = try store.execute(method: "GET", url: "TravelagencyCollection?$orderby=agencynum&$top=1&$select=agencynum").body
            let document = try JSONValue.parse(body)
            let first = document["value"]?[0] ?? document["d"]?["results"]?[0]
            key = try #require(first?["agencynum"]?.stringValue)
        }

        func close() {
            store.close()
            backend.stop()
        }

        /// Another writer's change on the service (no ETag check: it is not the store).
        func changeOnService(_ json: String) throws {
            let answer = try backend.send(HTTPRequest(method: "PATCH", url: backend.url(url),
                                                      headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                      body: Array(json.utf8)))
            #expect(answer.status < 300)
        }

        func deleteOnService() throws {
            let answer = try backend.send(HTTPRequest(method: "DELETE", url: backend.url(url), headers: [HTTPHeader("If-Match", "*")]))
            #expect(answer.status < 300)
        }

        /// Arms the test service's 409 for the agency's next change.
        func armConflict() throws {
            let answer = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_conflict",
                                                      headers: [HTTPHeader("Content-Type", "application/json")],
                                                      body: Array(#"{"path":"\#(url)","status":409}"#.utf8)))
            #expect(answer.status == 204)
        }

        /// The agency on the service; nil when it is gone.
        func served() throws -> JSONValue? {
            let answer = try backend.get(url)
            if answer.status == 404 { return nil }
            #expect(answer.status == 200)
            let document = try JSONValue.parse(answer.body)
            return document["d"] ?? document
        }

        /// The agency's row: name, city, change mark, error mark; nil when it left the store.
        func row() throws -> (name: String?, city: String?, change: String?, error: Int64)? {
            try store.file.withConnection { db throws(ODataError) in
                let select = try db.prepare("""
                    SELECT "name", "city", "_ood_change", "_ood_error" FROM "es/TravelagencyCollection" WHERE "agencynum" = ?1
                    """)
                try select.bind([.text(key)])
                guard try select.step() else { return nil }
                return (select.text(at: 0), select.text(at: 1), select.text(at: 2), select.int(at: 3))
            }
        }

        func patch(_ json: String) throws {
            _ = try store.write(method: "PATCH", url: url, body: Array(json.utf8))
        }

        func queueCount() throws -> Int { try store.file.queuedRequests().count }
    }

    // MARK: - update against an update

    @Test(arguments: kinds) func archiveKeepsTheThreeVersionsBesideTheRequest(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        let before = try #require(try scene.row())
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name","city":"Service City"}"#)

        let outcome = try scene.store.upload()
        #expect(outcome.sent == 0 && outcome.archived == 1 && outcome.discarded == 0)
        let archived = try #require(try scene.store.file.errorArchive().first)
        #expect(archived.kind == .conflict && archived.httpStatus == 412)
        let conflict = try #require(archived.conflict)
        #expect(conflict.policy == "archive" && conflict.outcome == .archived)
        #expect(conflict.original["name"]?.stringValue == before.name)
        #expect(conflict.local["name"]?.stringValue == "Local Name")
        #expect(conflict.served["name"]?.stringValue == "Service Name")
        let byName = Dictionary(uniqueKeysWithValues: conflict.properties.map { ($0.name, $0) })
        #expect(byName["name"]?.changedBy == .both)
        #expect(byName["city"]?.changedBy == .service && byName["city"]?.served?.stringValue == "Service City")
        // The service keeps the other writer's change; the store keeps the user's, marked in error.
        #expect(try scene.served()?["name"]?.stringValue == "Service Name")
        let row = try #require(try scene.row())
        #expect(row.name == "Local Name" && row.error == 1)
        // The archive's JSON carries it too.
        let json = ArchivedRequest.jsonText([archived])
        #expect(json.contains(#""served":{"#) && json.contains(#""changedBy":"both""#))
    }

    @Test(arguments: kinds) func serverWinsDropsTheChangeRecordsItAndTakesTheServicesEntity(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        _ = try scene.store.setConflictPolicy(.serverWins, entitySet: nil)
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name"}"#)

        let outcome = try scene.store.upload()
        #expect(outcome.sent == 0 && outcome.archived == 0 && outcome.discarded == 1)
        #expect(try scene.queueCount() == 0 && scene.store.file.errorArchive().isEmpty)
        let row = try #require(try scene.row())
        #expect(row.name == "Service Name" && row.change == nil && row.error == 0)
        #expect(try scene.served()?["name"]?.stringValue == "Service Name")
        let discarded = try scene.store.discardedChanges()
        #expect(discarded.count == 1)
        #expect(discarded.first?.local["name"]?.stringValue == "Local Name")
        #expect(discarded.first?.served["name"]?.stringValue == "Service Name")
        #expect(try scene.store.clearDiscardedChanges() == 1 && scene.store.discardedChanges().isEmpty)
        // The store has the service's ETag now: a later change is taken.
        try scene.patch(#"{"city":"After"}"#)
        #expect(try scene.store.upload().sent == 1)
    }

    @Test(arguments: kinds) func clientWinsSendsTheChangeAgainOnTheServicesVersion(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name","city":"Service City"}"#)

        let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: .clientWins))
        #expect(outcome.sent == 1 && outcome.archived == 0)
        let served = try #require(try scene.served())
        #expect(served["name"]?.stringValue == "Local Name" && served["city"]?.stringValue == "Service City")
        let row = try #require(try scene.row())
        #expect(row.name == "Local Name" && row.city == "Service City" && row.change == nil)
    }

    @Test(arguments: kinds) func mergeSendsChangedFieldsWhenTheServiceChangedOthers(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        _ = try scene.store.setConflictPolicy(.mergeChangedFields, entitySet: "TravelagencyCollection")
        try scene.patch(#"{"city":"Local City"}"#)
        try scene.changeOnService(#"{"name":"Service Name"}"#)

        let outcome = try scene.store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 0)
        let served = try #require(try scene.served())
        #expect(served["name"]?.stringValue == "Service Name" && served["city"]?.stringValue == "Local City")
        let row = try #require(try scene.row())
        #expect(row.name == "Service Name" && row.city == "Local City" && row.change == nil)
    }

    @Test(arguments: kinds) func mergeArchivesWhenTheServiceChangedTheSameField(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name"}"#)

        let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: .mergeChangedFields))
        #expect(outcome.sent == 0 && outcome.archived == 1)
        let archived = try #require(try scene.store.file.errorArchive().first)
        #expect(archived.kind == .conflict && archived.conflict?.policy == "mergeChangedFields")
        #expect(archived.message.contains("name"))
        #expect(try scene.served()?["name"]?.stringValue == "Service Name")
    }

    /// A queued body that no longer reads against the model (as when the model changed since the
    /// change was queued) would be left out of a merge, which would then send nothing of it: the
    /// conflict is archived instead, under merge and client wins alike, with the body as queued.
    @Test(arguments: [ConflictPolicy.mergeChangedFields, .clientWins])
    func aConflictWhoseQueuedBodyNoLongerReadsIsArchivedNotMerged(policy: ConflictPolicy) throws {
        let scene = try Scene(.v4)
        defer { scene.close() }
        try scene.patch(#"{"city":"Local City"}"#)
        try scene.store.file.withConnection { db throws(ODataError) in
            try db.prepare("UPDATE ood_request_queue SET body = ?1").run([.text(#"{"cityGone":"Local City"}"#)])
        }
        try scene.changeOnService(#"{"name":"Service Name"}"#)
        let servedBefore = try #require(try scene.served())

        let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: policy))
        #expect(outcome.sent == 0 && outcome.archived == 1 && outcome.discarded == 0)
        let archived = try #require(try scene.store.file.errorArchive().first)
        #expect(archived.kind == .conflict && archived.conflict?.policy == policy.rawValue)
        #expect(archived.message.contains("no longer reads"), "\(archived.message)")
        #expect(archived.request.body == #"{"cityGone":"Local City"}"#)
        // Nothing was sent over the service's entity; the row keeps the user's change, in error.
        let served = try #require(try scene.served())
        #expect(served["@odata.etag"] == servedBefore["@odata.etag"] && served["city"] == servedBefore["city"])
        let row = try #require(try scene.row())
        #expect(row.city == "Local City" && row.error == 1)
    }

    @Test(arguments: kinds) func aRulesConflict409IsResolvedLikeA412(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.armConflict()
        #expect(try scene.store.upload(conflicts: UploadConflicts(policy: .clientWins)).sent == 1)
        #expect(try scene.served()?["name"]?.stringValue == "Local Name")

        try scene.patch(#"{"name":"Second"}"#)
        try scene.armConflict()
        let outcome = try scene.store.upload()
        #expect(outcome.archived == 1)
        let archived = try #require(try scene.store.file.errorArchive().first)
        #expect(archived.httpStatus == 409 && archived.kind == .conflict)
        #expect(archived.conflict?.served["name"]?.stringValue == "Local Name")
    }

    // MARK: - deletes

    @Test(arguments: kinds) func deleteAgainstAnUpdatePerPolicy(kind: TestBackend.Kind) throws {
        for policy in ConflictPolicy.allCases {
            let scene = try Scene(kind, name: "\(policy).store")
            defer { scene.close() }
            _ = try scene.store.write(method: "DELETE", url: scene.url)
            try scene.changeOnService(#"{"name":"Service Name"}"#)
            let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: policy))
            switch policy {
            case .archive, .mergeChangedFields:
                #expect(outcome.archived == 1, "\(policy)")
                #expect(try scene.served()?["name"]?.stringValue == "Service Name", "\(policy)")
                #expect(try scene.row()?.change == "deleted", "\(policy)")
            case .serverWins:
                #expect(outcome.discarded == 1, "\(policy)")
                #expect(try scene.served() != nil)
                let row = try #require(try scene.row())
                #expect(row.name == "Service Name" && row.change == nil)
            case .clientWins:
                #expect(outcome.sent == 1, "\(policy)")
                #expect(try scene.served() == nil)
                #expect(try scene.row() == nil)
            }
        }
    }

    @Test(arguments: kinds) func updateAgainstADeletePerPolicy(kind: TestBackend.Kind) throws {
        for policy in ConflictPolicy.allCases {
            let scene = try Scene(kind, name: "\(policy).store")
            defer { scene.close() }
            try scene.patch(#"{"name":"Local Name"}"#)
            try scene.deleteOnService()
            let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: policy))
            #expect(try scene.served() == nil, "\(policy): never re-created")
            switch policy {
            case .archive, .clientWins, .mergeChangedFields:
                #expect(outcome.archived == 1, "\(policy)")
                let archived = try #require(try scene.store.file.errorArchive().first)
                #expect(archived.httpStatus == 404)
                if policy != .archive { #expect(archived.conflict?.served == .null) }
                #expect(try scene.row()?.name == "Local Name")
            case .serverWins:
                #expect(outcome.discarded == 1, "\(policy)")
                #expect(try scene.row() == nil)
                #expect(try scene.store.discardedChanges().first?.served == .null)
            }
        }
    }

    @Test(arguments: kinds) func deleteAgainstADeleteIsSettledUnderEveryPolicyButArchive(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        _ = try scene.store.write(method: "DELETE", url: scene.url)
        try scene.deleteOnService()
        let outcome = try scene.store.upload(conflicts: UploadConflicts(policy: .serverWins))
        #expect(outcome.archived == 0)
        #expect(try scene.queueCount() == 0)
        #expect(try scene.row() == nil)
    }

    // MARK: - the app's resolver

    @Test(arguments: kinds) func theResolverSeesTheThreeVersionsAndMayAnswerAMergedBody(kind: TestBackend.Kind) throws {
        let scene = try Scene(kind)
        defer { scene.close() }
        let before = try #require(try scene.row())
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name","city":"Service City"}"#)
        let seen = Protected<[ConflictVersions]>([])
        let outcome = try scene.store.upload(conflicts: UploadConflicts(resolver: { versions in
            seen.withLock { $0.append(versions) }
            return .merged(["name": "Merged Name"])
        }))
        #expect(outcome.sent == 1)
        let versions = try #require(seen.withLock { $0 }.first)
        #expect(seen.withLock { $0 }.count == 1)
        #expect(versions.httpStatus == 412 && versions.method == .patch && versions.entitySet == "TravelagencyCollection")
        #expect(versions.original["name"]?.stringValue == before.name && versions.original["city"]?.stringValue == before.city)
        #expect(versions.local == ["name": "Local Name"])
        #expect(versions.served["name"]?.stringValue == "Service Name" && versions.served["city"]?.stringValue == "Service City")
        let served = try #require(try scene.served())
        #expect(served["name"]?.stringValue == "Merged Name" && served["city"]?.stringValue == "Service City")
        let row = try #require(try scene.row())
        #expect(row.name == "Merged Name" && row.city == "Service City" && row.change == nil)
    }

    @Test func clientWinsInABatchToo() throws {
        let scene = try Scene(.v4)
        defer { scene.close() }
        try scene.patch(#"{"name":"Local Name"}"#)
        try scene.changeOnService(#"{"name":"Service Name"}"#)
        let outcome = try scene.store.upload(batch: true, conflicts: UploadConflicts(policy: .clientWins))
        #expect(outcome.sent == 1 && outcome.archived == 0)
        #expect(try scene.served()?["name"]?.stringValue == "Local Name")
    }
}
