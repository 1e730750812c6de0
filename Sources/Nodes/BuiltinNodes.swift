import NodeKit

/// The node types that ship with the engine, for graphs to name as `builtin:…`.
public enum BuiltinNodes {
    /// Every built-in type, in the order `iaa plugins` lists them.
    public static let types: [NodeType] = [
        OscillatorNode.nodeType,
        NoiseNode.nodeType,
        GainNode.nodeType,
        MixerNode.nodeType,
        PassthroughNode.nodeType,
        PolySynthNode.nodeType,
        DelayNode.nodeType,
        FilterNode.nodeType,
        LowpassNode.nodeType,
        StepSequencerNode.nodeType,
        HostMixerNode.nodeType,
        ProgramNode.nodeType,
    ]

    /// The built-in type with this id (`builtin:gain`), if there is one.
    public static func type(_ id: String) -> NodeType? {
        types.first { $0.id == id }
    }
}
