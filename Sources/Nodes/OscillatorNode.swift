import RenderCore
import CKernels
import NodeKit

/// A sine oscillator whose frequency and amplitude follow their smoothed ramps.
///
/// The phase is kept in cycles as a `Double` and reduced to [−½, ½] once per cycle, so it
/// neither drifts nor loses precision however long the engine runs.
public final class OscillatorNode: SteadyCycleNode {
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

    /// The phase (where the next frame starts, in cycles within [−½, ½]), the increment and
    /// amplitude of the last steady cycle and each lane's phase offset within a block of sixteen
    /// (in half cycles), as CKernels' steady cycle reads and advances them. The offsets are kept
    /// between cycles because recomputing them (sixteen `Double` reductions) cost as much as a
    /// whole block at short cycle lengths.
    private let state: UnsafeMutablePointer<iaa_oscillator>

    public init() {
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_oscillator())
        state.pointee.increment = .nan
    }

    deinit {
        state.deallocate()
    }

    public var steadyCycle: SteadyCycle {
        SteadyCycle(function: iaa_kernels().pointee.oscillator_cycle, state: UnsafeMutableRawPointer(state))
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

        if frequency.isSteady {
            let increment = Double(frequency.end) * cyclesPerHertz
            if increment != state.pointee.increment {
                withUnsafeMutableBytes(of: &state.pointee.offsets) { bytes in
                    let offsets = bytes.bindMemory(to: Float.self)
                    for lane in 0..<16 { offsets[lane] = Float(2 * cycleFraction(Double(lane) * increment)) }
                }
                state.pointee.increment = increment
            }
            // The steady cycle (CKernels' `oscillator_cycle`: the `sine` kernel, AVX2+FMA when the
            // CPU has it, then the phase advanced) evaluates the eight-lane polynomial of
            // `sine(halfCycles:)`, sixteen frames per block. Each block's phase comes from the
            // cycle's start in `Double` (no drift, no serial dependency between blocks) and is
            // reduced to [−½, ½] cycle before it becomes a `Float`; each lane adds its offset,
            // also reduced, so every lane's phase lies within [−1, 1] cycle, where a `Float`
            // resolves 6e-8 cycles. A steady amplitude goes into the polynomial's coefficients;
            // a ramp multiplies afterwards. The last kernel to write the output reports its
            // finiteness check. At a steady amplitude this is the call a settled cycle makes.
            state.pointee.scale = amplitude.isSteady ? amplitude.end : 1
            let check = steadyCycle(context)
            if amplitude.isSteady {
                context.outputCheck.report(check)
            } else {
                context.outputCheck.report(iaa_kernels().pointee.scale_ramp(
                    output, output, frames, amplitude.start, amplitude.step, amplitude.rampFrames, amplitude.end))
            }
        } else {
            var current = state.pointee.phase
            for frame in 0..<frames {
                output[frame] = amplitude[frame] * Float(iaa_sine_cycles(current))
                current += Double(frequency[frame]) * cyclesPerHertz
            }
            state.pointee.phase = cycleFraction(current)
        }
    }

    public func reset() {
        state.pointee.phase = 0
    }
}
