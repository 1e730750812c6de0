import AudioGraph
import ControlSocket
import Foundation
import JackBackend
import Suggestions

/// The graph's `jack.connections` as rules the engine keeps true, as jack-plumbing and
/// aj-snapshot users expect: a rule's connection is made when both of its ports exist, and again
/// after the program on the other end restarts (its ports appear again). A rule whose port does
/// not exist stays pending and says so in `status` and `graph`.
///
/// A connection someone removes by hand (`jack_disconnect`, a patchbay, `iaa disconnect`) stays
/// removed — unplugging is a deliberate act, and it is how a route change is tested — until the
/// program at its outside end registers a port or restarts, or the graph is applied again: the
/// moments jack-plumbing, which re-runs its rules when ports appear, would make it again too.
///
/// This component owns what the rules remember (``RuleBook``: pairs removed by hand, refusals
/// and their warnings); each call is given the ground it works on (the running graph and the
/// JACK side now), and the engine's ledger of its own requests when it connects.
struct ConnectionRules {
    var book = RuleBook()

    /// What the rules are kept against: the running graph, the server as it is now, and the
    /// engine's client name (its own ports are `CLIENT:app.port`).
    struct Ground {
        let graph: Graph
        let backend: any LiveBackend
        let clientName: String
    }

    /// One rule as it stands now.
    struct RuleState {
        /// `APP:PORT -> ENDPOINT`, as the graph file and `apply`'s diff write it.
        let rule: String
        /// The JACK port pairs it stands for against the ports present now, and whether each is made.
        let pairs: [(source: String, destination: String, made: Bool)]
        /// The outside end when no port matches it now (`mpv:out_0`, `@playback`).
        let waitingFor: String?
        /// The app whose ports the rule connects, and whether they are its outputs.
        let app: String
        let outgoing: Bool

        /// Pairs removed by hand and left alone (``RuleBook``).
        let removed: Set<[String]>

        /// Where a rule stands, in `status`'s words.
        typealias State = RuleStatus.State

        var state: State {
            if waitingFor != nil { return .pending }
            let missing = pairs.filter { !$0.made }
            if missing.isEmpty { return .made }
            return missing.allSatisfy { removed.contains([$0.source, $0.destination]) } ? .removed : .refused
        }
    }

    /// Every rule of the running graph as it stands now.
    func states(on ground: Ground) -> [RuleState] {
        let graph = ground.graph, backend = ground.backend
        return graph.externalConnections.map { connection in
            let resolved = backend.portPairs(connection, in: graph)
            let pairs = resolved.pairs.map { ($0.source, $0.destination, backend.isConnected($0.source, $0.destination)) }
            return RuleState(rule: GraphDiff.text(connection, in: graph), pairs: pairs,
                             waitingFor: resolved.unmatched.isEmpty ? nil : "\(connection.endpoint)",
                             app: connection.ports.first.map { graph.apps[$0.app].id } ?? "",
                             outgoing: connection.direction == .toExternal, removed: book.held)
        }
    }

    /// Makes every connection of `connections` that is not made yet, noting each request in
    /// `ledger`; returns what JACK answered for each one it tried. A refusal is remembered and
    /// retried on the clock tick.
    @discardableResult
    mutating func make(_ connections: [ExternalConnection], on ground: Ground, ledger: inout ConnectionLedger,
                       at now: Double) -> [ConnectionOutcome] {
        let backend = ground.backend
        var outcomes: [ConnectionOutcome] = []
        var current: Set<[String]> = []
        for connection in connections {
            for pair in backend.portPairs(connection, in: ground.graph).pairs.map({ [$0.source, $0.destination] }) {
                current.insert(pair)
                guard book.shouldMake(pair) else { continue }
                guard !backend.isConnected(pair[0], pair[1]) else {
                    book.made(pair)
                    continue
                }
                let outcome = ledger.connect(pair, on: backend)
                if case .failed = outcome.result {
                    book.refused(pair, at: now)
                } else {
                    book.made(pair)
                }
                outcomes.append(outcome)
            }
        }
        if connections.count == ground.graph.externalConnections.count { book.keep(only: current) }
        return outcomes
    }

    /// A port or client appeared, a rule's connection was removed, or a refused one is due for
    /// another try: makes every rule true again. Warns once about a connection JACK keeps
    /// refusing for two seconds (a program is refused only until it activates).
    mutating func keep(on ground: Ground, ledger: inout ConnectionLedger, at now: Double) {
        for outcome in make(ground.graph.externalConnections, on: ground, ledger: &ledger, at: now) {
            guard case .failed = outcome.result, book.shouldWarn([outcome.source, outcome.destination], at: now) else { continue }
            StandardError.warning("\(outcome)")
        }
    }

    /// Someone other than the engine removed a JACK connection: when a rule stands for it, it is
    /// left alone until its outside end appears again (``RuleBook``).
    mutating func removedByHand(_ source: String, _ destination: String, on ground: Ground) {
        guard rule(of: source, destination, on: ground) != nil else { return }
        book.hold([source, destination])
    }

    /// The rule that stands for the JACK connection `source -> destination`, if one does.
    func rule(of source: String, _ destination: String, on ground: Ground) -> String? {
        for connection in ground.graph.externalConnections
        where ground.backend.portPairs(connection, in: ground.graph).pairs.contains(where: { $0.source == source && $0.destination == destination }) {
            return GraphDiff.text(connection, in: ground.graph)
        }
        return nil
    }

