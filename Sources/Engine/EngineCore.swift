import AudioGraph
import GraphFormat
import AudioSession
import ControlSocket
import Foundation
import JackBackend
import Links

/// The running engine's state: graph, plans, sessions and the backend. Everything here runs on
/// `queue`, the one serial control queue: socket requests, the clock tick and the server's
/// notifications all go through it (each entry point checks so: ``checkOnQueue()``), so no lock
/// is needed and the audio thread is never waited on.
///
/// It sequences components that own their state: its JACK connections and their rules
/// (``EngineConnections`` with ``ConnectionRules``), isolated apps (``IsolatedApps``), the
/// bridges of link ends (``LinkSupervisor``), a satellite's link to its primary
/// (``SatelliteLink``), program apps and their admission (``ProgramApps`` with its
/// ``ProgramRoster``), health and levels (``EngineWatch`` with its ``HealthWatch`` and
/// ``LevelMeters``), what it acknowledges, kept on disk (``ChangeKeeper``), rebuilt plugin
/// libraries swapped in (``LibraryReloads``), `dump --graph`'s file (``GraphExport``), and what
/// it says happened (``EventPublisher``). A component that acts on the engine does so through a
/// protocol naming what it needs (``EngineHost``, refined by ``ProgramHost``, ``WatchHost``,
/// ``KeepingHost``, ``ReloadHost`` and ``ReportHost``). The core's own jobs, each in its own
/// file: requests (`+Requests`, with ``RequestDecoder`` and the commands it reads, performed as
/// ``CommandHost`` in `+Commands`), the control tick (`+Supervision`), being a JACK client and
/// surviving its server (`+Jack`), latency (`+Latency`) and swapping graphs (`+Changes`); what
/// the read methods report is an ``EngineReport`` made when asked. This file holds the state and
/// installs plans (``PlanInstall``).
final class EngineCore: @unchecked Sendable {
    let queue = DispatchQueue(label: "iaa.control")
    var backend: any LiveBackend
    var builder: PlanBuilder
    private(set) var sessions: AudioSessionController
    /// The graph file as last applied (for `dump --graph`, which also reflects live changes).
    private(set) var description: GraphDescription
    let clientName: String
    let serverName: String?
    /// The session clock, which every event and deadline reads.
    let clock: EngineClock
    /// What the engine says happened, to the control socket's streams and stderr.
    let publisher: EventPublisher
    /// The graph's connection rules, the connections the engine asked for, the route.
    private(set) lazy var connections = EngineConnections(host: self, clientName: clientName, queue: queue)
    /// Clients of a dead server whose close did not return in time (a known libjack hang).
    var abandoned: [any LiveBackend] = []
    /// How cycles run, applied to every backend this core adopts.
    var cycles = CycleSettings()
    /// Apps whose nodes run in child processes (`--isolation`, trusted folders, the child
    /// binary); nil keeps every node in process. Set before `startUp`.
    var isolated: IsolatedApps?
    /// The grants file in force: every applied graph is held to it too.
    var grants: Grants?
    /// Health told (xruns, stalls, faults) and levels for `top` and `meters`.
    private(set) lazy var watch = EngineWatch(host: self)
    /// JACK's buffer size as last seen (JACK also calls its callback once at activation).
    var bufferSize: Int
    /// `reload` and `iaa run --watch`: rebuilt plugin libraries swapped in.
    private(set) lazy var reloads = LibraryReloads(host: self)
    /// Program apps: the outside processes behind them, their sessions over the control socket,
    /// and programs the graph does not name (docs/programs.md).
    private(set) lazy var programs = ProgramApps(host: self)
    /// The bridges of the graph's link ends (docs/links.md).
    let links: LinkSupervisor
    /// The link to a primary engine, when this one is its satellite (`iaa run --join`).
    var satellite: SatelliteLink?
    /// Keeps acknowledged changes (docs/state.md); nil with `--no-state`.
    var keeping: ChangeKeeper?

