import RenderCore
import CIsolation
import CThreadNotes
import IAAPluginABI
import NodeKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An app's node running in a child process: `process` hands the cycle to the child through
/// shared memory and takes its outputs back, inside the engine's own cycle.
///
/// The engine wraps it in the same generic slot as any node, so plans, commands, sessions and
/// status see an app, never the kind of its node. Everything the audio thread touches is a raw
/// pointer prepared here (no class reference, no retain); the ``ChildSupervisor`` starts,
/// watches and restarts the child on a thread of its own.
public final class IsolatedNode: PhasedNode {
    /// The app, for events and status.
    public let app: String
    public let settings: IsolationSettings
    /// What the child is started with (after the binary's path).
    let arguments: [String]
    let observer: @Sendable (IsolationEvent) -> Void
    private let inputCount: Int
    private let outputCount: Int
    private let parameterCount: Int
    private let takesMIDI: Bool
    private var segment: Segment?
    private var supervisor: ChildSupervisor?
    /// The words the audio thread and the supervisor share (this process's memory, not the child's).
    let cells: UnsafeMutablePointer<SupervisionCells>
    // The audio thread's view of the segment, set in `prepare` before the node is in any plan.
    private var request: UnsafeMutablePointer<UInt32>?
    private var reply: UnsafeMutablePointer<UInt32>?
    private var wakeOnReply: UnsafeMutablePointer<UInt32>?
    private var started: UnsafeMutablePointer<UInt32>?
    private var header: UnsafeMutablePointer<iaa_isolation_header>?
    private var ramps: UnsafeMutablePointer<iaa_ramp>?
    private var midi: UnsafeMutablePointer<iaa_midi_event>?
    private var inputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    private var outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    private var transportRequest: UnsafeMutablePointer<UInt32>?
    private var latency: UnsafeMutablePointer<UInt32>?
    private var engineCPU: UnsafeMutablePointer<UInt32>?
    // Copied out of `settings` so the audio thread reads plain numbers.
    private let fixedTimeout: UInt64
    private let share: Double
    private let strikeLimit: Int
    /// The cycle's shared timer (live engines only), so bounded waits stay cheap (CPUPlacement).
    private let anchor: UnsafeMutablePointer<iaa_deadline_anchor>?
    /// Audio thread only: consecutive cycles without an answer, and the child they count for.
    private var strikes = 0
    /// Audio thread only: consecutive cycles the child did not even begin in time (another
    /// child held the CPU they share, or this one is stopped), which end it only at
    /// `strikeLimit × unstartedFactor`.
    private var unstarted = 0
    private static let unstartedFactor = 4
    private var strikeEpoch: UInt32 = 0
    /// Audio thread only: the cycle `begin` handed to the child and `finish` has not taken back
    /// (0: none; cycle numbers skip 0).
    private var pending: UInt32 = 0

    /// A node for `app` whose child runs `plugin` (resolved against `graphDirectory`) with
    /// `configuration`; the counts are the node type's layout. The child starts in `prepare`.
    public init(app: String, plugin: String, graphDirectory: String, configuration: NodeConfiguration,
                inputs: Int, outputs: Int, parameters: Int, takesMIDI: Bool, settings: IsolationSettings,
                observer: @escaping @Sendable (IsolationEvent) -> Void) {
        self.app = app
        self.settings = settings
        self.observer = observer
        inputCount = inputs
        outputCount = outputs
        parameterCount = parameters
        self.takesMIDI = takesMIDI
        fixedTimeout = settings.fixedTimeoutNanoseconds ?? 0
        share = settings.share
        strikeLimit = max(1, settings.strikes)
        anchor = settings.placement?.anchor
        var arguments = ["isolated-node", "--app", app, "--plugin", plugin, "--directory", graphDirectory]
        for (key, value) in configuration.values.sorted(by: { $0.key < $1.key }) {
            arguments += ["--config", "\(key)=\(value)"]
        }
        if let priority = settings.realtimePriority { arguments += ["--realtime-priority", String(priority)] }
        self.arguments = arguments
        cells = .allocate(capacity: 1)
        cells.initialize(to: SupervisionCells(wakeup: iaa_wakeup_make()))
    }

