import RenderCore
import CIsolation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Starts, watches, kills and restarts one isolated app's child, on a thread of its own (never
/// the audio thread, never the engine's control queue).
///
/// It sleeps on the child's pidfd and an eventfd: a death is seen at once, and so is a hang or a
/// NaN, which the audio thread flags and signals (`SupervisionCells.wakeup`). It wakes on its
/// own only every 20 ms until the child sits on the audio thread's CPU, then once a second (21
/// supervisors waking every 20 ms cost about a microsecond per isolated app and cycle). After a
/// fault it waits a backoff that doubles up to a limit, then starts a new child on the same segment; `maxCrashes` faults within `crashWindowSeconds`
/// leave the app off until ``reenable()``.
final class ChildSupervisor: @unchecked Sendable {
    private let app: String
    private let settings: IsolationSettings
    private let segment: Segment
    private let cells: UnsafeMutablePointer<SupervisionCells>
    private let observer: @Sendable (IsolationEvent) -> Void
    private let argv: [String]
    /// Wakes the thread out of a backoff or an off state: `Command` values, futex word.
    private let command: UnsafeMutablePointer<UInt32>
    private let state = Mutex(IsolationStatus(state: .starting, pid: nil, restarts: 0, fault: nil, restrictions: 0, note: nil))
    /// Counts first starts that are over (ready or failed), for `waitForFirstStart`.
    private let firstStartDone: UnsafeMutablePointer<UInt32>
    private var thread: pthread_t?

    private enum Command: UInt32 {
        case none = 0, stop = 1, reenable = 2
    }

    init(node: IsolatedNode, segment: Segment) {
        app = node.app
        settings = node.settings
        self.segment = segment
        cells = node.cells
        observer = node.observer
        argv = [node.settings.executable] + node.arguments
        command = .allocate(capacity: 1)
        command.initialize(to: Command.none.rawValue)
        firstStartDone = .allocate(capacity: 1)
        firstStartDone.initialize(to: 0)
    }

    deinit {
        command.deallocate()
        firstStartDone.deallocate()
    }

