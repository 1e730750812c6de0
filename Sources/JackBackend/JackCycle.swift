import RenderCore
import CJack
import CThreadNotes
import NodeKit
import Synchronization

/// Everything the JACK process callback touches, in one place only that thread writes
/// (PipeWire's `rt` struct): the plan exchange, the clock, the probe and the counters.
final class JackCycle: @unchecked Sendable {
    let exchange = PlanExchange()
    let probe: RealtimeProbe
    /// Written only by the audio thread.
    private var sampleTime: Int64 = 0
    /// Cycles rendered and cycles skipped because JACK's buffer outgrew the plan.
    let cycles = Atomic<Int64>(0)
    let oversizedCycles = Atomic<Int64>(0)
    let xruns = Atomic<Int64>(0)
    /// Cycles whose own processing took longer than the period on the CPU: xruns iaa caused.
    let overruns = Atomic<Int64>(0)
    /// Cycles that ran past the period by the clock but not on the CPU: the system (another
    /// process, the hypervisor) took the CPU away; not counted as iaa's.
    let preemptedOverruns = Atomic<Int64>(0)
    /// When the running cycle began (CLOCK_MONOTONIC ns), 0 between cycles, and the period it
    /// renders: a cycle that has run for periods has a node that does not return (an endless
    /// loop in a plugin's process), which the control side reports and JACK's xruns blame on us.
    let cycleStartedAt = Atomic<UInt64>(0)
    let periodNanoseconds = Atomic<UInt64>(0)
    /// xruns JACK reported while one of our cycles had run past its period and not returned.
    let stalledXruns = Atomic<Int64>(0)
    /// Set by such an xrun so that the cycle, if it ever ends, is not counted a second time.
    private let stallCounted = Atomic<Bool>(false)
    /// The last cycle's processing time and the longest since the last read, in microseconds.
    let lastBusyMicroseconds = Atomic<Int64>(0)
    let maximumBusyMicroseconds = Atomic<Int64>(0)
    let shutDown = Atomic<Bool>(false)
    /// The host's record state (JACK's transport has none): toggled by node requests.
    let recording = Atomic<Bool>(false)
    /// Per-app time and peak are measured only while someone watches (`iaa top`).
    let metering = Atomic<Bool>(false)
    /// Every cycle's processing time, for median, p99 and max.
    let histogram = CycleHistogram()
    /// Nodes the deadline guard has faulted since activation.
    let deadlineFaults = Atomic<Int64>(0)
    /// Cycles left in which steps are timed against the deadline: set after a cycle over budget.
    private var watchCycles = 0
    private var cycleIndex: Int64 = 0
    /// The thread's CPU clock is a system call (about 0.8 µs on a VM, a tenth of a small graph's
    /// cycle), so it is read at the start of one cycle in `cpuMarkInterval`, and of every cycle
    /// after one that took a quarter of the period. A cycle late by the clock then subtracts from
    /// the CPU used since that mark the cycles in between, at their wall time (never less than
    /// their CPU time): exact when the mark is its own, otherwise off by at most the few µs
    /// libjack spends between callbacks in those few cycles. Written only by the audio thread.
    private static let cpuMarkInterval = 4
    private var cpuMark: UInt64 = 0
    private var busySinceMark: UInt64 = 0
    private var cyclesSinceMark = cpuMarkInterval
    private var markNextCycle = true

    /// Set once before activation; the callback only reads them.
    var client: OpaquePointer?
    var sampleRate: Int64 = 48_000
    /// Tempo and meter used when JACK's transport carries no bar/beat information.
    var defaultTempo: Double = 120
    var defaultBeatsPerBar: Double = 4
    /// The share of the period one node may take, cycle after cycle, before it is bypassed
    /// (0 turns the guard off).
    var deadlineShare: Double = 0.5
    /// The worker threads a cycle may be split across (docs/parallel.md); nil with one thread.
    var crew: CrewHandle?

    init(probe: RealtimeProbe) {
        self.probe = probe
    }

