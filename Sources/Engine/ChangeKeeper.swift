import AudioGraph
import RenderCore
import AudioSession
import ControlSocket
import StateStore

/// Where the engine keeps what it acknowledges (docs/state.md), and what it found at start.
struct Keeping {
    let keeper: StateKeeper
    /// The graph file the kept state grew from, as given to `iaa run`, and its text then.
    let source: String
    let sourceText: String
    /// What the start made of the kept state, for `status`.
    var start: KeptStart
    /// Why the snapshot a change must be kept against is not written: set when the snapshot of
    /// the graph the engine started with failed; `keep` writes it first, or refuses.
    var snapshotFailure: String?
    /// Why the last change could not be kept; nil once one is.
    var lastFailure: String?
}

/// What keeping changes needs of the engine beyond ``EngineHost``: its connection rules, the
/// connections it makes itself, the JACK ports program apps' clients use (their connections are
/// the programs', not kept), and the running graph as a file for snapshots.
protocol KeepingHost: EngineHost {
    var connections: EngineConnections { get }
    func programEndPorts() -> Set<String>
    func exportedGraph() -> String
    func enginePairs() -> Set<[String]>
}

/// Kept state, written ahead: a request's changes are worked out without making them, kept, and
/// only then made (`performRequest`). What changes as a consequence (a session a connection
/// activated, a connection a session action ended) and what JACK's tools change are kept as
/// soon as they are seen.
///
/// This component owns what keeping holds (``Keeping``: the keeper, the file the kept state
/// grew from, the start, the failures) and reads the engine through its ``KeepingHost``. The
/// engine has one while it keeps state (not with `--no-state`). Confined to the control queue.
final class ChangeKeeper: @unchecked Sendable {
    private(set) var keeping: Keeping
    unowned let host: KeepingHost

    init(_ keeping: Keeping, host: KeepingHost) {
        self.keeping = keeping
        self.host = host
    }

    /// Snapshot after this many records: replaying stays short, and the journal small.
    static let recordsPerSnapshot: Int64 = 256

    /// The durable view of the engine now, to tell what a command changed.
    struct KeptView {
        var sessions: [String: KeptSession]
        var connections: [String: KeptChange]
    }

    func view() -> KeptView {
        return KeptView(sessions: Dictionary(uniqueKeysWithValues: host.sessions.policy.states.map { ($0.id, KeptSession($0)) }),
                 connections: Dictionary(host.graph.connections.map { connection in
                     let (from, to) = host.graph.names(connection)
                     return ("\(from) \(to)", KeptChange.connect(from: from, to: to, gain: Double(connection.gain)))
                 }, uniquingKeysWith: { first, _ in first }))
    }

    /// What performing `command` will change, worked out without changing anything: a session
    /// action on a copy of the policy, connections on a copy of the graph. A command that will be
    /// refused changes nothing.
    func plannedChanges(_ command: EngineCommand, from view: KeptView) -> [KeptChange] {
        switch command {
        case .setParameter(let app, let index, let value):
            guard let appIndex = host.graph.appIndex(app) else { return [] }
            let spec = host.graph.apps[appIndex].type.parameters[index]
            return [.parameter(app: app, param: spec.name, value: Double(value))]
        case .connect(let connections):
            guard case .success = host.graph.connecting(connections, live: host.sessions.policy) else { return [] }
            return connections.map { connection in
                let (from, to) = host.graph.names(connection)
                return .connect(from: from, to: to, gain: Double(connection.gain))
            }
        case .disconnect(let connections):
            guard case .success = host.graph.disconnecting(connections) else { return [] }
            return connections.map { connection in
                let (from, to) = host.graph.names(connection)
                return .disconnect(from: from, to: to)
            }
        case .connectPorts(let pairs):
            let live = Set(host.backend.livePorts().flatMap { port in
                port.connections.map { let ends = port.ends($0); return [ends.from, ends.to] }
            })
            return pairs.filter { !live.contains([$0.source, $0.destination]) }.map(handConnection)
        case .disconnectPorts(let pairs):
            return pairs.map(handRemoval)
        case .session(let action):
            var trial = host.sessions.policy
            guard trial.apply(action, at: host.now).error == nil else { return [] }
            return trial.states.compactMap { state in
                let kept = KeptSession(state)
                return view.sessions[state.id] == kept ? nil : .session(app: state.id, kept)
            }
        case .midi, .transport, .apply:
            return []
        }
    }

