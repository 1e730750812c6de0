import NodeKit

/// A ring modulator: multiplies its input by a sine carrier, which moves every partial f of the
/// input to f − carrier and f + carrier. `mix` blends the dry input back in.
public final class RingModulator: AudioNode {
    enum Parameter {
        static let frequency = 0
        static let mix = 1
    }

    /// What the plugin publishes: ports, parameters and its component codes.
    public static let description = PluginNodeDescription(
        id: "ringmod",
        name: "Ring Modulator",
        summary: "Multiplies its input by a sine carrier (sidebands at f ± carrier).",
        component: ComponentDescription(type: .effect, subtype: "ring", manufacturer: "demo", name: "Demo: Ring Modulator"),
        layout: NodeLayout(inputs: [.input("in", "Input")], outputs: [.output("out", "Output")]),
        parameters: [
            ParameterSpec(name: "frequency", displayName: "Carrier", range: 1...5000, defaultValue: 440, unit: .hertz),
            ParameterSpec(name: "mix", displayName: "Mix", range: 0...1, defaultValue: 1),
        ])

    private var phase: Double = 0
    private var sampleRate: Double = 48_000

    public init() {}

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
    }

    public func reset() {
        phase = 0
    }

    /// - Realtime: safe. Plain arithmetic on pointers the engine prepared.
    public func process(_ context: ProcessContext) {
        let input = context.inputs[0]
        let output = context.outputs[0]
        let frequency = context.parameters[Parameter.frequency]
        let mix = context.parameters[Parameter.mix]
        let step = 1 / sampleRate
        for frame in 0..<context.frames {
            let carrier = Float(Sine.value(cycles: phase))
            let wet = mix[frame]
            let dry = input[frame]
            output[frame] = dry * (carrier * wet + (1 - wet))
            phase += Double(frequency[frame]) * step
            if phase >= 1 { phase -= 1 }
        }
    }
}

/// sin(2π·cycles) by a fifth-order polynomial per quarter: within 1e-4, no libm call.
enum Sine {
    @inline(__always) static func value(cycles: Double) -> Double {
        // Fold into −0.25…0.25 cycles, where sin is odd and monotonic.
        var x = cycles - (cycles + 0.5).rounded(.down)  // −0.5…0.5
        if x > 0.25 { x = 0.5 - x } else if x < -0.25 { x = -0.5 - x }
        let t = x * 2 * Double.pi
        let t2 = t * t
        return t * (1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42)))
    }
}
