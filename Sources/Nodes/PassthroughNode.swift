import NodeKit

/// Copies its input to its output unchanged: a named junction in a graph.
public final class PassthroughNode: AudioNode {
    /// `builtin:passthrough`: one input, one output, no parameters.
    public static let nodeType = NodeType(
        id: "builtin:passthrough",
        displayName: "Passthrough",
        summary: "Copies its input to its output unchanged.",
        layout: { _ in .monoEffect },
        make: { _ in PassthroughNode() }
    )

    public init() {}

    /// - Realtime: safe. The output may be the input's own buffer.
    public func process(_ context: ProcessContext) {
        guard let (input, output) = context.monoEffectBuffers() else { return }
        let frames = context.frames
        if input != UnsafePointer(output) {
            output.update(from: input, count: frames)
        }
    }
}
