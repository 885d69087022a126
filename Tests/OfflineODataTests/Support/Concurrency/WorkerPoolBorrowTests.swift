#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import OfflineOData

/// A serial pool lent to a caller that would only wait (``WorkerPool/runHereIfIdle(_:)``, what
/// ``ODataStore/performAndWait(_:)`` does for the sync lane): the job runs on the caller's thread,
/// marked as the pool's, and nothing of the pool runs beside it.
@Suite struct WorkerPoolBorrowTests {
    final class OwnerObject {}

    @Test func anIdleSerialPoolRunsTheJobHereAndWhatIsSubmittedMeanwhileRunsAfterIt() {
        let ownerObject = OwnerObject()
        let owner = StoreThreadMarker.Owner(ownerObject)
        let pool = WorkerPool(name: "borrowed", threadCount: 1, owner: owner)
        defer { pool.shutDown() }
        let caller = pthread_self()
        let order = Protected<[String]>([])
        let done = ResultBox<Bool>()
        var ranHere = false
        var markedMeanwhile = false
        var lentTwice = true
        let ran = pool.runHereIfIdle {
            ranHere = pthread_equal(pthread_self(), caller) != 0
            markedMeanwhile = StoreThreadMarker.isCurrentThreadOwned(by: owner)
            // Busy now: a second caller is not lent the pool.
            lentTwice = pool.runHereIfIdle {}
            pool.submit {
                order.withLock { $0.append("submitted meanwhile") }
                done.put(.success(true))
            }
            // Work after the submission: a pool thread running beside this would come first.
            var sum = 0
            for value in 0..<200_000 { sum &+= value }
            order.withLock { $0.append("borrowed (\(sum > 0))") }
        }
        #expect(ran && ranHere && markedMeanwhile && !lentTwice)
        #expect(!StoreThreadMarker.isCurrentThreadOwned(by: owner))  // the caller's thread as it was
        _ = done.take()
        #expect(order.withLock { $0 } == ["borrowed (true)", "submitted meanwhile"])
    }

    @Test func aBusyStoppedOrParallelPoolIsNotLent() {
        let ownerObject = OwnerObject()
        let owner = StoreThreadMarker.Owner(ownerObject)
        let parallel = WorkerPool(name: "readers", threadCount: 2, owner: owner)
        #expect(!parallel.runHereIfIdle {})
        parallel.shutDown()

        let serial = WorkerPool(name: "serial", threadCount: 1, owner: owner)
        let started = ResultBox<Bool>()
        let release = ResultBox<Bool>()
        serial.submit {
            started.put(.success(true))
            _ = release.take()
        }
        _ = started.take()
        var ran = false
        #expect(!serial.runHereIfIdle { ran = true })
        #expect(!ran)
        release.put(.success(true))
        serial.shutDown()
        #expect(!serial.runHereIfIdle { ran = true })
        #expect(!ran)
    }

    @Test func theBorrowerClosingThePoolFromInsideItsJobDoesNotWaitForItself() {
        let ownerObject = OwnerObject()
        let pool = WorkerPool(name: "closing", threadCount: 1, owner: StoreThreadMarker.Owner(ownerObject))
        var closedInside = false
        let ran = pool.runHereIfIdle {
            pool.shutDown()  // as a progress callback closing its own store
            closedInside = true
        }
        #expect(ran && closedInside)
    }
}
