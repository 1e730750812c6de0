import RenderCore
import CKernels
import NodeKit

/// A resonant lowpass, highpass or bandpass filter: a two-pole TPT state-variable filter.
///
/// `resonance` 0…1 maps linearly onto the damping k = 1/Q from √2 (Q ≈ 0.707, Butterworth: no
/// peak, −3 dB at the cutoff, −12 dB per octave beyond it) down to 0.05 (Q = 20). Coefficients
/// are computed once per cycle while `cutoff` and `resonance` are steady, and every frame while
/// either ramps. `mode` is discrete and switches at the cycle boundary, keeping the filter's state.
public final class FilterNode: SteadyCycleNode {
    /// Indices into `ProcessContext.parameters`, in the order of ``nodeType``'s parameters.
    enum Parameter {
        static let cutoff = 0
        static let resonance = 1
        static let mode = 2
    }

    /// Plain `Float`s, so the audio thread's fallbacks never touch a spec holding `String`s.
    static let defaultCutoff: Float = 1_000
    static let defaultResonance: Float = 0
    static let defaultMode: Float = 0

    /// The damping at resonance 0 and at resonance 1.
    static let widestDamping = 2.0.squareRoot()
    static let narrowestDamping = 0.05

    static let parameterSpecs = [
        ParameterSpec(name: "cutoff", displayName: "Cutoff", range: 20...20_000, defaultValue: defaultCutoff, unit: .hertz),
        ParameterSpec(name: "resonance", displayName: "Resonance", range: 0...1, defaultValue: defaultResonance),
        ParameterSpec(name: "mode", displayName: "Mode (0 lowpass, 1 highpass, 2 bandpass)", range: 0...2,
                      defaultValue: defaultMode, isDiscrete: true),
    ]

    /// `builtin:filter`: effect `aurx/filt/iaas`, input `in`, output `out`.
    public static let nodeType = NodeType(
        id: "builtin:filter",
        displayName: "Filter",
        summary: "A resonant two-pole lowpass, highpass or bandpass filter.",
        parameters: parameterSpecs,
        component: ComponentDescription(type: .effect, subtype: "filt", manufacturer: "iaas", name: "Filter"),
        layout: { _ in .monoEffect },
        make: { _ in FilterNode() }
    )

    private let filter = StateVariableFilter()
    private var sampleRate: Double = 48_000

    public init() {}

    deinit {
        filter.deallocate()
    }

    public var steadyCycle: SteadyCycle {
        SteadyCycle(function: iaa_kernels().pointee.svf_cycle, state: filter.statePointer)
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        reset()
    }

    public func reset() {
        filter.reset()
    }

    /// k = 1/Q for `resonance` (clamped to 0…1).
    /// - Realtime: safe.
    @inline(__always)
    static func damping(resonance: Float) -> Double {
        let amount = Double(min(max(resonance, 0), 1))
        return widestDamping + (narrowestDamping - widestDamping) * amount
    }

    /// - Realtime: safe. The output may be the input's own buffer.
    public func process(_ context: ProcessContext) {
        guard let (input, output) = context.monoEffectBuffers() else { return }
        let frames = context.frames
        let parameters = context.parameters
        let cutoff = parameters.count > Parameter.cutoff ? parameters[Parameter.cutoff] : .constant(Self.defaultCutoff)
        let resonance = parameters.count > Parameter.resonance
            ? parameters[Parameter.resonance] : .constant(Self.defaultResonance)
        let modeValue = parameters.count > Parameter.mode ? parameters[Parameter.mode].end : Self.defaultMode
        let mode = StateVariableFilter.Mode(rawValue: Int(min(max(modeValue, 0), 2).rounded())) ?? .lowpass

        if cutoff.isSteady && resonance.isSteady {
            let coefficients = StateVariableFilter.Coefficients(
                cutoff: Double(cutoff.end), damping: Self.damping(resonance: resonance.end), sampleRate: sampleRate)
            // The call a settled cycle makes (CKernels' `svf`, AVX2+FMA when the CPU has it, then
            // its finiteness check).
            filter.setSteady(coefficients, mode: mode)
            context.outputCheck.report(steadyCycle(context))
        } else {
            for frame in 0..<frames {
                let coefficients = StateVariableFilter.Coefficients(
                    cutoff: Double(cutoff[frame]), damping: Self.damping(resonance: resonance[frame]),
                    sampleRate: sampleRate)
                output[frame] = filter.process(input[frame], coefficients, mode: mode)
            }
        }
    }
}
