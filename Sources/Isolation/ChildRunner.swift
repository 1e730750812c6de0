import RenderCore
import CIsolation
import IAAPluginABI
import NodeKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The child's side of the hand-over: `iaa isolated-node` creates the node, then calls
/// ``serve(_:segment:app:)``, which never returns to plugin-loading code.
public enum ChildRunner {
    /// The load phase: restricts this process before the plugin's library is resolved or opened,
    /// so that its constructors and `create` run restricted too: nothing but reading beneath
    /// `readable` (absolute folders and files), and no process, program, socket or other process
    /// within reach (`iaa_isolation_restrict_load`). A crash from here on ends the child with its
    /// own signal: the Swift runtime's crash handler would start a backtracer, which is refused.
    /// Returns what could not be applied, to be said once.
    public static func restrictLoading(readable: [String], app: String) -> String? {
        for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(fatal, SIG_DFL) }
        // Landlock binds the calling thread and the threads it starts later, not threads already
        // running: the child has one thread here (nothing in `iaa` starts one before its command
        // runs); should that change, the other threads would run unrestricted, so it is said.
        let threads = iaa_isolation_thread_count()
        var pointers = readable.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var note = [CChar](repeating: 0, count: 256)
        let applied = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constant in
                iaa_isolation_restrict_load(constant.baseAddress, constant.count, &note, note.count)
            }
        }
        var missing = String(decoding: note.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if threads > 1 && applied & IAA_RESTRICT_LANDLOCK != 0 {
            missing += "\(threads - 1) thread\(threads == 2 ? "" : "s") started before the load phase run without Landlock; "
        }
        return missing.isEmpty ? nil : "iaa isolated-node \(app): \(missing)running without it while loading"
    }

    /// Writes why the node could not be created where the engine reads it, and marks the child
    /// failed. The caller exits.
    public static func fail(_ segment: Segment, _ message: String) {
        segment.setChildError(message)
        iaa_isolation_store(segment.childState, IAA_CHILD_FAILED)
        iaa_futex_wake(segment.childState)
    }

    /// Restricts this process (no new privileges, Landlock, seccomp), reports ready, and renders
    /// each cycle the engine posts until it asks the child to stop. Returns the exit status.
    public static func serve<Node: AudioNode>(_ node: Node, segment: Segment, app: String, realtimePriority: Int32?) -> Int32 {
        if let realtimePriority {
            // Like the engine's JACK thread; refused without the right (then the default policy).
            var parameters = sched_param(sched_priority: realtimePriority)
            _ = sched_setscheduler(0, SCHED_FIFO, &parameters)
        }
        // Denormals flushed as on the engine's audio thread (per thread, so once here): the same
        // samples in process and isolated.
        FloatEnvironment.flushDenormals()
        let frames = segment.maximumFrames
        let ramps = UnsafeMutablePointer<ParameterRamp>.allocate(capacity: max(segment.parameterCount, 1))
        ramps.initialize(repeating: .constant(0), count: max(segment.parameterCount, 1))
        let midi = UnsafeMutablePointer<MIDIEvent>.allocate(capacity: Int(IAA_ISOLATION_MIDI_CAPACITY))
        midi.initialize(repeating: MIDIEvent(frame: 0, status: 0), count: Int(IAA_ISOLATION_MIDI_CAPACITY))
        let transportCell = UnsafeMutablePointer<Atomic<UInt8>>.allocate(capacity: 1)
        transportCell.initialize(to: Atomic(0))
        let inputs = UnsafeRawPointer(segment.inputs).assumingMemoryBound(to: UnsafePointer<Float>.self)
        let outputs = UnsafePointer(segment.outputs)
        // The node reports straight into the segment (a plain word both sides read atomically);
        // the warm-up cycle below tells the engine a latency that is known before the first cycle.
        let latencyReport = LatencyReport(cell: UnsafeRawPointer(segment.latency).assumingMemoryBound(to: Atomic<UInt32>.self))
        // A warm-up cycle before the filter: first calls may instantiate metadata or map pages.
        node.process(ProcessContext(frames: frames, sampleRate: segment.header.pointee.sample_rate, sampleTime: 0,
                                    inputs: AudioInputs(base: inputs, count: segment.inputCount, frames: frames),
                                    outputs: AudioOutputs(base: outputs, count: segment.outputCount, frames: frames),
                                    parameters: ParameterRamps(base: ramps, count: segment.parameterCount),
                                    latency: latencyReport))
        node.reset()

        // The Swift runtime's crash handler would run a backtracer, which the filter forbids (and
        // which would turn a SIGSEGV into a SIGSYS): a crash ends the child with its own signal.
        for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(fatal, SIG_DFL) }
        var note = [CChar](repeating: 0, count: 256)
        segment.header.pointee.restrictions = iaa_isolation_restrict(&note, note.count)
        let unrestricted = String(decoding: note.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !unrestricted.isEmpty {
            let line = Array("iaa isolated-node \(app): \(unrestricted)running without it\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }

        iaa_isolation_store(segment.childState, IAA_CHILD_READY)
        iaa_futex_wake(segment.childState)
        var served = iaa_isolation_load(segment.request)
        var resets = iaa_isolation_load(segment.reset)
        while true {
            let cycle = iaa_isolation_load(segment.request)
            if iaa_isolation_load(segment.stop) != 0 { return 0 }
            guard cycle != served else {
                _ = iaa_futex_wait(segment.request, cycle, -1)
                continue
            }
            served = cycle
            iaa_isolation_store(segment.started, cycle)
            if iaa_isolation_load(segment.reset) != resets {
                resets = iaa_isolation_load(segment.reset)
                node.reset()
            }
            render(node, segment: segment, ramps: ramps, midi: midi, transportCell: transportCell, inputs: inputs, outputs: outputs)
            // Woken only when the engine waits for this child; in a wave it waits for the last one.
            iaa_isolation_store_ordered(segment.reply, cycle)
            if iaa_isolation_load_ordered(segment.wakeOnReply) != 0 { iaa_futex_wake(segment.reply) }
        }
    }

    /// One cycle from the segment's buffers.
    @inline(__always)
    private static func render<Node: AudioNode>(_ node: Node, segment: Segment, ramps: UnsafeMutablePointer<ParameterRamp>,
                                                midi: UnsafeMutablePointer<MIDIEvent>,
                                                transportCell: UnsafeMutablePointer<Atomic<UInt8>>,
                                                inputs: UnsafePointer<UnsafePointer<Float>>,
                                                outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        let header = segment.header.pointee
        let frames = min(Int(header.frames), segment.maximumFrames)
        for index in 0..<segment.parameterCount {
            let ramp = segment.ramps[index]
            ramps[index] = ParameterRamp(start: ramp.start, step: ramp.step, rampFrames: Int(ramp.ramp_frames), end: ramp.end)
        }
        let events = min(Int(header.midi_count), Int(IAA_ISOLATION_MIDI_CAPACITY))
        for index in 0..<events {
            let event = segment.midi[index]
            midi[index] = MIDIEvent(frame: Int32(clamping: event.frame), status: event.data.0, data1: event.data.1,
                                    data2: event.data.2, size: event.size)
        }
        let t = header.transport
        node.process(ProcessContext(
            frames: frames, sampleRate: header.sample_rate, sampleTime: header.sample_time,
            inputs: AudioInputs(base: inputs, count: segment.inputCount, frames: frames),
            outputs: AudioOutputs(base: outputs, count: segment.outputCount, frames: frames),
            parameters: ParameterRamps(base: ramps, count: segment.parameterCount),
            midi: MIDIEvents(base: midi, count: events),
            transport: HostTransport(isPlaying: t.playing != 0, isRecording: t.recording != 0, tempo: t.tempo,
                                     beatsPerBar: t.beats_per_bar, beat: t.beat, bar: Int(t.bar), beatInBar: t.beat_in_bar,
                                     sampleTime: t.sample_time),
            transportRequests: TransportRequestCell(cell: UnsafePointer(transportCell)),
            latency: LatencyReport(cell: UnsafeRawPointer(segment.latency).assumingMemoryBound(to: Atomic<UInt32>.self))))
        let asked = transportCell.pointee.exchange(0, ordering: .relaxed)
        if asked != 0 { iaa_isolation_store(segment.transportRequest, UInt32(asked)) }
    }
}