    deinit {
        supervisor?.stop()
        if cells.pointee.wakeup >= 0 { close(cells.pointee.wakeup) }
        cells.deinitialize(count: 1)
        cells.deallocate()
    }

    /// Creates the shared memory and starts the child, waiting until it is ready (or failed) so
    /// that the first cycles already hear it. Control side.
    public func prepare(sampleRate: Double, maximumFrames: Int) {
        if let segment, segment.maximumFrames >= maximumFrames, segment.header.pointee.sample_rate == sampleRate { return }
        supervisor?.stop()
        supervisor = nil
        do {
            let segment = try Segment(inputs: inputCount, outputs: outputCount, parameters: parameterCount,
                                      maximumFrames: maximumFrames, sampleRate: sampleRate)
            self.segment = segment
            request = segment.request
            reply = segment.reply
            wakeOnReply = segment.wakeOnReply
            started = segment.started
            header = segment.header
            ramps = segment.ramps
            midi = segment.midi
            inputs = segment.inputs
            outputs = segment.outputs
            transportRequest = segment.transportRequest
            latency = segment.latency
            engineCPU = segment.engineCPU
            let supervisor = ChildSupervisor(node: self, segment: segment)
            self.supervisor = supervisor
            supervisor.start()
            supervisor.waitForFirstStart(seconds: settings.startTimeoutSeconds + 1)
        } catch {
            observer(IsolationEvent(app: app, kind: .setupFailed(error.description)))
        }
    }

    /// Asks the child to reset its node before its next cycle. Control side.
    public func reset() {
        guard let segment else { return }
        iaa_isolation_store(segment.reset, iaa_isolation_load(segment.reset) &+ 1)
    }

    /// The cycles the child left unanswered in time (silent ones), since this node was made, or
    /// since the node it took over from (``continueLateCycles(from:)``) was.
    public var lateCycles: UInt64 {
        cells.pointee.lateCycles.load(ordering: .relaxed)
    }

    /// Counts on from `old`, the node of the same app this one replaced, so that the app's count
    /// holds the cycles `old` left silent up to the swap. Control side, once this node's plan is in.
    public func continueLateCycles(from old: IsolatedNode) {
        cells.pointee.lateCycles.add(old.lateCycles, ordering: .relaxed)
    }

    /// What `iaa status` shows for this app's child.
    public var status: IsolationStatus {
        var status = supervisor?.status ?? IsolationStatus(state: .off, pid: nil, restarts: 0, fault: nil, restrictions: 0, note: "not started")
        status.lateCycles = lateCycles
        return status
    }

    /// Ends the child now (it also ends when the node is freed): a fault seen in the last cycles
    /// is still reported. Control side, once no plan renders this node any more.
    public func shutDown() {
        supervisor?.stop()
        supervisor = nil
    }

    /// Lets an app that stayed off after too many faults start again (`iaa enable`). Returns false
    /// when it was not off.
    public func reenable() -> Bool {
        supervisor?.reenable() ?? false
    }

    /// Hands one cycle to the child and waits for it at most the app's share of the period; the
    /// one blocking wait on the audio thread (docs/isolation.md). No answer, a dead child or a
    /// non-finite sample: the outputs are silent in this same cycle.
    /// - Realtime: safe (copies, atomics, FUTEX_WAKE and one bounded FUTEX_WAIT).
    public func process(_ context: ProcessContext) {
        begin(context)
        finish(context)
    }

