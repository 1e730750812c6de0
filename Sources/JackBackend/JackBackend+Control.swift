import NodeKit
import RenderCore

/// The control side's seam (``ControlBackend``), in JACK's terms.
extension JackBackend: ControlBackend {
    /// Live, MIDI reaches apps through their JACK MIDI ports, from outside the engine; the control
    /// side has no way to put a message into a cycle, so this refuses.
    public func injectMIDI(_ event: MIDIEvent, app: String) -> Bool { false }

    public var renderedCycles: Int64? { cycleCount }

    /// JACK's transport, which every client follows.
    public func setPlaying(_ playing: Bool) {
        if playing { startTransport() } else { stopTransport() }
    }

    public func connectPorts(_ pair: PortPair) -> PortConnectionResult {
        connect(pair.source, pair.destination).result
    }

    public func disconnectPorts(_ pair: PortPair) -> Bool {
        disconnect(pair.source, pair.destination)
    }
}
