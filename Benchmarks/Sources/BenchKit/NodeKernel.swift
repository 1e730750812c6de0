import AudioGraph
import RenderCore
import NodeKit
import Nodes

/// One built-in node driven by hand, to time its DSP alone: no plan, no parameter smoothing, no
/// NaN guard; by its `process` (as a changing cycle calls it) or by its steady cycle (as a settled
/// one does). The difference from the engine's per-voice time is what the engine adds around them.
public final class NodeKernel {
    public let frames: Int
    private let node: any AudioNode
    private let layout: NodeLayout
    private let buffers: [UnsafeMutablePointer<Float>]
    private let inputTable: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let ramps: UnsafeMutablePointer<ParameterRamp>
    private let parameterCount: Int
    private let steady: SteadyCycle?
    /// The transport every cycle sees (builtin:delay reads its tempo).
    public var transport = HostTransport(isPlaying: true, tempo: 120)

    /// `parameters` by name hold steady; every input reads a 440 Hz sine of amplitude 0.5.
    public init(_ type: NodeType, configuration: NodeConfiguration = NodeConfiguration(),
                parameters: [String: Float] = [:], frames: Int) throws {
        self.frames = frames
        node = try type.makeNode(configuration)
        layout = type.layout(configuration)
        node.prepare(sampleRate: sampleRate, maximumFrames: frames)
        let inputCount = layout.inputs.count, outputCount = layout.outputs.count
        buffers = (0..<(inputCount + outputCount)).map { _ in .allocate(capacity: frames) }
        inputTable = .allocate(capacity: max(inputCount, 1))
        outputTable = .allocate(capacity: max(outputCount, 1))
        for index in 0..<inputCount {
            for frame in 0..<frames {
                buffers[index][frame] = Float(0.5 * Self.sin440(frame))
            }
            inputTable[index] = UnsafePointer(buffers[index])
        }
        for index in 0..<outputCount { outputTable[index] = buffers[inputCount + index] }
        parameterCount = type.parameters.count
        ramps = .allocate(capacity: max(parameterCount, 1))
        for (index, spec) in type.parameters.enumerated() {
            ramps[index] = .constant(parameters[spec.name] ?? spec.defaultValue)
        }
        steady = (node as? any SteadyCycleNode)?.steadyCycle
        if steady != nil { cycle() }
    }

    deinit {
        buffers.forEach { $0.deallocate() }
        inputTable.deallocate()
        outputTable.deallocate()
        ramps.deallocate()
    }

    /// The benchmark voice's nodes (parameters as voice 0 of `GraphGenerator`) and a full mixer.
    public static func voiceNodes(frames: Int) -> [(name: String, kernel: NodeKernel)] {
        let v = GraphGenerator.voice(0)
        let table: [(String, NodeType, NodeConfiguration, [String: Float])] = [
            ("builtin:oscillator", OscillatorNode.nodeType, NodeConfiguration(),
             ["frequency": v.frequency, "amplitude": v.amplitude]),
            ("builtin:gain", GainNode.nodeType, NodeConfiguration(), ["gain": v.gain]),
            ("builtin:lowpass", LowpassNode.nodeType, NodeConfiguration(), ["cutoff": v.cutoff]),
            ("builtin:mixer (64 inputs)", MixerNode.nodeType, NodeConfiguration(["inputs": 64]), [:]),
        ]
        return table.map { name, type, configuration, parameters in
            do {
                return (name, try NodeKernel(type, configuration: configuration, parameters: parameters, frames: frames))
            } catch {
                fatalError("cannot make \(name): \(error)")
            }
        }
    }

    /// One cycle of the node, with `midi` for its MIDI input.
    @inline(__always)
    public func cycle(midi: MIDIEvents = .none) {
        node.process(ProcessContext(
            frames: frames, sampleRate: sampleRate, sampleTime: 0,
            inputs: AudioInputs(base: inputTable, count: layout.inputs.count, frames: frames),
            outputs: AudioOutputs(base: outputTable, count: layout.outputs.count, frames: frames),
            parameters: ParameterRamps(base: ramps, count: parameterCount), midi: midi, transport: transport))
    }

    /// One cycle by the node's steady cycle, the C call the renderer makes while the node's app
    /// is settled (only for a `SteadyCycleNode`). The first `cycle()` at these parameters readies
    /// its state: `init` runs one.
    @inline(__always)
    public func steadyCycle() {
        _ = steady.unsafelyUnwrapped(inputs: inputTable, outputs: outputTable, frames: frames)
    }

    /// sin(2π·440·frame/48 kHz) by the Taylor series, so BenchKit needs no Foundation here.
    private static func sin440(_ frame: Int) -> Double {
        var x = 440.0 * Double(frame) / sampleRate
        x -= x.rounded()
        let t = 2 * Double.pi * x
        var term = t, sum = t
        for n in stride(from: 3, through: 21, by: 2) {
            term *= -t * t / Double((n - 1) * n)
            sum += term
        }
        return sum
    }
}
