import CKernels
import NodeKit

/// A sine oscillator whose frequency and amplitude follow their smoothed ramps.
///
/// The phase is kept in cycles as a `Double` and reduced to [−½, ½] once per cycle, so it
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
        outputGain: "amplitude",
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out", "Output")]) },
        make: { _ in OscillatorNode() }
    )

    /// Where the next frame starts, in cycles, within [−½, ½].
    private var phase: Double = 0
    /// Each lane's phase offset within a block of sixteen, in half cycles, for `laneIncrement`:
    /// kept between cycles because recomputing it (sixteen `Double` reductions) cost as much as a
    /// whole block at short cycle lengths. Sixteen contiguous floats, as the sine kernel reads them.
    private let laneOffsets: UnsafeMutablePointer<Float>
    private var laneIncrement: Double = .nan

    public init() {
        laneOffsets = .allocate(capacity: 16)
        laneOffsets.initialize(repeating: 0, count: 16)
    }

    deinit {
        laneOffsets.deallocate()
    }

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

        if frequency.isSteady {
            let increment = Double(frequency.end) * cyclesPerHertz
            if increment != laneIncrement {
                for lane in 0..<16 { laneOffsets[lane] = Float(2 * cycleFraction(Double(lane) * increment)) }
                laneIncrement = increment
            }
            // The kernel (CKernels' `sine`, AVX2+FMA when the CPU has it) evaluates the eight-lane
            // polynomial of `sine(halfCycles:)`, sixteen frames per block. Each block's phase comes
            // from the cycle's start in `Double` (no drift, no serial dependency between blocks)
            // and is reduced to [−½, ½] cycle before it becomes a `Float`; each lane adds its
            // offset, also reduced, so every lane's phase lies within [−1, 1] cycle, where a
            // `Float` resolves 6e-8 cycles. A steady amplitude goes into the polynomial's
            // coefficients; a ramp multiplies afterwards.
            // The last kernel to write the output reports its finiteness check.
            let kernels = iaa_kernels().pointee
            let check = kernels.sine(output, frames, start, increment, laneOffsets, amplitude.isSteady ? amplitude.end : 1)
            if amplitude.isSteady {
                context.outputCheck.report(check)
            } else {
                context.outputCheck.report(kernels.scale_ramp(output, output, frames, amplitude.start, amplitude.step,
                                                              amplitude.rampFrames, amplitude.end))
            }
            phase = cycleFraction(start + Double(frames) * increment)
        } else {
            var current = start
            for frame in 0..<frames {
                output[frame] = amplitude[frame] * Float(iaa_sine_cycles(current))
                current += Double(frequency[frame]) * cyclesPerHertz
            }
            phase = cycleFraction(current)
        }
    }

    public func reset() {
        phase = 0
    }
}
