import AudioGraph
import AudioSession
import ControlSocket
import Foundation
@testable import Engine
import GraphFormat
import Synchronization
import Testing

/// What a component of the engine reads of it (``EngineHost``, and the few more ``WatchHost``,
/// ``KeepingHost``, ``ReloadHost`` and ``ProgramHost`` ask for), stood in for: a graph whose first
/// plan is installed on an in-memory server, its sessions, a clock the test sets, a publisher the
/// test can tap, its connections to JACK and links, program apps the test says are away or use
/// some ports, and installing a changed graph as the core does. For testing one component alone,
/// without an engine core; a component confined to the control queue is called on `queue`.
final class StandInHost: EngineHost, WatchHost, KeepingHost, ReloadHost, ProgramHost {
    /// The running graph is the sessions', as the core's is: an install that adopts a graph
    /// changes both.
    var graph: Graph { sessions.graph }
    let description: GraphDescription
    let backend: any LiveBackend
    let server: MemoryBackend
    var now = 0.0
    private(set) var sessions: AudioSessionController
    let builder: PlanBuilder
    let publisher = EventPublisher(clock: EngineClock())
    let queue = DispatchQueue(label: "stand-in host")
    var cycles = CycleSettings()
    var isolated: IsolatedApps? { nil }
    var awayPrograms: Set<String> = []
    func programIsAway(_ app: App) -> Bool { awayPrograms.contains(app.id) }
    func checkOnQueue() {}
    var clientName: String { server.clientName }
    lazy var connections = EngineConnections(host: self, clientName: clientName, queue: queue)
    lazy var links = LinkSupervisor(queue: queue, clock: publisher.clock, publisher: publisher, serverName: nil)
    var programEnds: Set<String> = []
    func programEndPorts() -> Set<String> { programEnds }
    func enginePairs() -> Set<[String]> { connections.rulePairs() }
    func exportedGraph() -> String {
        GraphExport(graph: graph, description: description, clientName: "iaa", ports: backend.livePorts(), madeByEngine: enginePairs(),
                    programEnds: programEnds, plan: backend.currentPlan, sessions: sessions.policy).text
    }

    init(_ text: String) throws {
        let loaded = GraphFile.load(text: text, file: "graph.json", registry: GraphLoading.registry)
        let graph = try #require(loaded.graph, "\(loaded.errors.map(\.formatted))")
        description = try #require(loaded.description)
        server = MemoryBackend()
        backend = server
        sessions = AudioSessionController(graph: graph)
        builder = PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: graph.policy.rampSeconds)
        _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .first, on: server, at: 0)
    }

    var decoder: RequestDecoder {
        RequestDecoder(graph: graph, clientName: "iaa", fullName: server.fullName, outsidePorts: server.resolve)
    }

    func install(_ newGraph: Graph, sameSessions: Bool) throws -> [SessionEvent] {
        try installAdopting(newGraph, sameSessions: sameSessions).events
    }

    func installAdopting(_ newGraph: Graph, sameSessions: Bool) throws -> (events: [SessionEvent], setups: [String: SessionOutcome]) {
        let installed = try PlanInstall(newGraph, builder: builder, sessions: sessions, binding: sameSessions ? .adopt : .replace,
                                        on: server, at: now)
        sessions = installed.sessions
        return (installed.events, installed.setups)
    }

    /// A session action, without the core's install of a graph that ended a node's connections.
    func applySession(_ action: SessionAction, at time: Double) -> SessionOutcome {
        sessions.apply(action, at: time)
    }
}

/// Every line a stand-in host's publisher sends, with its topic, kept as it comes.
final class PublishedLines: Sendable {
    private let all = Mutex<[(topic: String, line: ControlJSON)]>([])

    /// Taps `host`'s publisher from now on.
    init(of host: StandInHost) {
        host.publisher.tap = { [self] topic, line in all.withLock { $0.append((topic, line)) } }
    }

    /// The `events` stream's lines, read back as the protocol's type.
    var events: [EventsLine.Content] {
        all.withLock { $0 }.filter { $0.topic == "events" }.compactMap { EventsLine(json: $0.line)?.content }
    }

    /// The engine events among them (not xruns, connections, reloads).
    var engineEvents: [EngineEvent] {
        events.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The last line on `topic`.
    func last(on topic: String) -> ControlJSON? {
        all.withLock { $0 }.last { $0.topic == topic }?.line
    }
}
