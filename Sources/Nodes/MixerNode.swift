import RenderCore
import CKernels
import NodeKit
import Synchronization

/// Sums `inputs` mono inputs and applies a smoothed gain to the sum.
public final class MixerNode: SteadyCycleNode {
    enum Parameter {
        static let gain = 0
    }

    /// A plain `Float`, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultGain: Float = 1

    static let gainSpec = ParameterSpec(name: "gain", displayName: "Gain", range: 0...8,
                                        defaultValue: defaultGain, unit: .linearGain)
    static let inputsSpec = ConfigurationSpec(name: "inputs", displayName: "Inputs",
                                              range: 1...64, defaultValue: 2)

    /// `builtin:mixer`: inputs `in_1`…`in_N` (N from the `inputs` configuration), one output.
    public static let nodeType = NodeType(
        id: "builtin:mixer",
        displayName: "Mixer",
        summary: "Sums its inputs and applies a linear gain to the sum.",
        parameters: [gainSpec],
        configuration: [inputsSpec],
        outputGain: "gain",
        layout: { configuration in layout(inputs: inputCount(configuration)) },
        make: { configuration in MixerNode(inputs: inputCount(configuration)) }
    )

    /// The ports of a mixer with `inputs` inputs.
    public static func layout(inputs: Int) -> NodeLayout {
        guard inputsSpec.range.contains(inputs) else { return makeLayout(inputs: inputs) }
        let slot = inputs - inputsSpec.range.lowerBound
        if let made = layouts.withLock({ $0[slot] }) { return made }
        let made = makeLayout(inputs: inputs)
        layouts.withLock { $0[slot] = made }
        return made
    }

    /// Each layout the configuration allows, made the first time a graph asks for it: validating
    /// a graph asks for one per mixer, and naming 64 ports cost more than everything else about
    /// the app. Not all 64 at once, which a small graph with one mixer would pay for at start-up.
    /// Control side only (validation, plan compiling).
    private static let layouts = Mutex<[NodeLayout?]>(Array(repeating: nil, count: inputsSpec.range.count))

    private static func makeLayout(inputs: Int) -> NodeLayout {
        NodeLayout(
            inputs: (0..<max(inputs, 0)).map { .input("in_\($0 + 1)", "Input \($0 + 1)") },
            outputs: [.output("out", "Output")]
        )
    }

    /// The configured number of inputs, clamped into `inputsSpec.range` in case the validator
    /// was bypassed; the layout and the node always agree because both come from here.
    private static func inputCount(_ configuration: NodeConfiguration) -> Int {
        configuration.value(of: inputsSpec)
    }

    /// The number of inputs this node sums.
    public let inputCount: Int

    /// The gain of the last steady cycle and the number of inputs, as CKernels' steady cycle
    /// reads them.
    private let state: UnsafeMutablePointer<iaa_gain_stage>

    public init(inputs: Int = 2) {
        self.inputCount = max(inputs, 0)
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_gain_stage(gain: Self.defaultGain, inputs: inputCount))
    }

    deinit {
        state.deallocate()
    }

    public var steadyCycle: SteadyCycle {
        SteadyCycle(function: iaa_kernels().pointee.mixer_cycle, state: UnsafeMutableRawPointer(state))
    }

    /// - Realtime: safe. The output may be the first input's own buffer.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let frames = context.frames
        let gain = context.parameters.count > Parameter.gain
            ? context.parameters[Parameter.gain] : .constant(Self.defaultGain)
        // Every input summed and a steady gain applied in one pass over `out` (blocks of 32 frames
        // held in registers), instead of a copy and one read-modify-write pass per input: the
        // call a settled cycle makes. A ramp multiplies afterwards.
        state.pointee.inputs = min(inputCount, context.inputs.count)
        state.pointee.gain = gain.isSteady ? gain.end : 1
        let check = steadyCycle(context)
        if gain.isSteady || state.pointee.inputs == 0 {
            context.outputCheck.report(check)
        } else {
            context.outputCheck.report(iaa_kernels().pointee.scale_ramp(output, output, frames, gain.start,
                                                                        gain.step, gain.rampFrames, gain.end))
        }
    }
}
