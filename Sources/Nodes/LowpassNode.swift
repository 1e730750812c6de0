import RenderCore
import CKernels
import NodeKit

/// A one-pole lowpass: −3 dB at `cutoff`, −6 dB per octave above it, no resonance.
///
/// The gentle filter of a simple voice (oscillator → gain → one-pole), cheaper than
/// `builtin:filter`'s two poles. While the cutoff is steady the filter runs eight frames per
/// block (see ``OnePoleLowpass``); while it ramps, the coefficients follow it every frame.
public final class LowpassNode: SteadyCycleNode {
    enum Parameter {
        static let cutoff = 0
    }

    /// A plain `Float`, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultCutoff: Float = 1_000

    static let cutoffSpec = ParameterSpec(name: "cutoff", displayName: "Cutoff", range: 20...20_000,
                                          defaultValue: defaultCutoff, unit: .hertz)

    /// `builtin:lowpass`: effect `aurx/lpf1/iaas`, input `in`, output `out`, a `cutoff` parameter.
    public static let nodeType = NodeType(
        id: "builtin:lowpass",
        displayName: "Lowpass",
        summary: "A one-pole lowpass filter: −3 dB at the cutoff, −6 dB per octave above it.",
        parameters: [cutoffSpec],
        component: ComponentDescription(type: .effect, subtype: "lpf1", manufacturer: "iaas", name: "Lowpass"),
        layout: { _ in .monoEffect },
        make: { _ in LowpassNode() }
    )

    private let filter = OnePoleLowpass()
    private var sampleRate: Double = 48_000
    /// The cutoff the block weights were computed for; NaN forces the first computation.
    private var preparedCutoff: Float = .nan

    public init() {}

    deinit {
        filter.deallocate()
    }

    public var steadyCycle: SteadyCycle {
        SteadyCycle(function: iaa_kernels().pointee.onepole_cycle, state: filter.statePointer)
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        preparedCutoff = .nan
        reset()
    }

    public func reset() {
        filter.reset()
    }

    /// - Realtime: safe. The output may be the input's own buffer.
    public func process(_ context: ProcessContext) {
        guard let (input, output) = context.monoEffectBuffers() else { return }
        let frames = context.frames
        let cutoff = context.parameters.count > Parameter.cutoff
            ? context.parameters[Parameter.cutoff] : .constant(Self.defaultCutoff)
        if cutoff.isSteady {
            if cutoff.end != preparedCutoff {
                filter.setCutoff(Double(cutoff.end), sampleRate: sampleRate)
                preparedCutoff = cutoff.end
            }
            // The call a settled cycle makes.
            context.outputCheck.report(steadyCycle(context))
        } else {
            for frame in 0..<frames {
                let (gain, feedback) = OnePoleLowpass.coefficients(cutoff: Double(cutoff[frame]), sampleRate: sampleRate)
                output[frame] = filter.process(input[frame], gain: Float(gain), feedback: Float(feedback))
            }
        }
    }
}
