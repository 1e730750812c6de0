import IAAPluginABI
import Synchronization

/// Makes instances of one exported node type; the descriptor's `user_data` points at it.
class ExportedFactory {
    func make(sampleRate: Double, maximumFrames: Int) throws -> ExportedInstance {
        fatalError("ExportedFactory is abstract")
    }
}

final class TypedFactory<Node: AudioNode>: ExportedFactory {
    let makeNode: @Sendable (Double, Int) throws -> Node
    let parameterCount: Int

    init(make: @escaping @Sendable (Double, Int) throws -> Node, parameterCount: Int) {
        makeNode = make
        self.parameterCount = parameterCount
    }

    override func make(sampleRate: Double, maximumFrames: Int) throws -> ExportedInstance {
        let node = try makeNode(sampleRate, maximumFrames)
        node.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames)
        return TypedInstance(node: node, parameterCount: parameterCount)
    }
}

/// One instance as the C side holds it (an opaque pointer from `Unmanaged.passRetained`).
class ExportedInstance {
    /// - Realtime: safe.
    func process(_ context: UnsafePointer<iaa_process_context>) {}
    func reset() {}
}

/// The one concrete instance class per node type, so the call to `process` is direct and generic.
final class TypedInstance<Node: AudioNode>: ExportedInstance {
    /// The most MIDI events handed to the node per cycle; later ones in the cycle are dropped.
    static var midiCapacity: Int { 1024 }

    let node: Node
    let parameterCount: Int
    // Preallocated so a cycle only converts values in place.
    let ramps: UnsafeMutablePointer<ParameterRamp>
    let midi: UnsafeMutablePointer<MIDIEvent>
    /// A pointer table for a node without inputs or outputs (the C side may pass NULL).
    let emptyInputs: UnsafeMutablePointer<UnsafePointer<Float>>
    let emptyOutputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let silence: UnsafeMutablePointer<Float>

    init(node: Node, parameterCount: Int) {
        self.node = node
        self.parameterCount = parameterCount
        ramps = .allocate(capacity: max(parameterCount, 1))
        ramps.initialize(repeating: .constant(0), count: max(parameterCount, 1))
        midi = .allocate(capacity: Self.midiCapacity)
        midi.initialize(repeating: MIDIEvent(frame: 0, status: 0), count: Self.midiCapacity)
        silence = .allocate(capacity: 1)
        silence.initialize(to: 0)
        emptyInputs = .allocate(capacity: 1)
        emptyInputs.initialize(to: UnsafePointer(silence))
        emptyOutputs = .allocate(capacity: 1)
        emptyOutputs.initialize(to: silence)
    }

    deinit {
        ramps.deallocate()
        midi.deallocate()
        emptyInputs.deallocate()
        emptyOutputs.deallocate()
        silence.deallocate()
    }

    override func reset() { node.reset() }

    /// - Realtime: safe.
    override func process(_ context: UnsafePointer<iaa_process_context>) {
        let c = context.pointee
        let frames = Int(c.frames)
        let parameters = min(Int(c.parameter_count), parameterCount)
        if let given = c.parameters {
            for index in 0..<parameters {
                let ramp = given[index]
                ramps[index] = ParameterRamp(start: ramp.start, step: ramp.step, rampFrames: Int(ramp.ramp_frames), end: ramp.end)
            }
        }
        var events = 0
        if let given = c.midi {
            events = min(Int(c.midi_count), Self.midiCapacity)
            for index in 0..<events {
                let event = given[index]
                midi[index] = MIDIEvent(frame: Int32(clamping: event.frame), status: event.data.0,
                                        data1: event.data.1, data2: event.data.2, size: event.size)
            }
        }
        var transport = HostTransport.stopped
        if let host = c.transport?.pointee {
            transport = HostTransport(isPlaying: host.playing != 0, isRecording: host.recording != 0, tempo: host.tempo,
                                      beatsPerBar: host.beats_per_bar, beat: host.beat, bar: Int(host.bar),
                                      beatInBar: host.beat_in_bar, sampleTime: host.sample_time)
        }
        // `const float *const *` arrives as a table of optional pointers with the same layout.
        let inputs = c.inputs.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<Float>.self) }
        let outputs = c.outputs.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafeMutablePointer<Float>.self) }
        node.process(ProcessContext(
            frames: frames, sampleRate: c.sample_rate, sampleTime: c.sample_time,
            inputs: AudioInputs(base: inputs ?? UnsafePointer(emptyInputs), count: inputs == nil ? 0 : Int(c.input_count),
                                frames: frames),
            outputs: AudioOutputs(base: outputs ?? UnsafePointer(emptyOutputs), count: outputs == nil ? 0 : Int(c.output_count),
                                  frames: frames),
            parameters: ParameterRamps(base: UnsafePointer(ramps), count: parameters),
            midi: MIDIEvents(base: UnsafePointer(midi), count: events),
            transport: transport,
            latency: LatencyReport(cell: c.latency.map { UnsafeRawPointer($0).assumingMemoryBound(to: Atomic<UInt32>.self) })))
    }
}

/// The C functions every exported descriptor points to. None captures anything.
enum ExportThunks {
    static let create: @convention(c) (UnsafePointer<iaa_plugin_descriptor>?, Double, UInt32,
                                       UnsafeMutablePointer<CChar>?, Int) -> UnsafeMutableRawPointer? = {
        descriptor, sampleRate, maximumFrames, errorBuffer, errorSize in
        guard let data = descriptor?.pointee.user_data else { return nil }
        let factory = Unmanaged<ExportedFactory>.fromOpaque(data).takeUnretainedValue()
        do {
            let instance = try factory.make(sampleRate: sampleRate, maximumFrames: Int(maximumFrames))
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            write(String(describing: error), to: errorBuffer, size: errorSize)
            return nil
        }
    }

    static let process: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<iaa_process_context>?) -> Void = {
        instance, context in
        guard let instance, let context else { return }
        Unmanaged<ExportedInstance>.fromOpaque(instance)._withUnsafeGuaranteedRef { $0.process(context) }
    }

    static let reset: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<ExportedInstance>.fromOpaque(instance).takeUnretainedValue().reset()
    }

    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<ExportedInstance>.fromOpaque(instance).release()
    }

    /// Copies `message` into the plugin ABI's error buffer, cut to fit and NUL-terminated.
    static func write(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, size: Int) {
        guard let buffer, size > 0 else { return }
        var count = 0
        for byte in message.utf8 where count < size - 1 {
            buffer[count] = CChar(bitPattern: byte)
            count += 1
        }
        buffer[count] = 0
    }
}
