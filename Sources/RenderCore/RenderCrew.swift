import CRenderCrew
import CThreadNotes
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The worker threads that render a split cycle beside the backend's audio thread (the leader;
/// docs/parallel.md). The backend creates the threads (JACK's real-time threads live, plain
/// threads offline) with `entry`; the crew owns what they share and stops and joins them.
public final class RenderCrew: @unchecked Sendable {
    /// Workers a crew may have: eight threads with the leader.
    public static let maximumWorkers = 7

    /// How a backend starts a worker: a thread running `entry(argument)`, or an error message.
    public typealias Spawn = (_ entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                              _ argument: UnsafeMutableRawPointer) -> Result<pthread_t, CrewError>

    public struct CrewError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// What the audio thread and the workers read: no reference, so no retain.
    public let handle: CrewHandle
    /// When the plans' cycles are split.
    public let splitting: CycleSplitting
    private var threads: [pthread_t] = []

    /// Starts `threads - 1` workers (threads counts the leader, and is capped at
    /// `maximumWorkers + 1`). Throws, with no thread left running, when one cannot be started.
    public init(threads: Int, splitting: CycleSplitting = .whenItPays, spawn: Spawn) throws(CrewError) {
        self.splitting = splitting
        let workers = min(max(threads - 1, 0), Self.maximumWorkers)
        let crew = UnsafeMutablePointer<iaa_crew>.allocate(capacity: 1)
        crew.initialize(to: iaa_crew())
        let job = UnsafeMutablePointer<CrewJob>.allocate(capacity: 1)
        let seats = UnsafeMutablePointer<WorkerSeat>.allocate(capacity: max(workers, 1))
        handle = CrewHandle(crew: crew, job: job, seats: seats, workers: workers)
        for index in 0..<workers { (seats + index).initialize(to: WorkerSeat(handle: handle, index: index, tripped: 0)) }
        for index in 0..<workers {
            switch spawn(workerEntry, UnsafeMutableRawPointer(seats + index)) {
            case .success(let thread): self.threads.append(thread)
            case .failure(let error):
                stop()
                throw error
            }
        }
    }

    deinit {
        stop()
        handle.crew.deallocate()
        handle.job.deallocate()
        handle.seats.deinitialize(count: handle.workers)
        handle.seats.deallocate()
    }

    /// `--threads 0`: one thread per online core, at most `maximumWorkers + 1`.
    public static var automaticThreads: Int {
        min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), maximumWorkers + 1)
    }

    /// Starts a worker as a plain thread (offline, where nothing is real-time).
    public static func plainThread(_ entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                                   _ argument: UnsafeMutableRawPointer) -> Result<pthread_t, CrewError> {
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, entry, argument)
        guard status == 0 else { return .failure(CrewError("cannot start a render thread: error \(status)")) }
        return .success(thread)
    }

    /// Threads the crew renders with, the leader included.
    public var threadCount: Int { handle.workers + 1 }

    /// Each worker's time in the last cycle it joined (seconds), for `iaa top`. Control side.
    public var workerBusySeconds: [Double] {
        (0..<handle.workers).map { Double(handle.seats[$0].busy.load(ordering: .relaxed)) / 1e9 }
    }

    /// Decides whether `plan`'s cycles are split, as `splitting` says: from its steps' sampled
    /// costs and the period (nil offline), or always. Control side: when a plan is installed
    /// and on the control tick.
    public func decide(_ plan: RenderPlan, periodNanoseconds: Double?) {
        switch splitting {
        case .always: plan.forceSplit(true)
        case .whenItPays: plan.updateSplit(threads: threadCount, periodNanoseconds: periodNanoseconds)
        }
    }

    /// How many steps each worker has run since it started. Control side.
    public var workerSteps: [Int] { (0..<handle.workers).map { handle.seats[$0].steps.load(ordering: .relaxed) } }

    /// Lets the workers go without waiting for them, when the audio thread may have died inside
    /// a cycle (the server went away): an idle worker returns, one waiting for a step that will
    /// never come stays asleep. The crew's memory must then outlive it (the backend keeps it).
    public func abandon() {
        iaa_crew_stop(handle.crew)
        for thread in threads { pthread_detach(thread) }
        threads = []
    }

    /// Stops and joins the workers; the backend calls it once no cycle runs any more.
    public func stop() {
        guard !threads.isEmpty else { return }
        iaa_crew_stop(handle.crew)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }
}

