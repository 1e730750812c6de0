import NodeKit

/// White noise, uniform in [−amplitude, amplitude], from a seeded xorshift generator.
///
/// The same `seed` gives the same samples, so renders that use noise stay reproducible.
/// Xorshift32 costs three shifts and three xors per sample and never yields 0, so the samples
/// are the nonzero 32-bit integers scaled to [−1, 1).
public final class NoiseNode: AudioNode {
    enum Parameter {
        static let amplitude = 0
    }

    /// A plain `Float`, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultAmplitude: Float = 0.25

    static let amplitudeSpec = ParameterSpec(name: "amplitude", displayName: "Amplitude", range: 0...1,
                                             defaultValue: defaultAmplitude, unit: .linearGain)
    static let seedSpec = ConfigurationSpec(name: "seed", displayName: "Seed",
                                            range: 0...2_147_483_647, defaultValue: 1)

    /// `builtin:noise`: one output, an `amplitude` parameter and a `seed` configuration.
    public static let nodeType = NodeType(
        id: "builtin:noise",
        displayName: "Noise",
        summary: "A white noise generator; the same seed gives the same samples.",
        parameters: [amplitudeSpec],
        configuration: [seedSpec],
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out", "Output")]) },
        make: { configuration in
            NoiseNode(seed: configuration.value(seedSpec.name, default: seedSpec.defaultValue))
        }
    )

    /// The seed this node was created with; ``reset()`` restarts its sequence.
    public let seed: Int
    private var state: UInt32

    public init(seed: Int = 1) {
        self.seed = seed
        self.state = Self.initialState(seed: seed)
    }

    /// - Realtime: safe.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let amplitude = context.parameters.count > Parameter.amplitude
            ? context.parameters[Parameter.amplitude] : .constant(Self.defaultAmplitude)
        let frames = context.frames
        let scale: Float = 1.0 / 2_147_483_648
        var x = state

        if amplitude.isSteady {
            let gain = amplitude.end * scale
            for frame in 0..<frames {
                x ^= x << 13
                x ^= x >> 17
                x ^= x << 5
                output[frame] = Float(Int32(bitPattern: x)) * gain
            }
        } else {
            for frame in 0..<frames {
                x ^= x << 13
                x ^= x >> 17
                x ^= x << 5
                output[frame] = Float(Int32(bitPattern: x)) * scale * amplitude[frame]
            }
        }
        state = x
    }

    public func reset() {
        state = Self.initialState(seed: seed)
    }

    /// Spreads `seed` with SplitMix64's finalizer, so neighbouring seeds start far apart
    /// instead of producing visibly related first samples; xorshift's one forbidden state,
    /// 0, is replaced.
    private static func initialState(seed: Int) -> UInt32 {
        var z = UInt64(truncatingIfNeeded: seed) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let folded = UInt32(truncatingIfNeeded: z >> 32)
        return folded == 0 ? 0x9E37_79B9 : folded
    }
}
