import RenderCore
import AudioSession

/// One change to a running engine, whoever asks for it: a control request (`iaa set`, `iaa
/// connect`, `iaa session …`, `iaa apply`) or a timeline entry of an offline render. Each input has one decoder
/// that resolves its names (apps, ports, parameters) into this value; the engine then performs it
/// the same way live and offline, so a scenario rendered offline is what the live engine does.
public enum EngineCommand: Sendable, Equatable {
    /// An action for the session policy.
    case session(SessionAction)
    /// A MIDI message to an app with a MIDI input: 1 to 3 bytes, status byte first.
    case midi(app: String, bytes: [UInt8])
    /// The host transport starts or stops.
    case transport(playing: Bool)
    /// A parameter change: `index` into the app's `type.parameters`, the value range-checked.
    case setParameter(app: String, index: Int, value: Float)
    /// Connections between app ports, made together in one new plan (a port glob pairs several);
    /// whether Inter-App Audio allows them is decided against the sessions at that moment.
    case connect([Connection])
    /// Connections between app ports to remove together (their gains do not matter); a node
    /// losing its last host fades out before the plan without it goes in.
    case disconnect([Connection])
    /// Connections between ports outside the plan (JACK port names), made by the backend.
    case connectPorts([PortPair])
    /// Connections between ports outside the plan to break.
    case disconnectPorts([PortPair])
    /// A whole validated graph in place of the running one, keeping every unchanged app's node.
    case apply(AppliedGraph)
}

/// A validated graph to apply, and the file text it was read from. ``Graph`` has no equality (its
/// node types hold code), so two are the same command when read from the same text of the same file.
public struct AppliedGraph: Sendable, Equatable {
    public let graph: Graph
    /// The file name the graph was read as, and its text: the command's identity.
    public let file: String
    public let text: String

    public init(_ graph: Graph, file: String, text: String) {
        self.graph = graph
        self.file = file
        self.text = text
    }

    public static func == (lhs: AppliedGraph, rhs: AppliedGraph) -> Bool {
        lhs.file == rhs.file && lhs.text == rhs.text
    }
}
