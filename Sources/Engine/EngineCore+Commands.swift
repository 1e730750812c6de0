import AudioGraph
import RenderCore
import AudioSession
import ControlSocket
import Foundation

/// The live engine performs commands (``CommandHost``) on JACK; `set`, `connect`, `disconnect`
/// and the session methods are one command each, read by ``RequestDecoder``.
extension EngineCore: CommandHost {
    var controlBackend: any ControlBackend { backend }

    func carryingAdmitted(into graph: Graph) -> (graph: Graph, dropped: [String]) {
        programs.carryingAdmitted(into: graph)
    }

    var decoder: RequestDecoder {
        let backend = backend, graph = graph
        // `@playback` and `@capture` as the graph's rules resolve them: the link bridges left out.
        return RequestDecoder(graph: graph, clientName: clientName, fullName: backend.fullName,
                              outsidePorts: { backend.ports(of: $0, in: graph) })
    }

    /// Live, a plan goes in now, whatever time the command names.
    func install(_ graph: Graph, sameSessions: Bool, at time: Double) throws -> [SessionEvent] {
        try install(graph, sameSessions: sameSessions)
    }

    /// Installs `graph` after the gain ramp, unless its connections changed meanwhile.
    func installAfterFade(_ graph: Graph, at time: Double) {
        queue.asyncAfter(deadline: .now() + graph.policy.rampSeconds + 0.005) { [self] in
            // An app admitted or removed meanwhile makes `graph` stale too; a `set` meanwhile is
            // in the running graph.
            if self.graph.connections == graph.connections, self.graph.apps.map(\.id) == graph.apps.map(\.id) {
                _ = try? install(self.graph, sameSessions: true)
            }
        }
    }

    func willConnectPorts(_ pair: PortPair) {
        connections.willConnect(pair)
    }

    func willDisconnectPorts(_ pair: PortPair) {
        connections.willDisconnect(pair)
    }

    func willApply(_ graph: Graph) {
        let kept = Set(graph.externalConnections.map { "\($0)" })
        let dropped = self.graph.externalConnections.filter { !kept.contains("\($0)") }
        for pair in backend.disconnect(dropped, in: self.graph) { connections.asking(pair.source, pair.destination, connecting: false) }
    }

    func didApply(_ graph: Graph, diff: GraphDiff, events: [SessionEvent], droppedAdmitted: [String]) -> [String] {
        publisher.publish(events)
        for id in Set(programs.roster.clients.keys).union(programs.roster.attached.keys).union(programs.roster.refused.keys) where graph.appIndex(id) == nil {
            programs.roster.forget(app: id)
        }
        for id in droppedAdmitted { programs.publish(.removed(app: id, reason: "the applied graph does not admit it")) }
        reloads.announce(diff.appsReloaded, by: .apply)
        reloads.watchFolders()
        // Every rule, not only the new ones: a pending rule is reported again, a removed one remade.
        let warnings = connections.make(graph.externalConnections)
        for warning in warnings { StandardError.warning(warning) }
        // Program apps the new graph names (or admits) are routed now, not at the next registration.
        programs.roster.unadmitted = []
        links.follow(graph)
        programs.route()
        return warnings
    }

    /// Performs the command `request` asks for, now, and replies with what it did.
    func performRequest(_ method: ControlMethod, _ request: ControlRequest) throws -> ControlReply {
        let command = try decoder.command(method, request)
        // Kept before it is made (docs/state.md): a change that cannot be kept is not made.
        let before = keeping?.view()
        let planned = before.flatMap { keeping?.plannedChanges(command, from: $0) } ?? []
        try keeping?.keep(planned)
        let outcome = try perform(command, at: now)
        if outcome.refusal != nil { keeping?.keepUndoing(planned) }
        if let before, let keeping { keeping.keepSeen(keeping.unplannedChanges(since: before, planned: planned)) }
        // Only now, with the change made, may a snapshot include its record.
        keeping?.made()
        publisher.publish(outcome.events)
        if method.isSessionAction { return outcome.sessionReply(sessions: sessions.policy.states) }
        if let refusal = outcome.refusal { throw ControlError(refusal) }
        if case .setParameter = command { followLatencySoon() }
        return .result(outcome.reply(to: command, in: graph))
    }
}