    /// One JACK cycle: read connected inputs, render, copy to connected outputs.
    /// - Realtime: safe.
    func process(frames: Int) {
        let started = MonotonicClock.nanoseconds()
        if markNextCycle || cyclesSinceMark >= Self.cpuMarkInterval {
            cpuMark = MonotonicClock.threadCPUNanoseconds()
            busySinceMark = 0
            cyclesSinceMark = 0
        }
        _ = iaa_take_waits()
        periodNanoseconds.store(UInt64(frames) &* 1_000_000_000 / UInt64(max(sampleRate, 1)), ordering: .relaxed)
        cycleStartedAt.store(started, ordering: .releasing)
        FloatEnvironment.flushDenormals()
        probe.begin()
        let context = RenderContext(frames: frames, sampleTime: sampleTime, transport: queryTransport())
        let budget = deadlineBudget(frames: frames)
        let deadline = watchCycles > 0 ? DeadlineCheck(budget: budget, cycle: cycleIndex) : .off
        _ = exchange.withCurrentPlan(context) { plan in
            let handles = plan.backendHandles
            guard frames <= plan.maximumFrames else {
                silenceOutputs(plan, handles: handles, frames: frames)
                oversizedCycles.add(1, ordering: .relaxed)
                return
            }
            let inputCount = plan.externalInputs.count
            for index in 0..<inputCount {
                plan.externalInputs[index] = connectedBuffer(handles[index], frames: frames).map { UnsafePointer($0) }
            }
            readMIDI(plan, handles: handles, frames: frames)
            let tripped = Renderer.render(plan, context, metering: metering.load(ordering: .relaxed), deadline: deadline,
                                          crew: crew, probe: probe)
            if tripped > 0 { deadlineFaults.add(Int64(tripped), ordering: .relaxed) }
            for index in 0..<plan.externalOutputs.count {
                guard let out = connectedBuffer(handles[inputCount + index], frames: frames) else { continue }
                out.update(from: plan.externalOutputs[index], count: frames)
            }
        }
        sampleTime &+= Int64(frames)
        cycleIndex &+= 1
        cycles.add(1, ordering: .relaxed)
        probe.end()
        cycleStartedAt.store(0, ordering: .releasing)
        measure(since: started, frames: frames, budget: budget)
    }

    /// Nanoseconds one node may take this cycle, or 0 when the guard is off.
    /// - Realtime: safe.
    @inline(__always)
    private func deadlineBudget(frames: Int) -> UInt64 {
        guard deadlineShare > 0 else { return 0 }
        return UInt64(Double(frames) * 1e9 / Double(sampleRate) * deadlineShare)
    }

    /// Records how long this cycle took, counts it as ours when it overran the period, and times
    /// the next cycles' steps when it overran the deadline budget (so they cost nothing otherwise).
    /// - Realtime: safe (the monotonic clock is a vDSO read; the thread's CPU clock, a system call
    ///   that never blocks, is read only for a cycle late by the monotonic one).
    @inline(__always)
    private func measure(since started: UInt64, frames: Int, budget: UInt64) {
        let elapsed = MonotonicClock.nanoseconds() &- started
        histogram.record(elapsed)
        let busy = Int64(truncatingIfNeeded: elapsed / 1_000)
        lastBusyMicroseconds.store(busy, ordering: .relaxed)
        if busy > maximumBusyMicroseconds.load(ordering: .relaxed) {
            maximumBusyMicroseconds.store(busy, ordering: .relaxed)
        }
        let period = Int64(frames) * 1_000_000_000
        // Read before clearing: a plain load every cycle, the exchange only after a stall.
        if stallCounted.load(ordering: .relaxed), stallCounted.exchange(false, ordering: .relaxed) {
            // Already counted as ours by the xrun that arrived while it ran.
        } else if Int64(truncatingIfNeeded: elapsed) * sampleRate > period {
            // CPU time since the mark less the cycles before this one (`cpuMark`), plus the time
            // isolated children worked for us while we waited on them.
            let sinceMark = Int64(truncatingIfNeeded: MonotonicClock.threadCPUNanoseconds() &- cpuMark)
            let used = max(sinceMark - Int64(truncatingIfNeeded: busySinceMark), 0) + Int64(truncatingIfNeeded: iaa_take_waits())
            if used * sampleRate > period {
                overruns.add(1, ordering: .relaxed)
            } else {
                preemptedOverruns.add(1, ordering: .relaxed)
            }
        }
        busySinceMark &+= elapsed
        cyclesSinceMark += 1
        markNextCycle = Int64(truncatingIfNeeded: elapsed) * sampleRate * 4 > period
        if budget > 0 && elapsed > budget {
            watchCycles = 8
        } else if watchCycles > 0 {
            watchCycles -= 1
        }
    }

    /// JACK's xrun notification (its notification thread, not the audio thread): counted as
    /// ours when our cycle is still running past its period, since only our process call can
    /// hold it there.
    func noteXrun() {
        xruns.add(1, ordering: .relaxed)
        let since = cycleStartedAt.load(ordering: .acquiring)
        let period = periodNanoseconds.load(ordering: .relaxed)
        guard since != 0, period > 0, MonotonicClock.nanoseconds() &- since > period else { return }
        stalledXruns.add(1, ordering: .relaxed)
        stallCounted.store(true, ordering: .relaxed)
    }

