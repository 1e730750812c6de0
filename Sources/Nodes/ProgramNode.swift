import NodeKit

/// The node of a program app: the outside program's sound enters at `play_K` (JACK ports the
/// engine connects to the program's outputs) and leaves at `out_K` into the graph; what the graph
/// gives the program enters at `in_K` and leaves at `capture_K` (connected to the program's
/// inputs). The app's session gain applies to every output, so the program is ducked, interrupted
/// and muted like any app. docs/programs.md has the design.
public final class ProgramNode: AudioNode {
    // A program block allows 1…16 outputs and 0…16 inputs (the validator says so); a link's
    // end has one side only, up to zita-njbridge's 64 channels.
    static let outputsSpec = ConfigurationSpec(name: "outputs", displayName: "Program outputs", range: 0...64, defaultValue: 2)
    static let inputsSpec = ConfigurationSpec(name: "inputs", displayName: "Program inputs", range: 0...64, defaultValue: 0)

    /// `builtin:program`: what a graph's `program` block makes; never written as a `plugin`.
    public static let nodeType = NodeType(
        id: "builtin:program",
        displayName: "Program",
        summary: "An outside JACK program's sound, routed through the app (an app's \"program\" block).",
        configuration: [outputsSpec, inputsSpec],
        layout: { layout(channels(of: $0)) },
        make: { ProgramNode(channels: channels(of: $0)) }
    )

    /// Ports pair by index: input K feeds output K (`play_K` → `out_K`, then `in_K` → `capture_K`).
    public static func layout(_ channels: (outputs: Int, inputs: Int)) -> NodeLayout {
        let plays = (0..<channels.outputs).map {
            PortSpec(name: "play_\($0 + 1)", displayName: "From program \($0 + 1)", direction: .input, group: "play", programEnd: true)
        }
        let ins = (0..<channels.inputs).map { PortSpec.input("in_\($0 + 1)", "To program \($0 + 1)", group: "in") }
        let outs = (0..<channels.outputs).map { PortSpec.output("out_\($0 + 1)", "Program \($0 + 1)", group: "out") }
        let captures = (0..<channels.inputs).map {
            PortSpec(name: "capture_\($0 + 1)", displayName: "Program capture \($0 + 1)", direction: .output, group: "capture",
                     programEnd: true)
        }
        return NodeLayout(inputs: plays + ins, outputs: outs + captures)
    }

    /// The configured channel counts, clamped into their ranges in case the validator was bypassed.
    static func channels(of configuration: NodeConfiguration) -> (outputs: Int, inputs: Int) {
        (configuration.value(of: outputsSpec), configuration.value(of: inputsSpec))
    }

    let channelCount: Int

    init(channels: (outputs: Int, inputs: Int)) {
        channelCount = channels.outputs + channels.inputs
    }

    /// - Realtime: safe. An output may be its input's own buffer.
    public func process(_ context: ProcessContext) {
        let frames = context.frames
        for index in 0..<min(channelCount, context.inputs.count, context.outputs.count) {
            guard let input = context.inputs[index].baseAddress, let output = context.outputs[index].baseAddress else { continue }
            if input != UnsafePointer(output) { output.update(from: input, count: frames) }
        }
    }
}
