import RenderCore
import CKernels
import NodeKit

/// Multiplies its input by a smoothed linear gain.
public final class GainNode: SteadyCycleNode {
    enum Parameter {
        static let gain = 0
    }

    /// A plain `Float`, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultGain: Float = 1

    static let gainSpec = ParameterSpec(name: "gain", displayName: "Gain", range: 0...8,
                                        defaultValue: defaultGain, unit: .linearGain)

    /// `builtin:gain`: one input, one output, a `gain` parameter.
    public static let nodeType = NodeType(
        id: "builtin:gain",
        displayName: "Gain",
        summary: "Multiplies its input by a linear gain.",
        parameters: [gainSpec],
        outputGain: "gain",
        layout: { _ in .monoEffect },
        make: { _ in GainNode() }
    )

    /// The gain of the last steady cycle, as CKernels' steady cycle reads it.
    private let state: UnsafeMutablePointer<iaa_gain_stage>

    public init() {
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_gain_stage(gain: Self.defaultGain, inputs: 1))
    }

    deinit {
        state.deallocate()
    }

    public var steadyCycle: SteadyCycle {
        SteadyCycle(function: iaa_kernels().pointee.gain_cycle, state: UnsafeMutableRawPointer(state))
    }

    /// - Realtime: safe. The output may be the input's own buffer.
    public func process(_ context: ProcessContext) {
        guard let (input, output) = context.monoEffectBuffers() else { return }
        let frames = context.frames
        let gain = context.parameters.count > Parameter.gain
            ? context.parameters[Parameter.gain] : .constant(Self.defaultGain)
        if gain.isSteady {
            // The call a settled cycle makes (`scale_ramp` at a ramp of 0 frames).
            state.pointee.gain = gain.end
            context.outputCheck.report(steadyCycle(context))
        } else {
            context.outputCheck.report(
                iaa_kernels().pointee.scale_ramp(input, output, frames, gain.start, gain.step, gain.rampFrames, gain.end))
        }
    }
}
