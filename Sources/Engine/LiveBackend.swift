import AudioGraph
import RenderCore
import JackBackend
import NodeKit

/// What the live engine needs of the audio server it is a client of: its ports and connections
/// and JACK's word when they change, the other clients and their processes, the transport,
/// cycle statistics, and the server going away. ``JackBackend`` is the real one; ``MemoryBackend``
/// is a deterministic server in memory, on which the engine's logic (rules, programs, admission,
/// restarts, replies) is tested without a JACK server.
///
/// The engine calls everything on its control queue. A backend calls the `on…` notifications
/// from a thread of its own (JACK's notification thread), so the engine only hands them to its
/// queue there.
protocol LiveBackend: ControlBackend, AnyObject, Sendable {
    /// Our client's name: every port of ours is `CLIENT:APP.PORT`.
    var clientName: String { get }

    // MARK: Life
    /// Starts the cycles (JACK's `jack_activate`).
    func activate() throws
    /// Closes the client; the server stays.
    func close()
    /// Gives up a client whose server died, without calling into it again.
    func abandon()
    /// True once the server went away.
    var serverWasShutDown: Bool { get }
    /// Frees plans the audio thread has moved past, and ports no plan uses any more.
    func collectRetiredPlans()

    // MARK: Ports and connections
    /// Our ports now, as `jack_lsp` would show them.
    func livePorts() -> [LivePort]
    /// Every port on the server, of every client.
    func allPortNames() -> [String]
    /// The clients that have ports now, in the server's port order.
    func clientsWithPorts() -> [String]
    /// A client's audio ports: (its outputs, its inputs), in the server's order.
    func audioPorts(ofClient name: String) -> (outputs: [String], inputs: [String])
    /// Every port `port` is connected to (any client's).
    func connections(of port: String) -> [String]
    func isConnected(_ source: String, _ destination: String) -> Bool
    /// Connects two ports by full name.
    func connect(_ source: String, _ destination: String) -> ConnectionOutcome
    /// Disconnects two ports by full name; false when they were not connected.
    func disconnect(_ source: String, _ destination: String) -> Bool
    /// The ports `@playback`, `@capture`, `@midi-capture` or a named port stand for now.
    func resolve(_ endpoint: ExternalEndpoint) -> [String]
    /// Asks the server for another period; false when it refused.
    func requestBufferSize(_ frames: Int) -> Bool
    /// The latest capture latency the server holds for one of our input ports (short name, as
    /// `tone.in`): how late what feeds it is; 0 for a port it does not know.
    func captureLatency(ofPort shortName: String) -> Int

    // MARK: Other clients
    /// The process that is client `name` of this server, or nil when it cannot be told.
    func process(ofClient name: String) -> ProcessIdentity?

    // MARK: Notifications (called on the backend's own thread)
    var onConnectionChange: (@Sendable (String, String, Bool) -> Void)? { get set }
    var onOutsideConnection: (@Sendable (String, String) -> Void)? { get set }
    var onRegistration: (@Sendable (String) -> Void)? { get set }
    var onClientGone: (@Sendable (String) -> Void)? { get set }
    var onBufferSizeChange: (@Sendable (Int) -> Void)? { get set }

    // MARK: Transport
    var transport: HostTransport { get }
    func startTransport()
    func stopTransport()
    @discardableResult func toggleRecording() -> Bool
    func setDefaultTempo(_ tempo: Double, beatsPerBar: Double)
    @discardableResult func becomeTimebaseMaster(tempo: Double, beatsPerBar: Double) -> Bool

    // MARK: Cycles
    var cycleCount: Int64 { get }
    var xrunCount: Int64 { get }
    var ourXrunCount: Int64 { get }
    var preemptedOverrunCount: Int64 { get }
    var deadlineFaultCount: Int64 { get }
    var dspLoad: Double { get }
    var cycleTimes: CycleTimes { get }
    var stall: (app: String?, seconds: Double)? { get }
    func takeBusyTimes() -> (last: Double, maximum: Double)
    func setMetering(_ on: Bool)
    func setDeadlineShare(_ share: Double)
    /// Starts the worker threads a cycle may be split across (`threads` counts the audio
    /// thread), splitting as `splitting` says (docs/parallel.md). Before `activate`.
    func startCrew(threads: Int, splitting: CycleSplitting) throws(RenderCrew.CrewError)
    /// Decides for the running plan whether its cycles are split (on the control tick).
    func updateSplit()
    /// The threads cycles run on, for `status.render`.
    var renderThreads: RenderThreads { get }
    /// The audio thread's real-time priority, nil when it has none.
    var realtimePriority: Int32? { get }
    /// The audio thread's `pthread_t` (valid once active).
    var audioThread: UInt { get }
    /// Allocations and retains counted on the audio thread (`IAA_RT_PROBE`), nil when not counting.
    var probeCounts: (mallocs: Int, retains: Int)? { get }
}

