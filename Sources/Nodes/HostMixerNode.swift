import CKernels
import NodeKit

/// The host app (`builtin:host-mixer`): mixes the node apps connected to it and runs its output
/// through a chain of effects in series.
///
/// Ports: inputs `in_1`…`in_N` (N = `inputs`), then `return_1`…`return_S` (S = `sends`); outputs
/// `out`, then `send_1`…`send_S`. Per cycle:
/// - mix = in_1 + … + in_N;
/// - with no sends, out = gain × mix;
/// - with S sends, send_1 = mix, send_(k+1) = return_k, and out = gain × return_S: the graph
///   connects `send_k` to an effect's input and that effect's output to `return_k`, so the mix
///   passes through the effects one after another, in send order. A send whose return is not
///   connected breaks the chain (the return reads silence), so configure exactly as many sends
///   as there are effects.
///
/// Within one cycle the sends are written from this cycle's inputs and the output from this
/// cycle's returns; whether the returns hold this cycle's effect output or the previous cycle's
/// is the graph's business (a host whose sends feed its returns is a loop at the app level).
public final class HostMixerNode: AudioNode {
    enum Parameter {
        static let gain = 0
    }

    /// A plain `Float`, so the audio thread's fallback never touches a spec holding `String`s.
    static let defaultGain: Float = 1

    static let gainSpec = ParameterSpec(name: "gain", displayName: "Gain", range: 0...8,
                                        defaultValue: defaultGain, unit: .linearGain)
    static let inputsSpec = ConfigurationSpec(name: "inputs", displayName: "Inputs", range: 1...16, defaultValue: 4)
    static let sendsSpec = ConfigurationSpec(name: "sends", displayName: "Effect Sends", range: 0...4, defaultValue: 0)

    /// `builtin:host-mixer`: the host app; no component (a host publishes none).
    public static let nodeType = NodeType(
        id: "builtin:host-mixer",
        displayName: "Host Mixer",
        summary: "The host app: mixes its connected nodes and sends the mix through effects in series.",
        parameters: [gainSpec],
        configuration: [inputsSpec, sendsSpec],
        layout: { configuration in
            layout(inputs: configuration.value(of: inputsSpec), sends: configuration.value(of: sendsSpec))
        },
        make: { configuration in
            HostMixerNode(inputs: configuration.value(of: inputsSpec), sends: configuration.value(of: sendsSpec))
        }
    )

    /// The ports of a host mixer with `inputs` inputs and `sends` sends.
    public static func layout(inputs: Int, sends: Int) -> NodeLayout {
        let mixed: [PortSpec] = (0..<max(inputs, 0)).map { .input("in_\($0 + 1)", "Input \($0 + 1)") }
        // Returns read the previous cycle, so host → effect → host is not a cycle.
        let returns: [PortSpec] = (0..<max(sends, 0)).map {
            .input("return_\($0 + 1)", "Return \($0 + 1)", readsPreviousCycle: true)
        }
        let sendPorts: [PortSpec] = (0..<max(sends, 0)).map { .output("send_\($0 + 1)", "Send \($0 + 1)") }
        return NodeLayout(inputs: mixed + returns, outputs: [.output("out", "Output")] + sendPorts)
    }

    public let inputCount: Int
    public let sendCount: Int

    public init(inputs: Int = 4, sends: Int = 0) {
        inputCount = max(inputs, 0)
        sendCount = max(sends, 0)
    }

    /// - Realtime: safe. `out` may share its buffer with `in_1`: the sends are written first,
    ///   while `in_1` is still intact, and `out` last.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let frames = context.frames
        let sends = min(sendCount, context.outputs.count - 1, max(context.inputs.count - inputCount, 0))
        // The mix goes straight to `out` without sends, else to `send_1`.
        guard let mix = sends > 0 ? context.outputs[1].baseAddress : output else { return }
        sum(context.inputs, count: min(inputCount, context.inputs.count), into: mix, frames: frames)

        var source = UnsafePointer(mix)
        if sends > 0 {
            for send in 1..<sends {
                guard let destination = context.outputs[send + 1].baseAddress,
                      let returned = context.inputs[inputCount + send - 1].baseAddress else { continue }
                destination.update(from: returned, count: frames)
            }
            guard let last = context.inputs[inputCount + sends - 1].baseAddress else { return }
            source = last
        }

        let gain = context.parameters.count > Parameter.gain
            ? context.parameters[Parameter.gain] : .constant(Self.defaultGain)
        _ = iaa_kernels().pointee.scale_ramp(source, output, frames, gain.start, gain.step, gain.rampFrames, gain.end)
    }

    /// Writes the sum of the first `count` inputs into `destination` (silence for none).
    /// - Realtime: safe. `destination` may be the first input's own buffer.
    private func sum(_ inputs: AudioInputs, count: Int, into destination: UnsafeMutablePointer<Float>, frames: Int) {
        guard count > 0 else {
            destination.update(repeating: 0, count: frames)
            return
        }
        // One pass over `destination` for all inputs (CKernels' `sum`).
        _ = iaa_kernels().pointee.sum(inputs.pointers, count, destination, frames, 1)
    }
}
