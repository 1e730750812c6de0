import AudioSession

/// One change to a running engine, whoever asks for it: a control request (`iaa set`, `iaa
/// connect`, `iaa session …`) or a timeline entry of an offline render. Each input has one decoder
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
}

/// A source and a destination port by their backend names (`system:capture_1`, `iaa:synth.out_L`).
public struct PortPair: Sendable, Hashable {
    public let source: String
    public let destination: String

    public init(_ source: String, _ destination: String) {
        self.source = source
        self.destination = destination
    }
}
