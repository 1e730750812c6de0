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
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out", "Output")]) },
        make: { _ in OscillatorNode() }
    )

    /// Where the next frame starts, in cycles, within [−½, ½].
    private var phase: Double = 0
    /// Each lane's phase offset within a block of sixteen (lanes 0…7, 8…15), in half cycles, for
    /// `laneIncrement`: kept between cycles because recomputing it (sixteen `Double` reductions)
    /// cost as much as a whole block at short cycle lengths.
    private var laneOffsets = (SIMD8<Float>(), SIMD8<Float>())
    private var laneIncrement: Double = .nan

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

        if frequency.isSteady {
            let increment = Double(frequency.end) * cyclesPerHertz
            if increment != laneIncrement {
                var low = SIMD8<Float>(), high = SIMD8<Float>()
                for lane in 0..<8 {
                    low[lane] = Float(2 * cycleFraction(Double(lane) * increment))
                    high[lane] = Float(2 * cycleFraction(Double(lane + 8) * increment))
                }
                laneOffsets = (low, high)
                laneIncrement = increment
            }
            Self.renderSteady(into: output, frames: frames, start: start, increment: increment,
                              offsets: laneOffsets, amplitude: amplitude)
            phase = cycleFraction(start + Double(frames) * increment)
        } else {
            var current = start
            for frame in 0..<frames {
                output[frame] = amplitude[frame] * Float(sine(cycles: current))
                current += Double(frequency[frame]) * cyclesPerHertz
            }
            phase = cycleFraction(current)
        }
    }

    /// A steady frequency, sixteen frames at a time in `Float`.
    ///
    /// Each block's phase comes from the cycle's start in `Double` (no drift, no serial
    /// dependency between blocks) and is reduced to [−½, ½] cycle before it becomes a `Float`;
    /// each lane adds its `offsets`, also reduced, so every lane's phase lies within [−1, 1]
    /// cycle, where a `Float` resolves 6e-8 cycles (4e-7 radians). Phases are passed doubled, in
    /// the half cycles the kernel takes. Sixteen frames per `Double` reduction rather than eight:
    /// the reduction and the loop's bookkeeping were a fifth of the instructions per block.
    /// - Realtime: safe.
    @inline(__always)
    private static func renderSteady(into output: UnsafeMutablePointer<Float>, frames: Int, start: Double,
                                     increment: Double, offsets: (SIMD8<Float>, SIMD8<Float>),
                                     amplitude: ParameterRamp) {
        // A steady amplitude goes into the polynomial's coefficients; a ramp multiplies after.
        let scale = amplitude.isSteady ? amplitude.end : 1
        var frame = 0
        while frame < frames {
            let blockStart = Float(2 * cycleFraction(start + Double(frame) * increment))
            let low = scaled(sine(halfCycles: offsets.0 + blockStart, scale: scale), from: frame, by: amplitude)
            if frames - frame >= 16 {
                let high = scaled(sine(halfCycles: offsets.1 + blockStart, scale: scale), from: frame + 8, by: amplitude)
                // storeBytes does not need alignment (SE-0349): unaligned vector stores.
                UnsafeMutableRawPointer(output + frame).storeBytes(of: low, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(output + frame + 8).storeBytes(of: high, as: SIMD8<Float>.self)
            } else {
                store(low, into: output + frame, count: frames - frame)
                if frames - frame > 8 {
                    let high = scaled(sine(halfCycles: offsets.1 + blockStart, scale: scale), from: frame + 8,
                                      by: amplitude)
                    store(high, into: output + frame + 8, count: frames - frame - 8)
                }
            }
            frame += 16
        }
    }

    /// `samples` (frames `first`…`first` + 7) times a ramping amplitude's value at each frame; a
    /// steady amplitude is already in the samples.
    /// - Realtime: safe.
    @inline(__always)
    private static func scaled(_ samples: SIMD8<Float>, from first: Int, by amplitude: ParameterRamp) -> SIMD8<Float> {
        if amplitude.isSteady { return samples }
        // ParameterRamp's subscript, per lane.
        let index = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(first)
        let ramped = amplitude.start + amplitude.step * index
        return samples * ramped.replacing(with: amplitude.end, where: index .>= Float(amplitude.rampFrames))
    }

    /// Writes the first `count` (at most 8) lanes of `samples`.
    /// - Realtime: safe.
    @inline(__always)
    private static func store(_ samples: SIMD8<Float>, into output: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 8 {
            UnsafeMutableRawPointer(output).storeBytes(of: samples, as: SIMD8<Float>.self)
        } else {
            for lane in 0..<count { output[lane] = samples[lane] }
        }
    }

    public func reset() {
        phase = 0
    }
}