    /// How long the running cycle has run, when that is more than `periods` periods.
    func stalledFor(periods: UInt64) -> UInt64? {
        let since = cycleStartedAt.load(ordering: .acquiring)
        let period = periodNanoseconds.load(ordering: .relaxed)
        guard since != 0, period > 0 else { return nil }
        let elapsed = MonotonicClock.nanoseconds() &- since
        return elapsed > period &* periods && elapsed < 1 << 62 ? elapsed : nil
    }

    /// - Realtime: safe.
    @inline(__always)
    private func silenceOutputs(_ plan: borrowing RenderPlan, handles: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>, frames: Int) {
        let outputs = plan.externalInputs.count..<(plan.externalInputs.count + plan.externalOutputs.count)
        for index in outputs {
            connectedBuffer(handles[index], frames: frames)?.update(repeating: 0, count: frames)
        }
    }

    /// Moves this cycle's messages from every connected JACK MIDI port into its app's buffer.
    /// - Realtime: safe.
    @inline(__always)
    private func readMIDI(_ plan: borrowing RenderPlan, handles: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>, frames: Int) {
        Renderer.clearMIDI(plan)
        let first = plan.externalInputs.count + plan.externalOutputs.count
        for index in 0..<plan.externalMIDITargets.count {
            guard let raw = connectedRawBuffer(handles[first + index], frames: frames) else { continue }
            let target = plan.externalMIDITargets[index]
            let count = jack_midi_get_event_count(raw)
            var event = jack_midi_event_t()
            for eventIndex in 0..<count {
                guard jack_midi_event_get(&event, raw, eventIndex) == 0, event.size >= 1, event.size <= 3,
                      let bytes = event.buffer else { continue }
                plan.midiBuffers[target].insert(MIDIEvent(
                    frame: Int32(truncatingIfNeeded: event.time), status: bytes[0],
                    data1: event.size > 1 ? bytes[1] : 0, data2: event.size > 2 ? bytes[2] : 0,
                    size: UInt8(truncatingIfNeeded: event.size)))
            }
        }
    }

    /// JACK's transport as nodes see it: bar/beat/tempo from the timebase master when there is
    /// one, else derived from the transport frame and the graph's tempo.
    /// - Realtime: safe (and callable from any thread: libjack reads the position lock-free).
    @inline(__always)
    func queryTransport() -> HostTransport {
        guard let client else { return .stopped }
        var position = jack_position_t()
        let state = jack_transport_query(client, &position)
        var transport = HostTransport(isPlaying: state == JackTransportRolling, isRecording: recording.load(ordering: .relaxed),
                                      tempo: defaultTempo,
                                      beatsPerBar: defaultBeatsPerBar, sampleTime: Int64(position.frame))
        if position.valid.rawValue & JackPositionBBT.rawValue != 0, position.beats_per_minute > 0 {
            transport.tempo = position.beats_per_minute
            transport.beatsPerBar = Double(position.beats_per_bar)
            let ticks = position.ticks_per_beat > 0 ? Double(position.tick) / position.ticks_per_beat : 0
            transport.beatInBar = Double(position.beat - 1) + ticks
            transport.bar = Int(position.bar)
            transport.beat = Double(position.bar - 1) * transport.beatsPerBar + transport.beatInBar
        } else if position.frame_rate > 0 {
            transport.beat = Double(position.frame) / (Double(position.frame_rate) * 60 / transport.tempo)
            transport.bar = Int(transport.beat / transport.beatsPerBar) + 1
            transport.beatInBar = transport.beat - Double(transport.bar - 1) * transport.beatsPerBar
        }
        return transport
    }

    /// The port's audio buffer when it has a connection, else nil (no fetch).
    /// - Realtime: safe.
    @inline(__always)
    private func connectedBuffer(_ handle: UnsafeMutableRawPointer?, frames: Int) -> UnsafeMutablePointer<Float>? {
        connectedRawBuffer(handle, frames: frames)?.assumingMemoryBound(to: Float.self)
    }

    /// - Realtime: safe.
    @inline(__always)
    private func connectedRawBuffer(_ handle: UnsafeMutableRawPointer?, frames: Int) -> UnsafeMutableRawPointer? {
        guard let record = handle?.assumingMemoryBound(to: PortRecord.self),
              record.pointee.connections.load(ordering: .relaxed) > 0 else { return nil }
        return jack_port_get_buffer(record.pointee.port, jack_nframes_t(frames))
    }
}