/// One of our ports as the server lists it.
struct LivePort: Sendable, Equatable {
    let name: String
    let appID: String
    let portName: String
    let type: String
    let isInput: Bool
    let connections: [String]
    /// JACK's capture and playback latency ranges of the port, in frames.
    let capture: ClosedRange<Int>
    let playback: ClosedRange<Int>

    /// Its connection to `other` as `(from, to)`: the output end first, whichever this port is.
    func ends(_ other: String) -> (from: String, to: String) {
        isInput ? (other, name) : (name, other)
    }
}

extension LiveBackend {
    /// The outside ports `endpoint` stands for now. `@playback`, `@capture` and
    /// `@midi-capture` are the machine's own physical ports: the bridges of the graph's links
    /// register theirs as physical and terminal too (zita-njbridge), and a signal sent to
    /// `@playback` must not go over a link (nor a link's audio be taken as the capture).
    func ports(of endpoint: ExternalEndpoint, in graph: Graph) -> [String] {
        let found = resolve(endpoint)
        if case .port = endpoint { return found }
        let bridges = graph.apps.filter { $0.link != nil }.map { LinkEnd.bridgeClient(of: $0.id) + ":" }
        guard !bridges.isEmpty else { return found }
        return found.filter { port in !bridges.contains { port.hasPrefix($0) } }
    }

    /// Our full name of `APP.PORT`.
    func fullName(_ shortName: String) -> String { "\(clientName):\(shortName)" }

    /// Makes the graph's connections to ports outside the engine. A failure does not stop the
    /// others: each outcome says what happened.
    func connect(_ connections: [ExternalConnection], in graph: Graph) -> [ConnectionOutcome] {
        var outcomes: [ConnectionOutcome] = []
        for connection in connections {
            let resolved = portPairs(connection, in: graph)
            for port in resolved.unmatched {
                outcomes.append(ConnectionOutcome(source: port, destination: "\(connection.endpoint)",
                                                  result: .failed("no such JACK port is present")))
            }
            outcomes += resolved.pairs.map { connect($0.source, $0.destination) }
        }
        return outcomes
    }

    /// Breaks the connections that `connections` stand for now (what `apply` drops); returns the
    /// pairs that were connected and are not any more.
    func disconnect(_ connections: [ExternalConnection], in graph: Graph) -> [(source: String, destination: String)] {
        connections.flatMap { portPairs($0, in: graph).pairs }.filter { disconnect($0.source, $0.destination) }
    }

    /// The port pairs (source, destination) one graph connection means against the ports present
    /// now, and our ports whose outside end matches no port.
    func portPairs(_ connection: ExternalConnection, in graph: Graph) -> (pairs: [(source: String, destination: String)], unmatched: [String]) {
        let ours = connection.ports.map { address -> String in
            let app = graph.apps[address.app]
            let spec = connection.isMIDI ? app.layout.midiInputs[address.port]
                : connection.direction == .toExternal ? app.layout.outputs[address.port] : app.layout.inputs[address.port]
            return fullName("\(app.id).\(spec.name)")
        }
        let theirs = ports(of: connection.endpoint, in: graph)
        guard !theirs.isEmpty else { return ([], ours) }
        let pairs = PortPairing.pairs(ours, theirs).map { mine, other in
            connection.direction == .toExternal ? (source: mine, destination: other) : (source: other, destination: mine)
        }
        return (pairs, [])
    }
}

/// JACK: the real server.
extension JackBackend: LiveBackend {
    func livePorts() -> [LivePort] {
        ports().map { LivePort(name: $0.name, appID: $0.appID, portName: $0.portName, type: $0.type, isInput: $0.isInput,
                               connections: $0.connections, capture: $0.capture, playback: $0.playback) }
    }

    func process(ofClient name: String) -> ProcessIdentity? {
        ProcessIdentity.ofJackClient(name, server: JackServerTag(ownClient: clientName, requested: serverName))
    }

    func resolve(_ endpoint: ExternalEndpoint) -> [String] {
        switch endpoint {
        case .port(let name): hasPort(name) ? [name] : []
        case .physicalPlayback: physicalPorts(.playback)
        case .physicalCapture: physicalPorts(.capture)
        case .physicalMIDICapture: physicalPorts(.midiCapture)
        }
    }
}

/// How the engine's cycles run (`iaa run --deadline`, `--threads`, `--split`), the same on every
/// backend it adopts: the first and each after a server restart.
struct CycleSettings {
    /// The deadline guard's share of the period (0 off).
    var deadlineShare = 0.5
    /// Threads a cycle may run on, the audio thread included.
    var threads = 1
    /// When cycles are split across them.
    var splitting = CycleSplitting.whenItPays

    func apply(to backend: any LiveBackend) {
        backend.setDeadlineShare(deadlineShare)
        do {
            try backend.startCrew(threads: threads, splitting: splitting)
        } catch {
            StandardError.warning("cycles run on JACK's thread alone: \(error)")
        }
    }
}
