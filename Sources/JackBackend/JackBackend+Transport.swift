import CJack
import NodeKit

/// JACK transport: starting and stopping it (a node's remote transport request), and serving
/// bar/beat/tempo to every JACK client as timebase master when the graph asks for a tempo.
extension JackBackend {
    /// Starts JACK's transport rolling, as `jack_transport start` does.
    public func startTransport() { jack_transport_start(clientHandle) }

    /// Stops JACK's transport.
    public func stopTransport() { jack_transport_stop(clientHandle) }

    /// The transport now as nodes see it: JACK's bar, beat and tempo when a timebase master
    /// serves them, else counted from the transport frame at the graph's tempo.
    public var transport: HostTransport { cycleState.queryTransport() }

    /// The host's record state, which nodes see as `transport.isRecording`. JACK's transport has
    /// no record flag, so the engine keeps it (as a DAW host would for Inter-App Audio nodes).
    public var isRecording: Bool { cycleState.recording.load(ordering: .relaxed) }

    /// Flips the record state (a node's `toggleRecord` request); returns the new state.
    @discardableResult
    public func toggleRecording() -> Bool {
        cycleState.recording.logicalXor(true, ordering: .relaxed).newValue
    }

    /// Becomes JACK's timebase master (unless another client already is), so every client sees
    /// this tempo and meter. Returns false when JACK refused.
    @discardableResult
    public func becomeTimebaseMaster(tempo: Double, beatsPerBar: Double) -> Bool {
        setDefaultTempo(tempo, beatsPerBar: beatsPerBar)
        let arg = Unmanaged.passUnretained(cycleState).toOpaque()
        return askingServer {
            jack_set_timebase_callback(clientHandle, 1, { _, _, position, _, arg in
                guard let position, let arg else { return }
                Unmanaged<JackCycle>.fromOpaque(arg)._withUnsafeGuaranteedRef { cycle in
                    JackBackend.fillBarsAndBeats(position, tempo: cycle.defaultTempo, beatsPerBar: cycle.defaultBeatsPerBar)
                }
            }, arg)
        } == 0
    }

    /// Bar, beat and tick for the position's frame at a steady tempo.
    /// - Realtime: safe (JACK's timebase callback runs on the audio thread).
    static func fillBarsAndBeats(_ position: UnsafeMutablePointer<jack_position_t>, tempo: Double, beatsPerBar: Double) {
        let ticksPerBeat = 1920.0
        let rate = Double(position.pointee.frame_rate > 0 ? position.pointee.frame_rate : 48_000)
        let beats = Double(position.pointee.frame) / (rate * 60 / tempo)
        let bar = Int32(beats / beatsPerBar)
        let beatInBar = beats - Double(bar) * beatsPerBar
        position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue | JackPositionBBT.rawValue)
        position.pointee.bar = bar + 1
        position.pointee.beat = Int32(beatInBar) + 1
        position.pointee.tick = Int32((beatInBar - beatInBar.rounded(.down)) * ticksPerBeat)
        position.pointee.bar_start_tick = Double(bar) * beatsPerBar * ticksPerBeat
        position.pointee.beats_per_bar = Float(beatsPerBar)
        position.pointee.beat_type = 4
        position.pointee.ticks_per_beat = ticksPerBeat
        position.pointee.beats_per_minute = tempo
    }
}