    /// Keeps `changes` before they are made: on disk when this returns, or `notDurable` and
    /// nothing is changed. No snapshot is written here, even when one is due: it would say it
    /// includes these records while the graph it holds does not have their changes yet, and
    /// deleting the records with it would lose them. ``made()`` writes it once they are made.
    func keep(_ changes: [KeptChange]) throws {
        guard !changes.isEmpty else { return }
        do {
            if keeping.snapshotFailure != nil { try writeSnapshot() }
            try keeping.keeper.append(changes.map { (kind: $0.kind, body: $0.body) }, at: host.now)
            keeping.lastFailure = nil
        } catch {
            keeping.lastFailure = error.message
            throw notDurable(error.message, "nothing was changed")
        }
    }

    /// Every change kept so far is made (or undone by a record of its own): a snapshot now holds
    /// them all, so one is written if enough records are kept.
    func made() {
        snapshotWhenDue()
    }

    /// The refusal of a change that could not be kept: why, what became of the change, and what
    /// to do about it.
    func notDurable(_ why: String, _ outcome: String) -> ControlError {
        ControlError(.notDurable, "\(why); \(outcome). Free space in, or fix the permissions of, \(keeping.keeper.folder), or run the engine with --no-state")
    }

    /// The running graph as a file, to go back to if an applied one cannot be kept;
    /// `notDurable` while changes cannot be kept at all.
    func beforeApplying() throws -> String {
        if let why = keeping.keeper.unwritable ?? keeping.snapshotFailure {
            throw notDurable(why, "the graph was not applied")
        }
        return host.exportedGraph()
    }

    /// Keeps what changed without being asked for by a request of ours (a consequence, JACK's
    /// tools): it happened already, so a failure is a warning.
    func keepSeen(_ changes: [KeptChange]) {
        guard !changes.isEmpty else { return }
        do {
            try keep(changes)
        } catch {
            StandardError.warning("not kept: \(changes.map(\.kind).joined(separator: ", ")): \((error as? ControlError)?.message ?? "\(error)")")
        }
        made()
    }

    /// The changes between `view` and now that `planned` did not already keep.
    func unplannedChanges(since view: KeptView, planned: [KeptChange]) -> [KeptChange] {
        let current = self.view()
        var changes: [KeptChange] = []
        for (app, session) in current.sessions where view.sessions[app] != session {
            changes.append(.session(app: app, session))
        }
        for (key, change) in view.connections where current.connections[key] == nil {
            guard case .connect(let from, let to, _) = change else { continue }
            changes.append(.disconnect(from: from, to: to))
        }
        for (key, change) in current.connections where view.connections[key] != change { changes.append(change) }
        return changes.filter { !planned.contains($0) }
    }

    /// A JACK connection to one of our ports changed without our asking (`jack_connect`, a
    /// patchbay): kept, unless the engine makes it itself (a rule's, a program's route).
    func keepOutsideConnection(_ source: String, _ destination: String, connected: Bool) {
        let pair = [source, destination]
        if connected {
            guard !host.enginePairs().contains(pair), host.programEndPorts().isDisjoint(with: pair) else { return }
            keepSeen([handConnection(PortPair(source, destination))])
        } else {
            keepSeen([handRemoval(PortPair(source, destination))])
        }
    }

