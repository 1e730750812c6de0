import AudioSession
import NodeKit

/// Inter-App Audio's conditions, as Apple's Audio Session Programming Guide ("Working with
/// Inter-App Audio") states them, checked over a validated graph: the validator reports them for
/// graph files, the engine for live connections. Live, the sessions' *current* options and
/// activation decide (`live:` is the running policy), not what the graph file said at load.
public enum InterAppAudioRules {
    /// One unmet condition, naming the app and what it lacks.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        public let code: GraphErrorCode
        public let app: String
        public let message: String
        public let hint: String

        public var description: String { "\(code.rawValue): \(message)" }
    }

    /// The conditions for a connection between a node app and a host app (none when neither end
    /// is a host: plain connections are not Inter-App Audio).
    public static func check(_ connection: Connection, in graph: Graph, live: SessionPolicy? = nil) -> [Violation] {
        let source = connection.from.app, destination = connection.to.app
        let sourceRole = graph.apps[source].role, destinationRole = graph.apps[destination].role
        guard sourceRole == .host || destinationRole == .host else { return [] }
        let (host, other) = destinationRole == .host ? (destination, source) : (source, destination)
        let hostApp = graph.apps[host], nodeApp = graph.apps[other]
        guard nodeApp.role == .node else {
            return [Violation(code: .notANode, app: nodeApp.id,
                              message: "app \"\(nodeApp.id)\" is not an Inter-App Audio node, so it cannot connect to host \"\(hostApp.id)\"",
                              hint: "give \"\(nodeApp.id)\" \"role\": \"node\" and a component, or connect it to a plain app such as a mixer")]
        }
        var violations: [Violation] = []
        for app in [hostApp, nodeApp] {
            violations += participation(app, live: live?.setting(of: app.id))
        }
        if !(hostApp.session?.backgroundModes.contains(.audio) ?? false) {
            violations.append(Violation(code: .missingEntitlement, app: hostApp.id,
                                        message: "host \"\(hostApp.id)\" lacks the \"audio\" background mode that hosting nodes needs",
                                        hint: "add \"backgroundModes\": [\"audio\"] to \"\(hostApp.id)\""))
        }
        if let state = live?.setting(of: hostApp.id) {
            if !state.active {
                violations.append(Violation(code: .incompatibleCategory, app: hostApp.id,
                                            message: "host \"\(hostApp.id)\" has no active session now (\(state.interrupted ? "interrupted" : "inactive")), so its inputs do not render",
                                            hint: "activate it first: iaa session \(hostApp.id) activate"))
            }
        } else if !(hostApp.session?.active ?? false) {
            violations.append(Violation(code: .incompatibleCategory, app: hostApp.id,
                                        message: "host \"\(hostApp.id)\" has no active session, so its inputs do not render",
                                        hint: "set \"active\": true in the session of \"\(hostApp.id)\""))
        }
        if nodeNeedsSession(other, in: graph) && !(nodeApp.session?.backgroundModes.contains(.audio) ?? false) {
            violations.append(Violation(code: .missingEntitlement, app: nodeApp.id,
                                        message: "node \"\(nodeApp.id)\" receives audio from its host or uses its own JACK routes, which needs the \"audio\" background mode",
                                        hint: "add \"backgroundModes\": [\"audio\"] to \"\(nodeApp.id)\""))
        }
        return violations
    }

    /// Whether a running connection still meets the conditions: those of `check` against the live
    /// sessions, and a node that needs its own session has it active (the engine activates it when
    /// it connects; deactivating or being interrupted ends the connection). The first unmet one.
    public static func liveViolation(_ connection: Connection, in graph: Graph, policy: SessionPolicy) -> Violation? {
        if let violation = check(connection, in: graph, live: policy).first { return violation }
        let source = connection.from.app, destination = connection.to.app
        let node = graph.apps[destination].role == .host ? source : destination
        let app = graph.apps[node]
        guard app.session != nil, nodeNeedsSession(node, in: graph), let state = policy.setting(of: app.id),
              !state.active else { return nil }
        return Violation(code: .incompatibleCategory, app: app.id,
                         message: "node \"\(app.id)\" receives audio from its host or uses its own routes and its session is no longer active (\(state.interrupted ? "interrupted" : "inactive"))",
                         hint: "activate it and connect again")
    }

    /// Both sides hold the `inter-app-audio` grant and a session with `mixWithOthers` (the live
    /// session's options when `live` is given).
    static func participation(_ app: App, live: SessionSetting? = nil) -> [Violation] {
        var violations: [Violation] = []
        if !(app.session?.entitlements.contains(.interAppAudio) ?? false) {
            violations.append(Violation(code: .missingEntitlement, app: app.id,
                                        message: "app \"\(app.id)\" lacks the \"inter-app-audio\" entitlement",
                                        hint: "grant it: \"entitlements\": [\"inter-app-audio\"] on \"\(app.id)\""))
        }
        guard let session = app.session else {
            violations.append(Violation(code: .incompatibleCategory, app: app.id,
                                        message: "app \"\(app.id)\" has no audio session; Inter-App Audio needs one with mixWithOthers",
                                        hint: "add \"session\": {\"category\": \"playback\", \"options\": [\"mixWithOthers\"]} to \"\(app.id)\""))
            return violations
        }
        let options = live?.options ?? session.options, category = live?.category ?? session.category
        let mixable = !options.isDisjoint(with: [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers])
        if !mixable {
            violations.append(Violation(code: .incompatibleCategory, app: app.id,
                                        message: "the session of \"\(app.id)\" (\(category.rawValue)) lacks mixWithOthers\(live == nil ? "" : " now"), which Inter-App Audio needs",
                                        hint: "add \"options\": [\"mixWithOthers\"] to its session (playback, playAndRecord or multiRoute)"))
        }
        return violations
    }

    /// A node needs its own active session while connected when it receives audio from its host
    /// or the system (an effect or music effect), or uses its own JACK routes.
    public static func nodeNeedsSession(_ node: Int, in graph: Graph) -> Bool {
        let app = graph.apps[node]
        if let type = app.component?.type, type.takesAudioInput { return true }
        let feedsFromHost = graph.connections.contains { $0.to.app == node && graph.apps[$0.from.app].role == .host }
        let ownRoutes = graph.externalConnections.contains { $0.ports.contains { $0.app == node } }
        return feedsFromHost || ownRoutes
    }

    /// The hosts a node app is connected to, in either direction.
    public static func hosts(of node: Int, in graph: Graph) -> [Int] {
        var hosts: [Int] = []
        for connection in graph.connections {
            let peer = connection.from.app == node ? connection.to.app : connection.to.app == node ? connection.from.app : nil
            if let peer, graph.apps[peer].role == .host, !hosts.contains(peer) { hosts.append(peer) }
        }
        return hosts
    }

    /// Why `layout` does not fit `type` (generator: audio out; instrument: MIDI in, audio out;
    /// effect: audio in and out; music effect: audio and MIDI in, audio out), or nil when it fits.
    public static func mismatch(_ type: ComponentDescription.ComponentType, _ layout: NodeLayout) -> String? {
        var problems: [String] = []
        if layout.outputs.isEmpty { problems.append("has no audio output") }
        if type.takesAudioInput && layout.inputs.isEmpty { problems.append("has no audio input") }
        if !type.takesAudioInput && !layout.inputs.isEmpty { problems.append("has audio inputs") }
        if type.takesMIDI && layout.midiInputs.isEmpty { problems.append("has no MIDI input") }
        if !type.takesMIDI && !layout.midiInputs.isEmpty { problems.append("has a MIDI input") }
        guard !problems.isEmpty else { return nil }
        return problems.joined(separator: " and ")
    }
}

extension InterAppAudioRules {
    /// One condition Inter-App Audio sets for a node app, and whether it holds.
    public struct Condition: Sendable, Hashable {
        public let name: String
        public let holds: Bool
    }

    /// Every condition for node app `node` to be hosted (what `iaa nodes` shows): the grant,
    /// mixWithOthers, the audio background mode when it needs its own session, a component
    /// that fits its ports.
    public static func conditions(forNode node: Int, in graph: Graph) -> [Condition] {
        let app = graph.apps[node]
        let options = app.session?.options ?? []
        var conditions = [
            Condition(name: "inter-app-audio", holds: app.session?.entitlements.contains(.interAppAudio) ?? false),
            Condition(name: "mixWithOthers",
                      holds: !options.isDisjoint(with: [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers])),
        ]
        if nodeNeedsSession(node, in: graph) {
            conditions.append(Condition(name: "audio background mode",
                                        holds: app.session?.backgroundModes.contains(.audio) ?? false))
        }
        conditions.append(Condition(name: "component fits ports",
                                    holds: app.component.map { mismatch($0.type, app.layout) == nil } ?? false))
        return conditions
    }
}
