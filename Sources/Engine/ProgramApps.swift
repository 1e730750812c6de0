import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import Nodes

/// What program apps need of the engine beyond ``EngineHost``: the links whose bridges are
/// programs too, the engine's connections (so a route it makes is attributed to it), installing
/// a graph that gained or lost an admitted app, and reading a request's app.
protocol ProgramHost: EngineHost {
    var clientName: String { get }
    var links: LinkSupervisor { get }
    var connections: EngineConnections { get }
    func install(_ newGraph: Graph, sameSessions: Bool) throws -> [SessionEvent]
    func installAdopting(_ newGraph: Graph, sameSessions: Bool) throws -> (events: [SessionEvent], setups: [String: SessionOutcome])
    func applySession(_ action: SessionAction, at time: Double) -> SessionOutcome
    /// Reads a request's app and other members with the running graph's names.
    var decoder: RequestDecoder { get }
}

/// Program apps on the JACK side (docs/programs.md): outside clients found by name, checked by
/// process, wired through their app's `play_K`/`capture_K`, kept from bypassing the engine, and
/// forgotten when they leave. JACK's notifications only queue these passes (see `adopt`).
///
/// This component owns the roster (``ProgramRoster``: the clients bound to each app, those
/// refused, the attached connections) and acts on the engine through its ``ProgramHost``.
/// Confined to the engine's control queue.
final class ProgramApps: @unchecked Sendable {
    var roster = ProgramRoster()
    unowned let host: ProgramHost

    init(host: ProgramHost) {
        self.host = host
    }

    /// Publishes one program event on the events stream and stderr.
    func publish(_ event: ProgramEvent) {
        host.publisher.announce(.event(.program(event)))
    }

    /// Finds, checks and wires every client that matches a program app now. Idempotent: a pass
    /// after any registration makes what is missing (a program registers ports as it goes).
    /// Clients no program app matches are admitted first when the graph says so (see
    /// `admitUnnamedClients`), so that the same pass binds and wires them.
    func route() {
        host.checkOnQueue()
        roster.retryDue = false
        guard host.graph.admission != nil || host.graph.apps.contains(where: { $0.program?.jackClient != nil }) else { return }
        let clients = host.backend.clientsWithPorts().filter { $0 != host.clientName }
        admitUnnamedClients(clients)
        let programApps = host.graph.apps.filter { $0.program?.jackClient != nil }
        defer { removeUnboundAdmitted() }
        for app in programApps {
            guard let binding = app.program else { continue }
            for client in clients where binding.matches(client: client) {
                if !roster.isKnown(client, app: app.id) { admit(client, to: app, binding) }
                guard let index = roster.clients[app.id]?.firstIndex(where: { $0.name == client }) else { continue }
                wire(app, clientIndex: index, binding)
            }
        }
    }

    /// Binds a newly seen client to `app`, or refuses it when its process may not be the app.
    private func admit(_ client: String, to app: App, _ binding: ProgramBinding) {
        let process = host.backend.process(ofClient: client)
        var reason: String?
        if app.link != nil {
            switch host.links.check(app.id, pid: process?.pid) {
            case .isBridge: break
            case .notYet:
                roster.retryDue = true
                return
            case .refused(let why): reason = why
            }
        } else if binding.uid != nil || binding.executable != nil {
            if let process {
                reason = binding.refusal(uid: process.uid, executable: process.executable)
            } else {
                reason = "its process cannot be found (it is not a jack2 client of this server, or has gone), and the app names a uid or executable"
            }
        }
        if let reason {
            roster.refused[app.id, default: []].append(.init(name: client, pid: process?.pid, reason: reason))
            publish(.refused(app: app.id, client: client, pid: process.map { Int($0.pid) },
                             reason: "JACK client \"\(client)\" may not be app \"\(app.id)\": \(reason)"))
            return
        }
        roster.clients[app.id, default: []].append(.init(name: client, process: process, since: host.now))
        host.links.bound(app.id, true)
    }

    /// Looks again for the process of every client bound without one (see
    /// `ProgramRoster.awaitingProcess`); `status` shows it from then on.
    func identify() {
        for (app, clients) in roster.clients {
            for (index, client) in clients.enumerated() where client.process == nil && host.now - client.since < ProgramRoster.identifyFor {
                guard let process = host.backend.process(ofClient: client.name) else { continue }
                roster.clients[app]?[index].process = process
            }
        }
    }