    /// Undoes what was kept for a command that was then refused (JACK refusing a connection
    /// after its record was written).
    func keepUndoing(_ planned: [KeptChange]) {
        keepSeen(planned.reversed().compactMap { change in
            switch change {
            case .jackConnect(let from, let to, let ports): .jackDisconnect(from: from, to: to, ports: ports, rule: false)
            case .jackDisconnect(let from, let to, let ports, _): .jackConnect(from: from, to: to, ports: ports)
            default: nil
            }
        })
    }

    /// Writes a snapshot of the running graph, which also empties the journal. `first`: the
    /// snapshot of the graph the engine starts with, without which no change may be kept.
    func writeSnapshot(first: Bool = false) throws(StateStoreError) {
        do {
            try keeping.keeper.writeSnapshot(source: keeping.source, sourceText: keeping.sourceText, graph: host.exportedGraph(),
                                             held: host.connections.rules.book.held.sorted { $0.joined() < $1.joined() })
            keeping.snapshotFailure = nil
            keeping.lastFailure = nil
        } catch {
            if first || keeping.snapshotFailure != nil { keeping.snapshotFailure = error.message }
            keeping.lastFailure = error.message
            throw error
        }
    }

    /// A snapshot once enough records are kept; a failure leaves the records, which still count.
    private func snapshotWhenDue() {
        guard keeping.keeper.recordsSinceSnapshot >= Self.recordsPerSnapshot else { return }
        do { try writeSnapshot() } catch { StandardError.warning("no snapshot written (the journal keeps every change): \(error.message)") }
    }

    /// The engine runs: the snapshot every later change is kept against is written, and after a
    /// resume every app with a session hears `mediaServicesWereReset` (docs/state.md, "A restart
    /// is a reset of media services").
    func started() {
        host.checkOnQueue()
        do {
            try writeSnapshot(first: true)
            if let why = keeping.keeper.unwritable { StandardError.warning("changes will be refused until the state can be kept: \(why)") }
        } catch {
            StandardError.warning("changes will be refused until the state can be kept: \(error.message)")
        }
        guard keeping.start.outcome == .resumed else { return }
        host.publisher.publish(host.graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereReset, time: host.now) })
    }

    /// The engine stops cleanly: one snapshot holds everything, and the journal is emptied.
    func stopped() {
        host.checkOnQueue()
        do { try writeSnapshot() } catch { StandardError.warning("no snapshot at exit (the journal keeps every change): \(error.message)") }
    }

    /// `status`'s `state`: where changes are kept, how many, whether they are refused, and what
    /// the start made of what was kept.
    var status: KeptStateStatus {
        let keeper = keeping.keeper
        return KeptStateStatus(journal: .init(
            folder: keeper.folder, lastChange: Int(keeper.lastSeq), sinceSnapshot: Int(keeper.recordsSinceSnapshot),
            refusing: keeper.unwritable ?? keeping.snapshotFailure ?? keeping.lastFailure, start: keeping.start.status))
    }

    /// A pair made: kept in `jack.connections`, and no longer held if a rule's.
    private func handConnection(_ pair: PortPair) -> KeptChange {
        .jackConnect(from: fileName(ofPort: pair.source), to: fileName(ofPort: pair.destination), ports: [pair.source, pair.destination])
    }

    /// A pair removed: a rule's stays removed (held); another is struck from the kept connections.
    private func handRemoval(_ pair: PortPair) -> KeptChange {
        .jackDisconnect(from: fileName(ofPort: pair.source), to: fileName(ofPort: pair.destination),
                        ports: [pair.source, pair.destination], rule: host.connections.rules.rule(of: pair.source, pair.destination, on: host.connections.ground) != nil)
    }

    /// `app:port` for one of our ports, as a graph file names it; an outside port in full.
    private func fileName(ofPort name: String) -> String {
        guard let port = host.backend.livePorts().first(where: { $0.name == name }) else { return name }
        return "\(port.appID):\(port.portName)"
    }
}
