#if canImport(Glibc)
import Glibc
#endif

/// Starts a thread running `body`, with a stack of `stackSize` bytes when given (else the system's
/// default); nil when the system refuses one. The caller joins or detaches it.
func spawnThread(stackSize: Int? = nil, _ body: @escaping () -> Void) -> pthread_t? {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if let stackSize, pthread_attr_setstacksize(&attributes, stackSize) != 0 { return nil }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        guard let raw else { return nil }
        Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        return nil
    }
    return thread
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it; false when the
/// system refuses such a thread.
///
/// For the package's own checks of stack use: the depth limit test (a small stack) and the fuzz
/// harness (a large one, as AddressSanitizer's redzones make each unoptimised frame many times
/// larger than the library's).
package func runOnThread(stackSize: Int, _ body: @escaping () -> Void) -> Bool {
    guard let thread = spawnThread(stackSize: stackSize, body) else { return false }
    pthread_join(thread, nil)
    return true
}