    var graph: Graph { sessions.graph }

    init(graph: Graph, description: GraphDescription, backend: any LiveBackend, serverName: String?) throws {
        self.backend = backend
        self.description = description
        self.serverName = serverName
        clientName = backend.clientName
        bufferSize = backend.maximumFrames
        builder = PlanBuilder(sampleRate: backend.sampleRate, maximumFrames: backend.maximumFrames,
                              gainRampSeconds: graph.policy.rampSeconds)
        sessions = AudioSessionController(graph: graph)
        let clock = EngineClock()
        self.clock = clock
        publisher = EventPublisher(clock: clock)
        links = LinkSupervisor(queue: queue, clock: clock, publisher: publisher, serverName: serverName)
        // Made now rather than on first use: JACK's notification thread reaches it (`adopt`), and
        // a lazy property is not safe to make from two threads.
        _ = connections
    }

    /// Seconds since the engine started: the session clock.
    var now: Double { clock.now }

    /// Stops the engine when state is touched off its queue: every entry point from outside
    /// (a request, the tick, a notification's pass, a closed connection) checks it first, so
    /// the confinement the type's `@unchecked Sendable` promises is enforced, not assumed.
    func checkOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    /// Compiles and installs the first plan, and makes the graph's JACK connections.
    func startUp() throws -> [SessionEvent] {
        installNodeFactory(for: graph)
        return try PlanInstall(graph, builder: builder, sessions: sessions, binding: .first, on: backend, at: 0).events
    }

    /// Installs `newGraph` (same JACK client), keeping every running node whose app, type and
    /// configuration did not change, and returns the session events the change caused.
    /// An app whose plugin library was rebuilt gets a node running the new code, swapped in
    /// with a fade (``CodeSwap``); its parameters are the graph's, its ports and connections stay.
    /// With `sameSessions`, every session stays as it is; apps admitted or removed
    /// (`programs.admit`) gain or lose theirs (see `AudioSessionController.adopt`).
    func install(_ newGraph: Graph, sameSessions: Bool) throws -> [SessionEvent] {
        try installAdopting(newGraph, sameSessions: sameSessions).events
    }

    /// `install`, also returning how the sessions of apps new to the graph started.
    func installAdopting(_ newGraph: Graph, sameSessions: Bool) throws -> (events: [SessionEvent], setups: [String: SessionOutcome]) {
        installNodeFactory(for: newGraph)
        let installed = try PlanInstall(newGraph, builder: builder, sessions: sessions, binding: sameSessions ? .adopt : .replace,
                                        on: backend, at: now)
        sessions = installed.sessions
        return (installed.events, installed.setups)
    }

    /// Points the plan builder at the isolated apps' node factory, with `graph`'s crash limits.
    /// Before any plan for `graph` is built.
    private func installNodeFactory(for graph: Graph) {
        if let isolated { builder.instances.nodeFactory = isolated.nodeFactory(for: graph) }
    }

    /// A plan builder for another rate or a larger buffer: every node is prepared anew.
    func renewBuilder(sampleRate: Double, maximumFrames: Int) {
        builder = PlanBuilder(sampleRate: sampleRate, maximumFrames: maximumFrames, gainRampSeconds: graph.policy.rampSeconds)
        installNodeFactory(for: graph)
    }

    func replaceDescription(_ newDescription: GraphDescription) {
        description = newDescription
    }
}

extension EngineCore: ProgramHost {}

extension EngineCore: WatchHost {
    func programIsAway(_ app: App) -> Bool { programs.isAway(app) }
}

extension EngineCore: KeepingHost {
    func programEndPorts() -> Set<String> { programs.endPorts() }
}

extension EngineCore: ReloadHost {}

extension EngineCore: ReportHost {
    /// What the read methods report, made now.
    var report: EngineReport { EngineReport(host: self) }
}
