/// The part of `store check` about media streams (docs/MEDIA.md): every recorded stream has its
/// file with the recorded length (and, unless quick, SHA-256), and every file in the stream
/// folder belongs to a recorded stream. Findings are reported under the check `stream`.
enum StreamCheck {
    static func findings(folder: StreamFolder, on db: SQLiteConnection, quick: Bool) throws(ODataError) -> [StoreFinding] {
        var findings: [StoreFinding] = []
        func report(_ message: String) { findings.append(StoreFinding(check: "stream", message: message)) }
        let records = try StreamTable.all(in: db)
        var known = Set<String>()
        for record in records {
            known.insert(record.file)
            let what = "the stream of \(record.entitySet) entity \(record.entityID) (file \(record.file))"
            guard let length = record.length else { continue }  // a first download in progress
            guard let size = StreamFolder.size(ofFile: folder.filePath(record.file)) else {
                report("\(what) has no file")
                continue
            }
            if size != length {
                report("\(what) has \(size) bytes, \(length) recorded")
            } else if !quick, let recorded = record.sha256 {
                let digest = try StreamFolder.digest(ofFile: folder.filePath(record.file))
                if digest.sha256 != recorded { report("\(what) does not have the recorded SHA-256") }
            }
        }
        for name in folder.names() {
            var base = name
            for suffix in [".part", ".etag"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
            if !known.contains(base) { report("the file \(name) in the stream folder belongs to no recorded stream") }
        }
        return findings
    }
}
