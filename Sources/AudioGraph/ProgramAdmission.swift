import AudioSession
import NodeKit

/// The graph's `programs.admit` block: programs the graph does not name that may join it as
/// program apps while it runs, each with the same default session, and where they are heard.
/// Without the block such programs are refused. docs/programs.md has the design.
public struct ProgramAdmission: Sendable {
    /// Which processes may be admitted (`jackClient` glob, `uid`, `executable`) and what each
    /// admitted app is (channels, direct connections); `admitted` is set.
    public let binding: ProgramBinding
    /// The session every admitted app starts with; its `id` is replaced by the app's.
    public let session: AppSessionSetup
    /// Inputs of the graph's own apps that each admitted app's `out_1…N` feed, paired in order
    /// (one input: every output is summed into it; one output: it feeds every input).
    public let to: [PortAddress]
    /// Outputs of the graph's own apps that feed each admitted app's `in_1…M`, paired in order.
    public let from: [PortAddress]
    /// At most this many admitted apps at once.
    public let limit: Int

    public init(binding: ProgramBinding, session: AppSessionSetup, to: [PortAddress], from: [PortAddress] = [], limit: Int = 8) {
        self.binding = binding
        self.session = session
        self.to = to
        self.from = from
        self.limit = limit
    }

    /// The most admitted apps a graph may allow at once: each is a node and up to 64 ports.
    public static let limitRange = 1...64

    /// The app admitted as `id` for a program whose JACK client is `jackClient` (nil for a program
    /// that only speaks for its session): a program app of `type` (`builtin:program`) with the
    /// block's channels, restrictions and session.
    public func app(id: String, jackClient: String?, type: NodeType) -> App {
        let program = ProgramBinding(jackClient: jackClient, uid: binding.uid, executable: binding.executable,
                                     outputs: binding.outputs, inputs: binding.inputs,
                                     directConnections: binding.directConnections, admitted: true)
        let configuration = NodeConfiguration(["outputs": program.outputs, "inputs": program.inputs])
        var setup = session
        setup.id = id
        return App(id: id, role: .app, type: type, configuration: configuration, parameters: [],
                   layout: type.layout(configuration), session: setup, program: program)
    }

    /// Whether `name` may be an app id (letters, digits, `_` and `-`), as a graph file's are.
    public static func isAppID(_ name: String) -> Bool { PortReference.isValidId(name) }

    /// An app id for a program called `name` (its JACK client name, say): the characters an id
    /// may not hold become `-`, and a number follows when `taken` says the id is in use.
    public static func appID(for name: String, taken: (String) -> Bool) -> String {
        var base = String(name.prefix(48).map { PortReference.isValidId(String($0)) ? $0 : "-" })
        if base.isEmpty { base = "program" }
        var id = base
        var number = 2
        while taken(id) {
            id = "\(base)-\(number)"
            number += 1
        }
        return id
    }
}

extension Graph {
    /// The apps the engine admitted under `programs.admit` (they follow the graph's own apps).
    public var admittedApps: [App] { apps.filter { $0.program?.admitted == true } }

    /// The graph with `app` (an admitted program app) added after every other app and connected
    /// as `programs.admit` says: its outputs to `to`, `from` to its inputs. Refused when that
    /// would close a cycle (a connection made live since the graph was checked).
    public func admitting(_ app: App) -> Result<Graph, GraphEditError> {
        guard let admission else {
            return .failure(GraphEditError(code: .unknownApp, message: "the graph admits no programs it does not name", hint: nil))
        }
        let index = apps.count
        let outs = app.layout.outputs.indices.filter { !app.layout.outputs[$0].programEnd }.map { PortAddress(app: index, port: $0) }
        let ins = app.layout.inputs.indices.filter { !app.layout.inputs[$0].programEnd }.map { PortAddress(app: index, port: $0) }
        let added = PortPairing.pairs(outs, admission.to).map { Connection(from: $0, to: $1) }
            + (ins.isEmpty || admission.from.isEmpty ? [] : PortPairing.pairs(admission.from, ins).map { Connection(from: $0, to: $1) })
        let grown = Graph(name: name, apps: apps + [app], connections: connections + added,
                          externalConnections: externalConnections, order: order, policy: policy, transport: transport,
                          exposure: exposure.addingProgramEnds(of: index, layout: app.layout), isolation: isolation,
                          admission: admission, latency: latency)
        guard case .success(let newOrder) = grown.order(for: grown.connections) else {
            return .failure(GraphEditError(code: .cycle, message: "connecting app \"\(app.id)\" as programs.admit says would close a cycle",
                                           hint: "a connection made since the graph started leads from where admitted programs are heard (\"to\") back to what they record (\"from\")"))
        }
        return .success(grown.with(connections: grown.connections, order: newOrder))
    }

    /// The graph without the admitted apps `ids` and their connections. Admitted apps follow the
    /// graph's own, so no other app's index (which connections, rules and `programs.admit`
    /// hold) changes; only later admitted apps move up.
    public func removingAdmitted(_ ids: Set<String>) -> Graph {
        var newIndex: [Int: Int] = [:]
        var kept: [App] = []
        for (index, app) in apps.enumerated() where !(ids.contains(app.id) && app.program?.admitted == true) {
            newIndex[index] = kept.count
            kept.append(app)
        }
        func moved(_ address: PortAddress) -> PortAddress? {
            newIndex[address.app].map { PortAddress(app: $0, port: address.port) }
        }
        let keptConnections = connections.compactMap { connection -> Connection? in
            guard let from = moved(connection.from), let to = moved(connection.to) else { return nil }
            return Connection(from: from, to: to, gain: connection.gain)
        }
        let keptExternals = externalConnections.compactMap { connection -> ExternalConnection? in
            let ports = connection.ports.compactMap(moved)
            guard ports.count == connection.ports.count else { return nil }
            return ExternalConnection(ports: ports, direction: connection.direction, endpoint: connection.endpoint, isMIDI: connection.isMIDI)
        }
        let shrunk = Graph(name: name, apps: kept, connections: keptConnections, externalConnections: keptExternals,
                           order: [], policy: policy, transport: transport, exposure: exposure.remapping { newIndex[$0] },
                           isolation: isolation, admission: admission, latency: latency)
        guard case .success(let newOrder) = shrunk.order(for: keptConnections) else {
            preconditionFailure("removing apps cannot create a cycle")
        }
        return shrunk.with(connections: keptConnections, order: newOrder)
    }
}

extension PortExposure {
    /// With a selective `jack.expose`, an admitted app's program ends (`play_K`, `capture_K`)
    /// are JACK ports like every program app's: they are how the program reaches the graph.
    func addingProgramEnds(of app: Int, layout: NodeLayout) -> PortExposure {
        guard patterns != nil else { return self }
        var keys = selected
        for (port, spec) in layout.inputs.enumerated() where spec.programEnd { keys.insert(Key(app: app, direction: .input, port: port)) }
        for (port, spec) in layout.outputs.enumerated() where spec.programEnd { keys.insert(Key(app: app, direction: .output, port: port)) }
        return PortExposure(patterns: patterns, selected: keys)
    }

    /// The same choices with app indices moved (`newIndex` nil: the app is gone).
    func remapping(_ newIndex: (Int) -> Int?) -> PortExposure {
        guard patterns != nil else { return self }
        return PortExposure(patterns: patterns, selected: Set(selected.compactMap { key in
            newIndex(key.app).map { Key(app: $0, direction: key.direction, port: key.port) }
        }))
    }
}
