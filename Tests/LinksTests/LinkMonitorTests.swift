import AudioGraph
import Links
import Testing

/// A link's state from its bridge's own words: zita-n2j's output as it printed it between two
/// JACK servers on this machine (sender started 2 s after the receiver, stopped 8 s later).
@Suite("Link states from the bridge's output")
struct LinkMonitorTests {
    static let receive = LinkEnd(direction: .receive, host: "127.0.0.1", port: 30100)
    static let recorded = """
        Waiting for info packet...
        From 127.0.0.1 : 2 chan, 48000 Hz
        Resampler filter delay is 32.
        Syncing...
        Receiving.
         46   -0.274  1.000025      121
         47   -0.324  1.000103      251
         47    3.784  0.999987   -19327
         47    4.513  0.999982   -31359
        Transmitter terminated.
        Waiting for info packet...
        """

    @Test("each line read as zita-n2j means it")
    func lines() {
        let signals = Self.recorded.split(separator: "\n").map { BridgeSignal(line: $0) }
        #expect(signals == [
            .waiting, .sender(address: "127.0.0.1", channels: 2, sampleRate: 48_000), .other("Resampler filter delay is 32."),
            .syncing, .receiving,
            .statistics(cycles: 46, error: -0.274, ratio: 1.000025, fewestFrames: 121),
            .statistics(cycles: 47, error: -0.324, ratio: 1.000103, fewestFrames: 251),
            .statistics(cycles: 47, error: 3.784, ratio: 0.999987, fewestFrames: -19327),
            .statistics(cycles: 47, error: 4.513, ratio: 0.999982, fewestFrames: -31359),
            .senderEnded, .waiting,
        ])
        #expect(BridgeSignal(line: "Waiting for 10.0 seconds...") == .pause(seconds: 10))
        #expect(BridgeSignal(line: "Failed to open socket.") == .other("Failed to open socket."))
    }

    @Test("starting, waiting, locking, running, lost, waiting: lock time, underruns and one dropout counted")
    func receiverStates() {
        var monitor = LinkMonitor(link: Self.receive, at: 0)
        var changes: [LinkMonitor.Change] = []
        func note(_ event: BridgeEvent, _ time: Double) { if let change = monitor.note(event, at: time) { changes.append(change) } }
        note(.started(pid: 42), 0)
        for (index, line) in Self.recorded.split(separator: "\n").enumerated() {
            note(.line(BridgeSignal(line: line)), 1 + 0.25 * Double(index))
        }
        #expect(changes.map(\.to) == [.waiting, .locking, .running, .lost, .waiting])
        #expect(changes[1].reason == "sender 127.0.0.1: 2 channels at 48000 Hz; locking to its clock")
        #expect(changes[2].reason == "locked after 0.8 s")
        #expect(monitor.lockedAfter == 0.75)
        #expect(monitor.underruns == 2)
        #expect(monitor.dropouts == 1)
        #expect(monitor.sender == nil, "a receiver waiting again has no sender")
        #expect(monitor.pid == 42)
    }

    @Test("an exit is a restart: counted when the bridge starts again, with why it ended in the reason")
    func restart() {
        var monitor = LinkMonitor(link: Self.receive, at: 0)
        _ = monitor.note(.started(pid: 7), at: 0)
        _ = monitor.note(.line(.receiving), at: 1)
        let ended = monitor.note(.exited("zita-n2j was killed by signal 9"), at: 2)
        #expect(ended == .init(from: .running, to: .restarting, reason: "zita-n2j was killed by signal 9"))
        #expect(monitor.dropouts == 1 && monitor.pid == nil && monitor.restarts == 0)
        #expect(monitor.note(.restartScheduled(after: 0.5), at: 2) == nil, "already restarting")
        _ = monitor.note(.started(pid: 8), at: 2.5)
        #expect(monitor.restarts == 1 && monitor.state == .starting && monitor.lastExit == "zita-n2j was killed by signal 9")
    }

    @Test("a sending end runs once the engine has bound its JACK client, and starts again when the client leaves")
    func sender() {
        var monitor = LinkMonitor(link: LinkEnd(direction: .send, host: "fd00::21", port: 30100, channels: 4), at: 0)
        _ = monitor.note(.started(pid: 9), at: 0)
        #expect(monitor.note(.bound(true), at: 0.2)?.reason == "sending 4 channels to [fd00::21]:30100")
        #expect(monitor.state == .running)
        #expect(monitor.note(.bound(false), at: 3)?.to == .starting)
    }

    @Test("the bridge's arguments and the receiving end's latency")
    func arguments() {
        let receive = LinkEnd(direction: .receive, host: "0.0.0.0", port: 30100, channels: 3, bufferMilliseconds: 5)
        #expect(receive.arguments(client: "rx-link", server: "b") == ["--jname", "rx-link", "--jserv", "b", "--chan", "1-3", "--buff", "5", "--info", "0.0.0.0", "30100"])
        let send = LinkEnd(direction: .send, host: "10.0.0.2", port: 30100, channels: 1, format: .float)
        #expect(send.arguments(client: "tx-link", server: nil) == ["--jname", "tx-link", "--chan", "1", "--float", "10.0.0.2", "30100"])
        // 5 ms at 48 kHz and at 44.1 kHz; a sending end counts none.
        #expect(receive.latency(sampleRate: 48_000) == 240)
        #expect(receive.latency(sampleRate: 44_100) == 221)
        #expect(send.latency(sampleRate: 48_000) == 0)
    }
}