    /// A warning for each of `connections` whose outside port is missing now: the rule, the
    /// port, and the closest live port names, since a typo would otherwise wait forever.
    func pendingWarnings(_ connections: [ExternalConnection], on ground: Ground) -> [String] {
        let live = ground.backend.allPortNames().filter { !$0.hasPrefix(ground.clientName + ":") }
        return connections.compactMap { connection in
            guard !ground.backend.portPairs(connection, in: ground.graph).unmatched.isEmpty else { return nil }
            let rule = "jack.connections rule \"\(GraphDiff.text(connection, in: ground.graph))\""
            let pending = "the rule stays pending and is made when the port appears"
            guard case .port(let name) = connection.endpoint else {
                return "\(rule): no \(connection.endpoint) ports exist now; \(pending)"
            }
            let close = Self.closestPorts(to: name, in: live)
            let suggestion = close.isEmpty ? "no live port is close (jack_lsp lists them)"
                : "did you mean " + close.map { "\"\($0)\"" }.joined(separator: " or ") + "?"
            return "\(rule): no JACK port \"\(name)\" exists now (\(suggestion)); \(pending)"
        }
    }

    /// Up to three live port names nearest to `name`: those of the same client first, then by
    /// edit distance, within a third of the name's length (at least 3 edits).
    static func closestPorts(to name: String, in live: [String]) -> [String] {
        let limit = max(3, name.count / 3)
        let client = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
        let scored = live.map { (port: $0, distance: Suggestion.editDistance(name, $0)) }
        let near = scored.filter { $0.distance <= limit }.sorted { ($0.distance, $0.port) < ($1.distance, $1.port) }
        if !near.isEmpty { return Array(near.prefix(3).map(\.port)) }
        return Array(live.filter { $0.hasPrefix(client + ":") }.prefix(3))
    }

    /// Status's view of the JACK side: every connection to our ports (made by a rule or from
    /// outside) and every rule with its state.
    /// `routedBy`: the connections the engine made for program apps, by pair.
    func status(on ground: Ground, routedBy: [[String]: String]) -> (connections: [JackConnectionStatus], rules: [RuleStatus]) {
        let states = states(on: ground)
        var byRule: [[String]: String] = [:]
        for state in states { for pair in state.pairs { byRule[[pair.source, pair.destination]] = state.rule } }
        let connections = ground.backend.livePorts().flatMap { port in
            port.connections.map { other in
                let (from, to) = port.ends(other)
                return JackConnectionStatus(from: from, to: to, rule: byRule[[from, to]], program: routedBy[[from, to]])
            }
        }
        let rules = states.map { state in
            RuleStatus(rule: state.rule, state: state.state, waitingFor: state.waitingFor,
                       connections: state.pairs.map { RuleStatus.Connection(from: $0.source, to: $0.destination, made: $0.made) })
        }
        return (connections, rules)
    }

    /// The JACK side of `graph`'s picture: outside ports as ellipses; a rule's connection solid
    /// (dashed: grey while removed by hand, red while JACK refuses it), a pending rule dashed grey
    /// to the port it waits for, a program's route bold blue, a connection made by hand dotted.
    func dotLines(on ground: Ground, routedBy: [[String]: String]) -> [String] {
        let ours = Dictionary(ground.backend.livePorts().map { ($0.name, $0.appID) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        var outside: Set<String> = []
        func edge(_ from: String, _ to: String, _ style: String, _ tooltip: String) {
            let app = ours[from] ?? ours[to]
            guard let app else { return }
            let other = ours[from] == nil ? from : to
            outside.insert(other)
            let ends = ours[from] != nil ? "\"\(app)\" -> \"\(other)\"" : "\"\(other)\" -> \"\(app)\""
            lines.append("  \(ends) [\(style), tooltip=\"\(tooltip)\"];")
        }
        var ruled: Set<[String]> = []
        for state in states(on: ground) {
            for pair in state.pairs {
                ruled.insert([pair.source, pair.destination])
                let removed = state.removed.contains([pair.source, pair.destination])
                edge(pair.source, pair.destination,
                     pair.made ? "style=solid" : removed ? "style=dashed, color=grey, label=\"removed\"" : "style=dashed, color=red, label=\"refused\"",
                     "rule \(state.rule)")
            }
            if let waiting = state.waitingFor {
                outside.insert(waiting)
                let ends = state.outgoing ? "\"\(state.app)\" -> \"\(waiting)\"" : "\"\(waiting)\" -> \"\(state.app)\""
                lines.append("  \(ends) [style=dashed, color=grey, label=\"pending\", tooltip=\"rule \(state.rule): waiting for \(waiting)\"];")
            }
        }
        for port in ground.backend.livePorts() {
            for other in port.connections {
                let (from, to) = port.ends(other)
                guard !ruled.contains([from, to]), ours[other] == nil else { continue }
                if let app = routedBy[[from, to]] {
                    edge(from, to, "style=bold, color=blue", "\(from) -> \(to), the route of program app \(app)")
                } else {
                    edge(from, to, "style=dotted", "\(from) -> \(to), made outside the graph file")
                }
            }
        }
        let nodes = outside.sorted().map { "  \"\($0)\" [shape=ellipse, style=solid];" }
        return nodes.isEmpty ? [] : ["  subgraph cluster_jack {", "    label=\"JACK\";"] + nodes.map { "  " + $0 } + ["  }"] + lines
    }
}
