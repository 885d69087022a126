/// The engine for Swift apps: everything of `OfflineOData`, plus what needs Foundation (`Codable`
/// reads and writes, `Date` timestamps, `Data` bodies). A separate module so that the C library,
/// built from `OfflineOData` alone, stays free of Foundation (about 9 MB instead of 21 MB; see
/// DESIGN.md §7). An app imports this one.
@_exported import OfflineOData
