import NodeKit

/// A sine generator with a smoothed frequency and level: the smallest useful Inter-App Audio
/// generator (`aurg`), with no inputs.
public final class SineGenerator: AudioNode {
    enum Parameter {
        static let frequency = 0
        static let level = 1
    }

    /// What the plugin publishes: ports, parameters and its component codes.
    public static let description = PluginNodeDescription(
        id: "sine",
        name: "Sine Generator",
        summary: "A sine wave at a smoothed frequency and level.",
        component: ComponentDescription(type: .generator, subtype: "sine", manufacturer: "demo", name: "Demo: Sine"),
        layout: NodeLayout(inputs: [], outputs: [.output("out", "Output")]),
        parameters: [
            ParameterSpec(name: "frequency", displayName: "Frequency", range: 20...20_000, defaultValue: 220, unit: .hertz),
            ParameterSpec(name: "level", displayName: "Level", range: 0...1, defaultValue: 0.25, unit: .linearGain),
        ])

    private var phase: Double = 0
    private var sampleRate: Double

    /// Created by the engine through the plugin's `create`, with its sample rate.
    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
    }

    public func reset() {
        phase = 0
    }

    /// - Realtime: safe.
    public func process(_ context: ProcessContext) {
        let output = context.outputs[0]
        let frequency = context.parameters[Parameter.frequency]
        let level = context.parameters[Parameter.level]
        let step = 1 / sampleRate
        for frame in 0..<context.frames {
            output[frame] = level[frame] * Float(Sine.value(cycles: phase))
            phase += Double(frequency[frame]) * step
            if phase >= 1 { phase -= 1 }
        }
    }
}

/// sin(2π·cycles) by a Taylor polynomial on the folded quarter: within 1e-4, no libm call.
enum Sine {
    @inline(__always) static func value(cycles: Double) -> Double {
        var x = cycles - (cycles + 0.5).rounded(.down)  // −0.5…0.5
        if x > 0.25 { x = 0.5 - x } else if x < -0.25 { x = -0.5 - x }
        let t = x * 2 * Double.pi
        let t2 = t * t
        return t * (1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42)))
    }
}

/// The reason `create` fails: a rate the generator cannot run at.
struct UnsupportedRate: Error, CustomStringConvertible {
    let sampleRate: Double
    var description: String { "sample rate \(sampleRate) Hz is below 8000 Hz" }
}
