#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it; false when the
/// system refuses such a thread.
///
/// For the package's own checks of stack use: the depth limit test (a small stack) and the fuzz
/// harness (a large one, as AddressSanitizer's redzones make each unoptimised frame many times
/// larger than the library's).
package func runOnThread(stackSize: Int, _ body: @escaping () -> Void) -> Bool {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    guard pthread_attr_setstacksize(&attributes, stackSize) == 0 else { return false }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        guard let raw else { return nil }
        Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        return false
    }
    pthread_join(thread, nil)
    return true
}
