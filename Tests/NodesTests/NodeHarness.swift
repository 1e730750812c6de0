import NodeKit

/// Drives one node by hand, the way the engine would: owns its buffers and ramps, builds a
/// `ProcessContext` per cycle, and collects what the node wrote.
///
/// Outputs are filled with NaN before every cycle, so a frame the node forgot to write shows
/// up as NaN in the result.
final class NodeHarness {
    let node: any AudioNode
    let layout: NodeLayout
    let frames: Int
    let sampleRate: Double
    /// The value of input `port` at absolute frame `frame`; silence unless a test sets it.
    var input: (_ port: Int, _ frame: Int) -> Float = { _, _ in 0 }
    private(set) var sampleTime: Int64 = 0
    /// The host transport the next cycle sees. While it plays, each cycle advances its beat,
    /// bar and sample time by the cycle's length at its tempo, as a host's transport would.
    var transport = HostTransport.stopped
    /// MIDI messages waiting for their cycle, with absolute frames.
    private var pendingMIDI: [(frame: Int, event: MIDIEvent)] = []

    private let inputBuffers: [UnsafeMutablePointer<Float>]
    private let outputBuffers: [UnsafeMutablePointer<Float>]
    private let inputTable: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let ramps: UnsafeMutablePointer<ParameterRamp>
    private let parameterCount: Int
    /// Per parameter: the engine's ramp schedule, or nil to hold the ramp set by `setParameter`.
    private var schedules: [RampSchedule?]

    /// Creates the node from `type`, with every parameter at its default.
    /// `inPlace` makes the first input read the first output's buffer, as an engine that
    /// reuses buffers would.
    init(_ type: NodeType, configuration: NodeConfiguration = NodeConfiguration(),
         frames: Int = 256, sampleRate: Double = 48_000, inPlace: Bool = false) throws {
        node = try type.makeNode(configuration)
        layout = type.layout(configuration)
        self.frames = frames
        self.sampleRate = sampleRate
        outputBuffers = layout.outputs.map { _ in .allocate(capacity: frames) }
        inputBuffers = layout.inputs.map { _ in .allocate(capacity: frames) }
        inputTable = .allocate(capacity: max(layout.inputs.count, 1))
        outputTable = .allocate(capacity: max(layout.outputs.count, 1))
        for (index, buffer) in inputBuffers.enumerated() {
            let shared = inPlace && index == 0 && !outputBuffers.isEmpty
            inputTable[index] = UnsafePointer(shared ? outputBuffers[0] : buffer)
        }
        for (index, buffer) in outputBuffers.enumerated() {
            outputTable[index] = buffer
        }
        parameterCount = type.parameters.count
        ramps = .allocate(capacity: max(parameterCount, 1))
        for (index, spec) in type.parameters.enumerated() {
            ramps[index] = .constant(spec.defaultValue)
        }
        schedules = Array(repeating: nil, count: parameterCount)
        node.prepare(sampleRate: sampleRate, maximumFrames: frames)
    }

    deinit {
        inputBuffers.forEach { $0.deallocate() }
        outputBuffers.forEach { $0.deallocate() }
        inputTable.deallocate()
        outputTable.deallocate()
        ramps.deallocate()
    }

    /// Holds parameter `index` at `ramp` for every following cycle.
    func setParameter(_ index: Int, _ ramp: ParameterRamp) {
        ramps[index] = ramp
        schedules[index] = nil
    }

    /// Moves parameter `index` linearly from `from` to `to` over `rampFrames` frames, cut into
    /// per-cycle ramps exactly as the engine's smoother cuts them.
    func rampParameter(_ index: Int, from: Float, to: Float, over rampFrames: Int) {
        schedules[index] = RampSchedule(current: from, target: to,
                                        step: (to - from) / Float(rampFrames), remaining: rampFrames)
    }

    /// Queues `event` for absolute frame `frame`; the cycle holding that frame delivers it with
    /// its offset within the cycle, in frame order.
    func send(_ event: MIDIEvent, at frame: Int) {
        pendingMIDI.append((frame, event))
    }

    /// Moves the transport to `beat`, keeping bar and beat-in-bar consistent.
    func locate(beat: Double) {
        transport.beat = beat
        let bar = (beat / transport.beatsPerBar).rounded(.down)
        transport.bar = Int(bar) + 1
        transport.beatInBar = beat - bar * transport.beatsPerBar
    }

    /// Renders one cycle and returns what each output holds.
    @discardableResult
    func cycle() -> [[Float]] {
        let start = Int(sampleTime)
        for buffer in outputBuffers {
            buffer.update(repeating: .nan, count: frames)
        }
        for port in layout.inputs.indices {
            let buffer = UnsafeMutablePointer(mutating: inputTable[port])
            for frame in 0..<frames {
                buffer[frame] = input(port, start + frame)
            }
        }
        for index in 0..<parameterCount {
            if var schedule = schedules[index] {
                ramps[index] = schedule.advance(frames: frames)
                schedules[index] = schedule
            }
        }
        let end = start + frames
        let due = pendingMIDI.filter { $0.frame >= start && $0.frame < end }
        pendingMIDI.removeAll { $0.frame >= start && $0.frame < end }
        let events = due.enumerated()
            .sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }
            .map { item in
                var event = item.element.event
                event.frame = Int32(item.element.frame - start)
                return event
            }
        events.withUnsafeBufferPointer { midi in
            let context = ProcessContext(
                frames: frames, sampleRate: sampleRate, sampleTime: sampleTime,
                inputs: AudioInputs(base: inputTable, count: layout.inputs.count, frames: frames),
                outputs: AudioOutputs(base: outputTable, count: layout.outputs.count, frames: frames),
                parameters: ParameterRamps(base: ramps, count: parameterCount),
                midi: MIDIEvents(base: midi.baseAddress, count: midi.count),
                transport: transport
            )
            node.process(context)
        }
        sampleTime += Int64(frames)
        if transport.isPlaying {
            locate(beat: transport.beat + Double(frames) * transport.tempo / (60 * sampleRate))
            transport.sampleTime += Int64(frames)
        }
        return outputBuffers.map { Array(UnsafeBufferPointer(start: $0, count: frames)) }
    }

    /// Renders `cycles` cycles and returns each output's samples end to end.
    func render(cycles: Int) -> [[Float]] {
        var result = Array(repeating: [Float](), count: layout.outputs.count)
        for _ in 0..<cycles {
            for (port, samples) in cycle().enumerated() {
                result[port] += samples
            }
        }
        return result
    }

    /// Renders at least `seconds` of audio, in whole cycles, and returns output 0.
    func renderFirstOutput(seconds: Double) -> [Float] {
        let cycles = Int((seconds * sampleRate / Double(frames)).rounded(.up))
        return render(cycles: cycles)[0]
    }
}

/// The engine's per-cycle cutting of a linear ramp (mirrors AudioGraph's ParameterSmoother).
private struct RampSchedule {
    var current: Float
    let target: Float
    let step: Float
    var remaining: Int

    mutating func advance(frames: Int) -> ParameterRamp {
        if remaining == 0 { return .constant(current) }
        let start = current
        if remaining <= frames {
            current = target
            defer { remaining = 0 }
            return ParameterRamp(start: start, step: step, rampFrames: remaining, end: target)
        }
        let end = start + step * Float(frames)
        current = end
        remaining -= frames
        return ParameterRamp(start: start, step: step, rampFrames: frames, end: end)
    }
}
