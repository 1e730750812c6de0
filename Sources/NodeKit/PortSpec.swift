/// One port of a node: a mono audio channel, named like a JACK port (`[A-Za-z0-9_-]+`).
public struct PortSpec: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable {
        case input, output
    }

    /// The symbol used in graph files and JACK port names (`in_1`, `out`).
    public let name: String
    /// What patchbays show (JACK pretty-name), such as "Input 1".
    public let displayName: String
    public let direction: Direction
    /// Ports of one group belong together (a stereo pair); becomes JACK's port-group metadata.
    public let group: String?
    /// An input that reads what its sources rendered in the previous cycle: a host's effect
    /// return, so that host → effect → host is not a cycle (it costs one period of latency).
    public let readsPreviousCycle: Bool
    /// A program app's end of the route (`play_K`, `capture_K`): only the engine connects it, to
    /// the outside program's own JACK ports. Always a JACK port; the graph may not name it; as an
    /// input it always hears its JACK port (it is the program's sound, not a microphone).
    public let programEnd: Bool

    public init(name: String, displayName: String? = nil, direction: Direction, group: String? = nil,
                readsPreviousCycle: Bool = false, programEnd: Bool = false) {
        self.name = name
        self.displayName = displayName ?? name
        self.direction = direction
        self.group = group
        self.readsPreviousCycle = readsPreviousCycle
        self.programEnd = programEnd
    }

    public static func input(_ name: String, _ displayName: String? = nil, group: String? = nil,
                             readsPreviousCycle: Bool = false) -> PortSpec {
        PortSpec(name: name, displayName: displayName, direction: .input, group: group,
                 readsPreviousCycle: readsPreviousCycle)
    }

    public static func output(_ name: String, _ displayName: String? = nil, group: String? = nil) -> PortSpec {
        PortSpec(name: name, displayName: displayName, direction: .output, group: group)
    }
}

/// The ports of one node, which may depend on its configuration (a mixer's number of inputs).
public struct NodeLayout: Sendable, Hashable {
    public let inputs: [PortSpec]
    public let outputs: [PortSpec]
    /// MIDI inputs (an instrument's or music effect's `midi_in`); all arrive merged in
    /// `ProcessContext.midi`.
    public let midiInputs: [PortSpec]

    public init(inputs: [PortSpec], outputs: [PortSpec], midiInputs: [PortSpec] = []) {
        self.inputs = inputs
        self.outputs = outputs
        self.midiInputs = midiInputs
    }

    /// One audio input `in` and one output `out`: the shape of most effects.
    public static let monoEffect = NodeLayout(inputs: [.input("in", "Input")], outputs: [.output("out", "Output")])
}