    /// Connects a bound client's ports to the app's ends and undoes its bypass connections.
    private func wire(_ app: App, clientIndex: Int, _ binding: ProgramBinding) {
        guard var client = roster.clients[app.id]?[clientIndex] else { return }
        let ports = host.backend.audioPorts(ofClient: client.name)
        let ends = ends(of: app)
        var made: [[String]] = []
        let pairs = PortPairing.pairs(ports.outputs, ends.plays).map { [$0, $1] }
            + PortPairing.pairs(ends.captures, ports.inputs).map { [$0, $1] }
        for pair in pairs where !host.backend.isConnected(pair[0], pair[1]) {
            if case .failed = host.connections.connect(pair[0], pair[1]).result {
                roster.retryDue = true
            } else {
                made.append(pair)
            }
        }
        // A program registers its ports as it goes: while it had one output, that one fed every
        // play end; the pairing its ports make now replaces the routes an earlier pass made.
        for stale in client.routed where !pairs.contains(stale) && host.backend.isConnected(stale[0], stale[1]) {
            _ = host.connections.disconnect(stale[0], stale[1])
        }
        let paired = Set(pairs.flatMap { $0 })
        client.unrouted = (ports.outputs + ports.inputs).filter { !paired.contains($0) }
        client.routed = pairs.filter { host.backend.isConnected($0[0], $0[1]) }
        roster.clients[app.id]?[clientIndex] = client
        if !made.isEmpty {
            publish(.routed(app: app.id, client: client.name, pid: client.process.map { Int($0.pid) },
                            connections: made.map { ConnectionEnds(from: $0[0], to: $0[1]) }, unrouted: client.unrouted))
        }
        guard binding.directConnections == .undo else { return }
        let allowed = Set(ends.plays + ends.captures)
        for port in ports.outputs + ports.inputs {
            for other in host.backend.connections(of: port) where !allowed.contains(other) {
                let (from, to) = ports.outputs.contains(port) ? (port, other) : (other, port)
                undoBypass(from, to, app: app.id, client: client.name)
            }
        }
    }

    /// The app's JACK ports at the program's end: `play_K` (inputs) and `capture_K` (outputs).
    func ends(of app: App) -> (plays: [String], captures: [String]) {
        (app.layout.inputs.filter(\.programEnd).map { host.backend.fullName("\(app.id).\($0.name)") },
         app.layout.outputs.filter(\.programEnd).map { host.backend.fullName("\(app.id).\($0.name)") })
    }

    /// A program app's own latency: the latest capture latency JACK holds for its program ends
    /// (the program's own output ports, as the program reports them), and for a receiving link
    /// the link's (zita-n2j reports none of its own).
    func latency(of app: App) -> Int {
        let backend = host.backend
        let own = app.layout.inputs.filter(\.programEnd).map { backend.captureLatency(ofPort: "\(app.id).\($0.name)") }.max() ?? 0
        return own + (app.link?.latency(sampleRate: backend.sampleRate) ?? 0)
    }

    /// Every program app's `play_K` and `capture_K` port, full names: the program block makes
    /// their connections.
    func endPorts() -> Set<String> {
        Set(host.graph.apps.flatMap { app in
            let ends = ends(of: app)
            return ends.plays + ends.captures
        })
    }

    /// A connection was made that involves a bound program's port: undone unless it is the
    /// program's route or the app allows direct connections.
    func connectionMade(_ source: String, _ destination: String) {
        for (port, other) in [(source, destination), (destination, source)] {
            guard let colon = port.firstIndex(of: ":") else { continue }
            let client = String(port[..<colon])
            guard let appID = roster.app(ofClient: client), let index = host.graph.appIndex(appID),
                  host.graph.apps[index].program?.directConnections == .undo else { continue }
            let ends = ends(of: host.graph.apps[index])
            guard !ends.plays.contains(other), !ends.captures.contains(other) else { continue }
            undoBypass(source, destination, app: appID, client: client)
            return
        }
    }

    private func undoBypass(_ source: String, _ destination: String, app: String, client: String) {
        // Only a connection to our ports is notified to the engine, so only such is noted as ours.
        let ours = [source, destination].contains { $0.hasPrefix(host.clientName + ":") }
        guard ours ? host.connections.disconnect(source, destination) : host.backend.disconnect(source, destination) else { return }
        publish(.bypassUndone(app: app, client: client, from: source, to: destination,
                              reason: "program app \"\(app)\" is heard only through its session; set \"directConnections\": \"allow\" in its program block to permit this"))
    }

    /// A client left the server: if it was a program's, the app forgets it (not running once
    /// none is left); nothing else changes.
    func clientGone(_ name: String) {
        host.checkOnQueue()
        guard let (app, client) = roster.remove(client: name) else { return }
        host.links.bound(app, false)
        publish(.exited(app: app, client: name, pid: client.process.map { Int($0.pid) }, running: !(roster.clients[app] ?? []).isEmpty))
        removeAdmittedIfGone(app, reason: "its program exited (JACK client \"\(name)\" left)")
    }

    /// A program app none of whose processes is there now (for `iaa top`).
    func isAway(_ app: App) -> Bool {
        app.program != nil && (roster.clients[app.id] ?? []).isEmpty && roster.attached[app.id] == nil
    }

    /// `status`'s `program` member of an app: nil for a node app.
    func status(of app: App) -> AppStatus.Program? {
        guard let binding = app.program else { return nil }
        return AppStatus.Program(
            jackClient: binding.jackClient, admitted: binding.admitted, running: !isAway(app),
            directConnections: binding.directConnections.rawValue,
            clients: (roster.clients[app.id] ?? []).map { client in
                AppStatus.Program.Client(name: client.name, pid: client.process.map { Int($0.pid) },
                                     ports: client.routed.map { ConnectionEnds(from: $0[0], to: $0[1]) }, unrouted: client.unrouted)
            },
            refused: (roster.refused[app.id] ?? []).map(\.status),
            attached: roster.attached[app.id].map { Int($0.process.pid) })
    }
}