    /// Hands the cycle to the child without waiting: the renderer starts every isolated app of a
    /// wave this way before it waits for any (`PhasedNode`), so their children run one after
    /// another while the audio thread sleeps once. Silences the outputs when there is no child to
    /// ask, or it still owes the last cycle.
    /// - Realtime: safe (copies, atomics, FUTEX_WAKE).
    public func begin(_ context: ProcessContext) {
        pending = 0
        let frames = context.frames
        guard cells.pointee.state.load(ordering: .acquiring) == SupervisionState.running.rawValue,
              let request, let reply, let wakeOnReply, let header, let ramps, let midi, let inputs, let engineCPU,
              frames <= Int(header.pointee.max_frames) else {
            silence(context)
            return
        }
        let epoch = cells.pointee.epoch.load(ordering: .acquiring)
        if epoch != strikeEpoch {
            strikeEpoch = epoch
            strikes = 0
            unstarted = 0
        }
        let cycle = iaa_isolation_load(request)
        // Still busy with a cycle it did not answer in time: no new one, the app stays silent.
        guard iaa_isolation_load(reply) == cycle else {
            strike(context, cycle: cycle)
            return
        }
        for index in 0..<min(inputCount, context.inputs.count) {
            inputs[index].update(from: context.inputs[index].baseAddress.unsafelyUnwrapped, count: frames)
        }
        for index in 0..<min(parameterCount, context.parameters.count) {
            let ramp = context.parameters[index]
            ramps[index] = iaa_ramp(start: ramp.start, step: ramp.step, ramp_frames: UInt32(clamping: ramp.rampFrames), end: ramp.end)
        }
        let events = takesMIDI ? min(context.midi.count, Int(IAA_ISOLATION_MIDI_CAPACITY)) : 0
        for index in 0..<events {
            let event = context.midi[index]
            midi[index] = iaa_midi_event(frame: UInt32(clamping: event.frame), size: event.size,
                                         data: (event.status, event.data1, event.data2))
        }
        let host = context.transport
        header.pointee.frames = UInt32(frames)
        header.pointee.midi_count = UInt32(events)
        header.pointee.sample_time = context.sampleTime
        header.pointee.transport = iaa_transport(
            playing: host.isPlaying ? 1 : 0, recording: host.isRecording ? 1 : 0, tempo: host.tempo,
            beats_per_bar: host.beatsPerBar, beat: host.beat, bar: Int32(clamping: host.bar),
            beat_in_bar: host.beatInBar, sample_time: host.sampleTime)
        iaa_isolation_store(engineCPU, UInt32(bitPattern: iaa_current_cpu()))
        let next = cycle == IAA_ISOLATION_DEAD &- 1 ? 1 : cycle &+ 1
        // Not woken when it answers unless `finish` comes to wait for it.
        iaa_isolation_store(wakeOnReply, 0)
        iaa_isolation_store(request, next)
        iaa_futex_wake(request)
        pending = next
    }

    /// Waits for the cycle `begin` handed over (at most the app's share of the period, from now)
    /// and takes the outputs back; nothing to do when `begin` already silenced them.
    /// - Realtime: safe (atomics, one bounded FUTEX_WAIT, copies).
    public func finish(_ context: ProcessContext) {
        guard pending != 0, let reply, let wakeOnReply, let outputs else { return }
        let cycle = pending
        pending = 0
        let frames = context.frames
        guard awaitReply(cycle, reply: reply, wakeOnReply: wakeOnReply, frames: frames, sampleRate: context.sampleRate) else {
            strike(context, cycle: cycle)
            return
        }
        strikes = 0
        unstarted = 0
        guard NodeSlot.nonfiniteBits(outputs, outputCount: outputCount, frames: frames) == 0 else {
            cells.pointee.flag.store(SupervisionFlag.nonFinite.rawValue, ordering: .releasing)
            cells.pointee.state.store(SupervisionState.faulted.rawValue, ordering: .releasing)
            iaa_wakeup_signal(cells.pointee.wakeup)
            silence(context)
            return
        }
        for index in 0..<min(outputCount, context.outputs.count) {
            context.outputs[index].baseAddress.unsafelyUnwrapped.update(from: outputs[index], count: frames)
        }
        // Checked above, copied as they are: the slot need not read them again.
        if outputCount >= context.outputs.count { context.outputCheck.report(0) }
        // The child's own report, relayed: isolation adds no period of its own (the cycle is
        // handed over and answered within the engine's cycle).
        if let latency { context.latency.report(frames: Int(iaa_isolation_load(latency))) }
        if let transportRequest, iaa_isolation_load(transportRequest) != 0 {
            let asked = iaa_isolation_load(transportRequest)
            iaa_isolation_store(transportRequest, 0)
            if let value = TransportRequest(rawValue: UInt8(truncatingIfNeeded: asked)) { context.transportRequests.request(value) }
        }
    }