/// When a crew splits a plan's cycles (`--split`).
public enum CycleSplitting: String, Sendable, CaseIterable {
    /// When the steps' measured costs say it pays (docs/parallel.md, "When it pays").
    case whenItPays = "auto"
    /// Every cycle of a plan that can be split, whatever it costs: for tests and measurements.
    case always
}

/// The crew's shared state as the real-time threads see it.
public struct CrewHandle: BitwiseCopyable {
    let crew: UnsafeMutablePointer<iaa_crew>
    let job: UnsafeMutablePointer<CrewJob>
    let seats: UnsafeMutablePointer<WorkerSeat>
    let workers: Int
}

/// The cycle the leader opened, as the workers read it after joining.
struct CrewJob: BitwiseCopyable {
    var plan: Unmanaged<RenderPlan>
    var context: RenderContext
    var timing: StepTiming
    var deadline: DeadlineCheck
    var outside: Bool
    var probe: RealtimeProbe
}

/// One worker's place: the crew, its index and what it tripped in the last cycle (read by the
/// leader once the worker has left).
struct WorkerSeat: ~Copyable {
    let handle: CrewHandle
    let index: Int
    var tripped: Int
    /// Steps it has run since it started, and its time in the last cycle it joined (ns); read
    /// by the control side, so atomic.
    let steps = Atomic<Int>(0)
    let busy = Atomic<UInt64>(0)
}

/// A worker thread: waits for a cycle, joins it, renders steps until every ticket is taken,
/// leaves; until the crew stops.
private let workerEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    guard let raw else { return nil }
    let seat = raw.assumingMemoryBound(to: WorkerSeat.self)
    let handle = seat.pointee.handle, index = seat.pointee.index
    iaa_crew_name_worker(Int32(index))
    var seen: UInt32 = 0
    while true {
        seen = iaa_crew_await(handle.crew, seen)
        if iaa_crew_stopping(handle.crew) != 0 { return nil }
        guard iaa_crew_join(handle.crew) != 0 else { continue }
        let started = MonotonicClock.nanoseconds()
        let job = handle.job.pointee
        job.probe.begin()
        _ = FloatEnvironment.flushDenormals()
        let (tripped, steps) = job.plan._withUnsafeGuaranteedRef { plan in
            Renderer.renderTickets(plan, job, crew: handle.crew, note: plan.schedule.workerNotes + index)
        }
        seat.pointee.steps.add(steps, ordering: .relaxed)
        iaa_note_rendering(nil)
        seat.pointee.tripped = tripped
        seat.pointee.busy.store(MonotonicClock.nanoseconds() &- started, ordering: .relaxed)
        job.probe.end()
        iaa_crew_leave(handle.crew)
    }
}

/// The threads a backend renders with, as `status.render` reports them.
public struct RenderThreads: Sendable, Equatable {
    /// Threads a cycle may run on, the audio thread included.
    public let threads: Int
    /// Whether the running plan's cycles are split now.
    public let split: Bool
    /// Per worker: steps run since it started, and its time in the last cycle it joined.
    public let workerSteps: [Int]
    public let workerBusySeconds: [Double]

    public init(threads: Int, split: Bool, workerSteps: [Int], workerBusySeconds: [Double]) {
        self.threads = threads
        self.split = split
        self.workerSteps = workerSteps
        self.workerBusySeconds = workerBusySeconds
    }

    public static let one = RenderThreads(threads: 1, split: false, workerSteps: [], workerBusySeconds: [])
}
