import NodeKit

/// What the control side asks of a backend beyond installing plans: the one seam between the
/// engine and JACK or the offline clock. The engine's commands are performed against it,
/// so they run the same way live and offline; where a backend cannot do something (the offline
/// backend has no ports outside the engine, JACK takes MIDI on its ports), it says so.
public protocol ControlBackend: AudioBackend {
    /// The plan being rendered (its slots take parameter changes).
    var currentPlan: RenderPlan? { get }
    /// The cycle length now, in frames: at most `maximumFrames`, and JACK's may change.
    var currentBufferSize: Int { get }
    /// Cycles rendered so far, which the control side counts to wait for the audio thread to
    /// play something out; nil where cycles run only between commands (offline, or a test's
    /// in-memory server), so that there is nothing to wait for.
    var renderedCycles: Int64? { get }
    /// Delivers a MIDI message to `app`'s MIDI input at the start of the next cycle; false when
    /// the app has none or the backend takes MIDI only from outside.
    @discardableResult
    func injectMIDI(_ event: MIDIEvent, app: String) -> Bool
    /// Starts or stops the host transport.
    func setPlaying(_ playing: Bool)
    /// Connects two ports outside the plan by their backend names.
    func connectPorts(_ pair: PortPair) -> PortConnectionResult
    /// Breaks a connection between ports outside the plan; false when they were not connected.
    func disconnectPorts(_ pair: PortPair) -> Bool
}

/// What happened to one requested connection between ports outside the plan.
public enum PortConnectionResult: Sendable, Equatable {
    case connected, alreadyConnected
    case failed(String)
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