    /// Spins a little (a child on another CPU may answer within microseconds), then sleeps on
    /// the futex until the answer or the deadline. False on the deadline, or when the supervisor
    /// marked the child dead (it stores IAA_ISOLATION_DEAD and wakes us, so a crash ends the wait
    /// at once). The deadline is absolute and covered by the cycle's anchor timer, so the wait
    /// does not reprogram the CPU's timer (`iaa_deadline_anchor`).
    /// - Realtime: safe.
    @inline(__always)
    private func awaitReply(_ cycle: UInt32, reply: UnsafeMutablePointer<UInt32>, wakeOnReply: UnsafeMutablePointer<UInt32>,
                            frames: Int, sampleRate: Double) -> Bool {
        for _ in 0..<200 {
            let answer = iaa_isolation_load(reply)
            if answer == cycle { return true }
            if answer == IAA_ISOLATION_DEAD { return false }
        }
        let started = MonotonicClock.nanoseconds()
        // The wait is this app's work, done in its child: counted as the cycle's busy time.
        defer { iaa_note_wait(MonotonicClock.nanoseconds() &- started) }
        let deadline = started &+ (fixedTimeout > 0 ? fixedTimeout : UInt64(Double(frames) / sampleRate * 1e9 * share))
        if let anchor { iaa_deadline_anchor_cover(anchor, deadline, started) }
        // From here the child wakes us; the ordered load below sees an answer given before it saw this.
        iaa_isolation_store_ordered(wakeOnReply, 1)
        while true {
            let answer = iaa_isolation_load_ordered(reply)
            if answer == cycle { return true }
            if answer == IAA_ISOLATION_DEAD { return false }
            guard MonotonicClock.nanoseconds() < deadline else { return false }
            _ = iaa_futex_wait_until(reply, answer, deadline)
        }
    }

    /// Counts a cycle without an answer; the last allowed one declares the child hung. A child
    /// that never began `cycle` was kept off the CPU (children of one engine share the audio
    /// thread's CPU at one priority, so one that loops holds the others back until it is
    /// killed): it is silent, but its strikes count only `unstartedFactor` times as many cycles,
    /// so that the looping one is ended first and the others play on after it.
    /// - Realtime: safe.
    @inline(__always)
    private func strike(_ context: ProcessContext, cycle: UInt32) {
        silence(context)
        cells.pointee.lateCycles.add(1, ordering: .relaxed)
        if let started, iaa_isolation_load(started) != cycle {
            unstarted += 1
            guard unstarted >= strikeLimit * Self.unstartedFactor else { return }
        } else {
            strikes += 1
            guard strikes >= strikeLimit else { return }
        }
        strikes = 0
        unstarted = 0
        cells.pointee.flag.store(SupervisionFlag.hung.rawValue, ordering: .releasing)
        cells.pointee.state.store(SupervisionState.faulted.rawValue, ordering: .releasing)
        iaa_wakeup_signal(cells.pointee.wakeup)
    }

    /// - Realtime: safe.
    @inline(__always)
    private func silence(_ context: ProcessContext) {
        for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
        context.outputCheck.report(0)
    }
}

/// The supervisor's view of the child, as the audio thread reads it.
enum SupervisionState: UInt32 {
    /// No child serves the app (starting, restarting, off or stopped): silence.
    case idle = 0
    case running = 1
    /// The audio thread saw a fault; the supervisor will kill the child.
    case faulted = 2
}

/// What the audio thread tells the supervisor.
enum SupervisionFlag: UInt32 {
    case none = 0
    case hung = 1
    case nonFinite = 2
}

/// Words shared by the audio thread and the supervisor thread, in memory of their own so that
/// the audio thread reaches them through a plain pointer.
struct SupervisionCells: ~Copyable {
    let state = Atomic<UInt32>(SupervisionState.idle.rawValue)
    let flag = Atomic<UInt32>(SupervisionFlag.none.rawValue)
    /// Bumped by the supervisor for every child it starts, so strikes count per child.
    let epoch = Atomic<UInt32>(0)
    /// Cycles in which a running child did not answer in time (the app was silent in them).
    let lateCycles = Atomic<UInt64>(0)
    /// An eventfd the audio thread signals when it raises `flag`, and `stop` when the child must
    /// end: the supervisor sleeps on it and the child's pidfd instead of waking to look.
    let wakeup: Int32
}
