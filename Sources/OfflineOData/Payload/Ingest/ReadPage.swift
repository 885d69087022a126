/// One page read and not yet written: its entities in the order they are written (each after the
/// entities of its expanded navigations) and what the page said besides them.
///
/// ``IngestSession/read(page:)`` makes it on any thread; ``IngestSession/write(_:)`` writes it on
/// the session's. Splitting the two lets a download read the next page while this one is written.
struct ReadPage {
    var entities: [EntityState]
    /// The page's links and count; the entity counts are the writer's.
    var summary: PageSummary
}