    var status: IsolationStatus { state.withLock { $0 } }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        guard pthread_create(&handle, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<ChildSupervisor>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, box) == 0 else {
            Unmanaged<ChildSupervisor>.fromOpaque(box).release()
            state.withLock { $0.state = .off; $0.note = "cannot start the supervising thread" }
            return
        }
        thread = handle
    }

    /// Blocks until the first child is ready or failed, at most `seconds`. Control side.
    func waitForFirstStart(seconds: Double) {
        let until = MonotonicClock.nanoseconds() &+ UInt64(seconds * 1e9)
        while iaa_isolation_load(firstStartDone) == 0 {
            let now = MonotonicClock.nanoseconds()
            guard now < until else { return }
            _ = iaa_futex_wait(firstStartDone, 0, Int64(until - now))
        }
    }

    /// Ends the child and the thread, and waits for both. Control side.
    func stop() {
        iaa_isolation_store(command, Command.stop.rawValue)
        iaa_futex_wake(command)
        iaa_wakeup_signal(cells.pointee.wakeup)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    func reenable() -> Bool {
        guard state.withLock({ $0.state == .off }) else { return false }
        iaa_isolation_store(command, Command.reenable.rawValue)
        iaa_futex_wake(command)
        return true
    }

    private var stopping: Bool { iaa_isolation_load(command) == Command.stop.rawValue }

    private func run() {
        var faultTimes: [UInt64] = []
        var backoff = settings.firstBackoffSeconds
        while !stopping {
            guard let fault = serveOneChild() else { break }
            guard !stopping else {
                // Faulted as the node was being stopped: still told, and nothing restarts.
                observer(IsolationEvent(app: app, kind: .faulted(fault, restartIn: nil)))
                break
            }
            let now = MonotonicClock.nanoseconds()
            faultTimes = faultTimes.filter { Double(now &- $0) / 1e9 < settings.crashWindowSeconds } + [now]
            let off = faultTimes.count >= settings.maxCrashes
            state.withLock { status in
                status.state = off ? .off : .restarting
                status.fault = fault
                status.pid = nil
                status.note = off ? "\(faultTimes.count) faults within \(Int(settings.crashWindowSeconds)) s; `iaa enable \(app)` starts it again" : nil
            }
            observer(IsolationEvent(app: app, kind: .faulted(fault, restartIn: off ? nil : backoff)))
            if off {
                guard waitForCommand(seconds: nil) == .reenable else { break }
                faultTimes = []
                backoff = settings.firstBackoffSeconds
            } else {
                guard waitForCommand(seconds: backoff) != .stop else { break }
                backoff = min(backoff * 2, settings.maximumBackoffSeconds)
            }
            state.withLock { $0.state = .starting; $0.restarts += 1 }
        }
        markFirstStartDone()
    }

    /// Sleeps until a command or the timeout (nil: none); takes a reenable command.
    private func waitForCommand(seconds: Double?) -> Command {
        let until = seconds.map { MonotonicClock.nanoseconds() &+ UInt64($0 * 1e9) }
        while true {
            let word = iaa_isolation_load(command)
            if word == Command.stop.rawValue { return .stop }
            if word == Command.reenable.rawValue {
                iaa_isolation_store(command, Command.none.rawValue)
                return .reenable
            }
            var remaining: Int64 = -1
            if let until {
                let now = MonotonicClock.nanoseconds()
                guard now < until else { return .none }
                remaining = Int64(until - now)
            }
            _ = iaa_futex_wait(command, word, remaining)
        }
    }

    private func markFirstStartDone() {
        iaa_isolation_store(firstStartDone, 1)
        iaa_futex_wake(firstStartDone)
    }

    /// Starts a child and serves until it faults (returned) or the supervisor stops (nil).
    private func serveOneChild() -> ChildFault? {
        iaa_isolation_store(segment.request, 0)
        iaa_isolation_store(segment.reply, 0)
        iaa_isolation_store(segment.started, 0)
        iaa_isolation_store(segment.childState, IAA_CHILD_STARTING)
        iaa_isolation_store(segment.stop, 0)
        iaa_isolation_store(segment.transportRequest, 0)
        cells.pointee.flag.store(SupervisionFlag.none.rawValue, ordering: .releasing)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(argv, segment: segment.descriptor, memoryLimit: settings.memoryLimit)
        } catch {
            markFirstStartDone()
            return .createFailed(error.description)
        }
        state.withLock { $0.pid = child.pid }
        let output = ChildOutput(descriptor: child.output, app: app, pid: child.pid)
        // Whatever way the child ends, its last lines are written before the fault is told.
        defer { output.finish() }
        if let fault = awaitReady(child, output: output) {
            markFirstStartDone()
            return finish(child, fault)
        }
        cells.pointee.epoch.add(1, ordering: .releasing)
        cells.pointee.state.store(SupervisionState.running.rawValue, ordering: .releasing)
        let restarts = state.withLock { status in
            status.state = .running
            status.restrictions = segment.header.pointee.restrictions
            return status.restarts
        }
        markFirstStartDone()
        observer(IsolationEvent(app: app, kind: .started(pid: child.pid, restart: restarts)))
        var childCPU: Int32?
        while !stopping {
            place(child, on: &childCPU)
            let tick: Int32 = child.pidfd < 0 || (settings.placement != nil && childCPU == nil) ? 20 : 1000
            let seen = iaa_isolation_poll_child_output(child.pidfd, cells.pointee.wakeup, output.pollDescriptor, tick)
            if seen > 0 && seen & IAA_POLL_CHILD_OUTPUT != 0 { output.drain() }
            if (seen > 0 && seen & IAA_POLL_CHILD_ENDED != 0) || (child.pidfd < 0 && child.hasEnded()) {
                return finish(child, child.reapFault())
            }
            switch SupervisionFlag(rawValue: cells.pointee.flag.exchange(0, ordering: .acquiringAndReleasing)) ?? .none {
            case .hung:
                guard wasKeptOffCPU(child) else { return finish(child, .hung) }
                // Late, not hung: its cycles are handed over again (the audio thread counted the
                // silent ones in `lateCycles`).
                cells.pointee.state.store(SupervisionState.running.rawValue, ordering: .releasing)
            case .nonFinite: return finish(child, .nonFinite)
            case .none: continue
            }
        }
        cells.pointee.state.store(SupervisionState.idle.rawValue, ordering: .releasing)
        child.stop(segment: segment)
        // A fault the audio thread saw just before the stop (a short offline render) is still told.
        switch SupervisionFlag(rawValue: cells.pointee.flag.exchange(0, ordering: .acquiringAndReleasing)) ?? .none {
        case .hung: observer(IsolationEvent(app: app, kind: .faulted(.hung, restartIn: nil)))
        case .nonFinite: observer(IsolationEvent(app: app, kind: .faulted(.nonFinite, restartIn: nil)))
        case .none: break
        }
        return nil
    }

    /// Whether `child`, which the audio thread found hung, was rather kept off the CPU (by other
    /// real-time threads, of its priority or higher): over a short look it answered the cycle it
    /// owed, or it stayed runnable while hardly running. A child in an endless loop runs; one
    /// blocked for good (asleep, deadlocked) is not runnable: both are hung, as before. (The
    /// kernel adds a thread's wait for a CPU to its counters only once it runs, so the wait itself
    /// cannot be read while it lasts.) The answer is read after the child's state: a child that
    /// gets its CPU back between the two reads answers and sleeps, and must not be taken for one
    /// blocked for good. The share is of the time the look took, as this thread may be kept off
    /// its own CPU too.
    private func wasKeptOffCPU(_ child: ChildProcess) -> Bool {
        let started = MonotonicClock.nanoseconds()
        guard let before = child.schedulerState() else { return false }
        usleep(30_000)
        guard let after = child.schedulerState() else { return false }
        if iaa_isolation_load(segment.reply) == iaa_isolation_load(segment.request) { return true }
        return after.runnable && after.ran &- before.ran < (MonotonicClock.nanoseconds() &- started) / 10
    }

    /// Keeps the child on the audio thread's CPU, pinning the thread first if nobody has
    /// (``CPUPlacement``); checked every tick because the thread is seen only once it renders.
    private func place(_ child: ChildProcess, on childCPU: inout Int32?) {
        guard let placement = settings.placement else { return }
        let seen = iaa_isolation_load(segment.engineCPU)
        guard seen != .max, let cpu = placement.audioThreadCPU(seenOn: Int32(bitPattern: seen)), cpu != childCPU else { return }
        if iaa_pin_process(child.pid, cpu) == 0 { childCPU = cpu }
    }

    /// Waits for the child's READY, relaying what it prints while it loads; a failure, a death
    /// or the timeout is a fault.
    private func awaitReady(_ child: ChildProcess, output: ChildOutput) -> ChildFault? {
        let until = MonotonicClock.nanoseconds() &+ UInt64(settings.startTimeoutSeconds * 1e9)
        while true {
            switch iaa_isolation_load(segment.childState) {
            case IAA_CHILD_READY: return nil
            case IAA_CHILD_FAILED: return .createFailed(segment.childError)
            default: break
            }
            let seen = iaa_isolation_poll_child_output(child.pidfd, -1, output.pollDescriptor, 5)
            if seen > 0 && seen & IAA_POLL_CHILD_OUTPUT != 0 { output.drain() }
            if child.pidfd >= 0 ? seen > 0 && seen & IAA_POLL_CHILD_ENDED != 0 : child.hasEnded() {
                // It may have failed cleanly and exited before we looked.
                if iaa_isolation_load(segment.childState) == IAA_CHILD_FAILED { return .createFailed(segment.childError) }
                return child.reapFault()
            }
            if stopping || MonotonicClock.nanoseconds() > until { return .startTimeout }
        }
    }

    /// Silences the app, ends a wait the audio thread may be in, kills and reaps the child.
    private func finish(_ child: ChildProcess, _ fault: ChildFault) -> ChildFault {
        cells.pointee.state.store(SupervisionState.faulted.rawValue, ordering: .releasing)
        iaa_isolation_store(segment.reply, IAA_ISOLATION_DEAD)
        iaa_futex_wake(segment.reply)
        child.kill()
        return fault
    }
}
