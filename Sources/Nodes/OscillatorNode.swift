import NodeKit

/// A sine oscillator whose frequency and amplitude follow their smoothed ramps.
///
/// The phase is kept in cycles as a `Double` and wrapped into [0, 1) once per cycle, so it
/// neither drifts nor loses precision however long the engine runs.
public final class OscillatorNode: AudioNode {
    /// Indices into `ProcessContext.parameters`, in the order of ``nodeType``'s parameters.
    enum Parameter {
        static let frequency = 0
        static let amplitude = 1
    }

    /// Plain `Float`s, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultFrequency: Float = 440
    static let defaultAmplitude: Float = 0.5

    static let frequencySpec = ParameterSpec(name: "frequency", displayName: "Frequency", range: 0.01...20_000,
                                             defaultValue: defaultFrequency, unit: .hertz)
    static let amplitudeSpec = ParameterSpec(name: "amplitude", displayName: "Amplitude", range: 0...1,
                                             defaultValue: defaultAmplitude, unit: .linearGain)

    /// `builtin:oscillator`: one output, `frequency` and `amplitude` parameters.
    public static let nodeType = NodeType(
        id: "builtin:oscillator",
        displayName: "Oscillator",
        summary: "A sine wave generator with smoothed frequency and amplitude.",
        parameters: [frequencySpec, amplitudeSpec],
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out", "Output")]) },
        make: { _ in OscillatorNode() }
    )

    /// Where the next frame starts, in cycles, within [0, 1).
    private var phase: Double = 0

    public init() {}

    /// - Realtime: safe.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let frequency = context.parameters.count > Parameter.frequency
            ? context.parameters[Parameter.frequency] : .constant(Self.defaultFrequency)
        let amplitude = context.parameters.count > Parameter.amplitude
            ? context.parameters[Parameter.amplitude] : .constant(Self.defaultAmplitude)
        let frames = context.frames
        let cyclesPerHertz = 1 / context.sampleRate
        let start = phase

        if frequency.isSteady && amplitude.isSteady {
            // Each frame's phase from the cycle's start, not by accumulation: no serial
            // dependency between frames, so this loop vectorizes.
            let increment = Double(frequency.end) * cyclesPerHertz
            let gain = Double(amplitude.end)
            for frame in 0..<frames {
                output[frame] = Float(gain * sine(cycles: start + Double(frame) * increment))
            }
            phase = Self.wrapped(start + Double(frames) * increment)
        } else {
            var current = start
            for frame in 0..<frames {
                output[frame] = amplitude[frame] * Float(sine(cycles: current))
                current += Double(frequency[frame]) * cyclesPerHertz
            }
            phase = Self.wrapped(current)
        }
    }

    public func reset() {
        phase = 0
    }

    /// `cycles` reduced to [0, 1).
    @inline(__always)
    private static func wrapped(_ cycles: Double) -> Double {
        cycles - cycles.rounded(.down)
    }
}
