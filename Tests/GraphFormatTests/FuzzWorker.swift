import Foundation

/// Runs fuzz inputs one at a time on a thread of its own, so that the test can give each a time
/// budget: an input that does not finish in time is a hang, reported while the worker is
/// abandoned (a synchronous call cannot be stopped).
///
/// The thread's stack is smaller than a main thread's, so that deep recursion fails here first.
final class FuzzWorker: @unchecked Sendable {
    private let request = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// Written by the test before `request` is signalled and read by the worker after; the
    /// semaphores order the accesses.
    private var job: (() -> Void)?
    private var stopping = false

    init(stackSize: Int) {
        let thread = Thread { [self] in
            while true {
                request.wait()
                if stopping { return }
                job?()
                job = nil
                done.signal()
            }
        }
        thread.stackSize = stackSize
        thread.name = "fuzz worker"
        thread.start()
    }

    /// Runs `body` on the worker; false when it did not finish within `budget` (the worker is
    /// then stuck and must not be used again).
    func run(budget: Duration, _ body: @escaping () -> Void) -> Bool {
        job = body
        request.signal()
        let nanoseconds = budget.components.seconds * 1_000_000_000 + budget.components.attoseconds / 1_000_000_000
        return done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }

    /// Ends the thread once it is idle.
    func stop() {
        stopping = true
        request.signal()
    }
}

/// A value handed back from the worker thread.
final class FuzzBox<Value>: @unchecked Sendable {
    var value: Value?
}

/// Resident memory of this process in bytes, or nil where /proc/self/statm does not exist.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}
