#if canImport(Glibc)
import Glibc
#endif

/// A check that only reads the model, run on a thread of its own while the validation goes on
/// with the steps after it (large documents: Microsoft Graph has 4,878 annotation groups to check).
///
/// The check works on a copy of the validator taken when it starts, with its own caches (they
/// fill lazily) and no diagnostics; the source locator's line index is shared (it locks). The
/// operation index is shared and filled by a later step (`resolveContainers`): a detached check
/// must not read it. The steps that follow change the original, whose arrays are copied on write
/// where the check still holds them. ``finish()`` waits for it and gives back what the check would
/// have added in sequence: its diagnostics and the fault it stopped at. The caller puts them where the check stood in the sequence, so a
/// document reads the same, faults and diagnostics in the same order, as checked on one thread.
final class DetachedCheck: @unchecked Sendable {
    /// What the check added: its tolerated defects, and the fault it stopped at.
    struct Outcome {
        var diagnostics: [ODataError] = []
        var fault: ODataError?
    }

    private var validator: ModelValidator
    private let check: (inout ModelValidator) throws(ODataError) -> Void
    /// Written by the check's thread before it ends, read after joining it.
    private var outcome = Outcome()
    private var thread: pthread_t?

    /// Starts `check` on a copy of `validator`, whose schemas are `schemas` when given (the parts
    /// the check reads: the arrays it does not hold are then changed in place by the steps that
    /// follow, not copied); when the system refuses a thread, the check runs in ``finish()`` instead.
    init(_ validator: ModelValidator, schemas: [Schema]? = nil, _ check: @escaping (inout ModelValidator) throws(ODataError) -> Void) {
        var copy = validator
        if let schemas { copy.schemas = schemas }
        copy.diagnostics = []
        copy.memberCache = MemberCache()
        copy.resolutionCache = ResolutionCache()
        self.validator = copy
        self.check = check
        thread = spawnThread { [self] in run() }
    }

    private func run() {
        do {
            try check(&validator)
        } catch {
            outcome.fault = error
        }
        outcome.diagnostics = validator.diagnostics
    }

    /// Waits for the check (or runs it now) and returns what it found. Called once.
    func finish() -> Outcome {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        } else {
            run()
        }
        return outcome
    }
}
