import Foundation
import NodeKit
import PluginHost
import Testing

/// Runs one LV2 or LADSPA node by hand, the way the engine does: the node type comes from the
/// plugin resolver, buffers and ramps are owned here, and MIDI is passed per cycle.
final class FormatHarness {
    let type: NodeType
    let node: any AudioNode
    let frames: Int
    let sampleRate: Double
    private let inputs: [UnsafeMutablePointer<Float>]
    private let outputs: [UnsafeMutablePointer<Float>]
    private let inputTable: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let ramps: UnsafeMutablePointer<ParameterRamp>
    private var sampleTime: Int64 = 0

    /// Resolves `plugin` (`lv2:…`, `ladspa:…`) and creates one node with every parameter at its
    /// default, restoring `state` (an app's `pluginState`) when given.
    init(_ plugin: String, state: String? = nil, frames: Int = 256, sampleRate: Double = 48_000) throws {
        type = try PluginResolver(searchPath: []).resolve(plugin, graphDirectory: ".").get()
        node = try type.makeNode(NodeConfiguration(state: state))
        self.frames = frames
        self.sampleRate = sampleRate
        let layout = type.layout(NodeConfiguration())
        inputs = layout.inputs.map { _ in .allocate(capacity: frames) }
        outputs = layout.outputs.map { _ in .allocate(capacity: frames) }
        inputTable = .allocate(capacity: max(inputs.count, 1))
        outputTable = .allocate(capacity: max(outputs.count, 1))
        for (index, buffer) in inputs.enumerated() { inputTable[index] = UnsafePointer(buffer) }
        for (index, buffer) in outputs.enumerated() { outputTable[index] = buffer }
        ramps = .allocate(capacity: max(type.parameters.count, 1))
        for (index, spec) in type.parameters.enumerated() { ramps[index] = .constant(spec.defaultValue) }
        node.prepare(sampleRate: sampleRate, maximumFrames: frames)
    }

    deinit {
        inputs.forEach { $0.deallocate() }
        outputs.forEach { $0.deallocate() }
        inputTable.deallocate()
        outputTable.deallocate()
        ramps.deallocate()
    }

    /// Holds parameter `name` at `value` from the next cycle on.
    func set(_ name: String, _ value: Float) throws {
        let index = try #require(type.parameterIndex(name), "no parameter \(name) in \(type.parameters.map(\.name))")
        ramps[index] = .constant(value)
    }

    /// Renders `total` frames with input 0 reading `input(frame)`, MIDI `midi` at absolute
    /// frames; returns output `port`.
    func render(_ total: Int, port: Int = 0, midi: [(frame: Int, event: MIDIEvent)] = [],
                input: (Int) -> Float = { _ in 0 }) -> [Float] {
        var result: [Float] = []
        while result.count < total {
            let start = Int(sampleTime)
            for buffer in inputs {
                for frame in 0..<frames { buffer[frame] = input(start + frame) }
            }
            let due = midi.filter { $0.frame >= start && $0.frame < start + frames }.map { item in
                var event = item.event
                event.frame = Int32(item.frame - start)
                return event
            }
            due.withUnsafeBufferPointer { events in
                node.process(ProcessContext(
                    frames: frames, sampleRate: sampleRate, sampleTime: sampleTime,
                    inputs: AudioInputs(base: inputTable, count: inputs.count, frames: frames),
                    outputs: AudioOutputs(base: outputTable, count: outputs.count, frames: frames),
                    parameters: ParameterRamps(base: ramps, count: type.parameters.count),
                    midi: MIDIEvents(base: events.baseAddress, count: events.count)))
            }
            result += UnsafeBufferPointer(start: outputs[port], count: frames)
            sampleTime += Int64(frames)
        }
        return Array(result.prefix(total))
    }

    /// A sine of `frequency` Hz and amplitude `amplitude` at absolute frame `frame`.
    func sine(_ frequency: Double, amplitude: Float = 0.5) -> (Int) -> Float {
        let rate = sampleRate
        return { frame in amplitude * Float(sin(2 * .pi * frequency * Double(frame) / rate)) }
    }
}
