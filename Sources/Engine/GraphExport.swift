import AudioGraph
import RenderCore
import AudioSession
import ControlSocket
import GraphFormat
import NodeKit

/// `dump --graph`: the running graph as a graph file, with the changes made live (connections,
/// parameter values, session categories and activity, JACK connections made by anyone), which
/// `iaa validate` accepts and `iaa run` turns back into the same engine. Made from what the
/// engine holds at the moment it is asked (``EngineCore/exportedGraph()`` gathers it).
struct GraphExport {
    let graph: Graph
    /// The graph file as last applied: its `jack.connections` are written as it wrote them.
    let description: GraphDescription
    let clientName: String
    /// The engine's JACK ports now, with their connections.
    let ports: [LivePort]
    /// The connections the engine makes by itself from other parts of the graph (its rules'
    /// and its programs' routes), which the file makes again and so does not list.
    let madeByEngine: Set<[String]>
    /// Every program app's `play_K` and `capture_K` port, full names.
    let programEnds: Set<String>
    /// The running plan: parameter values and plugin state as they are now.
    let plan: RenderPlan?
    let sessions: SessionPolicy

    var text: String {
        var lines = ["{", "  \"format\": \"iaa-graph/1\",", "  \"name\": \(ControlJSON.string(graph.name).text),"]
        lines.append("  \"policy\": " + ControlJSON.object([
            ("duckLevel", .number(graph.policy.duckLevelDecibels)), ("rampTime", .number(graph.policy.rampSeconds)),
            ("backgroundTaskTime", .number(graph.policy.backgroundTaskSeconds)),
        ]).text + ",")
        lines.append("  \"transport\": " + ControlJSON.object([
            ("tempo", .number(graph.transport.tempo)), ("beatsPerBar", .number(graph.transport.beatsPerBar)),
            ("playing", .bool(graph.transport.playing)), ("timebaseMaster", .bool(graph.transport.timebaseMaster)),
        ]).text + ",")
        // Written only when off, so a graph that left it alone dumps as before.
        if !graph.latency.compensate {
            lines.append("  \"latency\": " + ControlJSON.object([("compensate", .bool(false))]).text + ",")
        }
        // Apps admitted under `programs.admit` are not written: the block is, and running the
        // file admits their programs again when they appear.
        let admitted = Set(graph.admittedApps.map(\.id))
        if let admission = admissionBlock() { lines.append("  \"programs\": " + ControlJSON.object([("admit", admission)]).text + ",") }
        lines.append("  \"apps\": [")
        lines.append(graph.apps.filter { !admitted.contains($0.id) }.map { "    " + exported($0).text }.joined(separator: ",\n"))
        lines.append("  ],")
        lines.append("  \"connections\": [")
        lines.append(graph.connections.filter {
            !admitted.contains(graph.apps[$0.from.app].id) && !admitted.contains(graph.apps[$0.to.app].id)
        }.map { connection in
            let (from, to) = graph.names(connection)
            var pairs: [(String, ControlJSON)] = [("from", .string(from)), ("to", .string(to))]
            if connection.gain != 1 { pairs.append(("gain", .number(Double(connection.gain)))) }
            return "    " + ControlJSON.object(pairs).text
        }.joined(separator: ",\n"))
        lines.append("  ],")
        let jack = jackConnections(skipping: admitted)
        let expose = graph.exposure.patterns.map { patterns in
            ", \"expose\": " + (patterns.isEmpty ? ControlJSON.string("none") : ControlJSON.array(patterns.map(ControlJSON.string))).text
        } ?? ""
        lines.append("  \"jack\": {\"client\": \(ControlJSON.string(clientName).text)\(expose), \"connections\": [")
        lines.append(jack.map { "    " + $0.text }.joined(separator: ",\n"))
        lines.append("  ]}")
        lines.append("}")
        return lines.filter { !$0.isEmpty }.joined(separator: "\n") + "\n"
    }

    /// `jack.connections`: the graph's rules as its file wrote them (`@playback`, globs), then
    /// every other connection to an app's port as it is now, outside names in full, so a
    /// connection made by hand is kept. Not written: what the engine makes by itself from other
    /// parts of the file (its rules' connections, and a program's route to its app's
    /// `play_K`/`capture_K`, which the program block makes again), the ports of admitted apps,
    /// and a connection between two of the engine's own ports twice.
    private func jackConnections(skipping admitted: Set<String>) -> [ControlJSON] {
        var rules: [ControlJSON] = description.jack.connections.compactMap { rule in
            guard let from = rule.from, let to = rule.to else { return nil }
            return .object([("from", .string(from)), ("to", .string(to))])
        }
        let ends = programEnds
        let ours = Dictionary(ports.map { ($0.name, $0.appID) }, uniquingKeysWith: { first, _ in first })
        for port in ports where !admitted.contains(port.appID) && !ends.contains(port.name) {
            for other in port.connections {
                let (from, to) = port.ends(other)
                guard !madeByEngine.contains([from, to]), !ends.contains(other),
                      ours[other].map({ !port.isInput && !admitted.contains($0) }) ?? true else { continue }
                let name = "\(port.appID):\(port.portName)"
                rules.append(.object(port.isInput ? [("from", .string(other)), ("to", .string(name))]
                                                  : [("from", .string(name)), ("to", .string(other))]))
            }
        }
        return rules
    }

    /// The plugin's state as it is now; the state it was created with when saving fails (with a
    /// warning, so the dump does not silently lose what the plugin holds).
    private func pluginState(of app: App, slot: NodeSlot?) -> String? {
        guard let node = slot?.anyNode as? any StatefulNode else { return app.configuration.state }
        do {
            return try node.savedState()
        } catch {
            StandardError.warning("\(app.id): \(error); its pluginState is the one it was created with")
            return app.configuration.state
        }
    }

    /// The `programs.admit` block as the graph file wrote it (ports by name), or nil.
    private func admissionBlock() -> ControlJSON? {
        guard let admission = graph.admission else { return nil }
        let binding = admission.binding, setup = admission.session
        var block: [(String, ControlJSON)] = []
        if let client = binding.jackClient { block.append(("jackClient", .string(client))) }
        if let uid = binding.uid { block.append(("uid", .number(Double(uid)))) }
        if let executable = binding.executable { block.append(("executable", .string(executable))) }
        block += [("outputs", .number(Double(binding.outputs))), ("inputs", .number(Double(binding.inputs))),
                  ("directConnections", .string(binding.directConnections.rawValue))]
        let options = KeptSession.writtenOptions(setup.options, category: setup.category)
        block.append(("session", .object([
            ("category", .string(setup.category.rawValue)), ("mode", .string(setup.mode.rawValue)),
            ("options", .array(options.map(\.rawValue).sorted().map(ControlJSON.string))), ("active", .bool(setup.active)),
        ])))
        block.append(("entitlements", .array(setup.entitlements.map(\.rawValue).sorted().map(ControlJSON.string))))
        if !setup.requestedEntitlements.isEmpty {
            block.append(("requires", .array(setup.requestedEntitlements.map(\.rawValue).sorted().map(ControlJSON.string))))
        }
        block.append(("backgroundModes", .array(setup.backgroundModes.map(\.rawValue).sorted().map(ControlJSON.string))))
        func names(_ ports: [PortAddress], output: Bool) -> ControlJSON {
            .array(ports.map { address in
                let app = graph.apps[address.app]
                return .string("\(app.id):\((output ? app.layout.outputs : app.layout.inputs)[address.port].name)")
            })
        }
        block.append(("to", names(admission.to, output: false)))
        if !admission.from.isEmpty { block.append(("from", names(admission.from, output: true))) }
        block.append(("limit", .number(Double(admission.limit))))
        return .object(block)
    }

    /// A link end's block as the graph file writes it.
    private func exported(_ link: LinkEnd) -> ControlJSON {
        var block: [(String, ControlJSON)] = [(link.direction.rawValue, .string(link.address)), ("channels", .number(Double(link.channels)))]
        switch link.direction {
        case .receive:
            block.append(("buffer", .number(Double(link.bufferMilliseconds))))
            if let from = link.from { block.append(("from", .string(from))) }
        case .send: block.append(("format", .string(link.format.rawValue)))
        }
        return .object(block)
    }

    private func exported(_ app: App) -> ControlJSON {
        var pairs: [(String, ControlJSON)] = [("id", .string(app.id)), ("role", .string(app.role.rawValue))]
        if let link = app.link {
            pairs.append(("link", exported(link)))
        } else if let program = app.program {
            // The program block carries the channels; the node type is what it makes.
            var block: [(String, ControlJSON)] = []
            if let client = program.jackClient { block.append(("jackClient", .string(client))) }
            if let uid = program.uid { block.append(("uid", .number(Double(uid)))) }
            if let executable = program.executable { block.append(("executable", .string(executable))) }
            block += [("outputs", .number(Double(program.outputs))), ("inputs", .number(Double(program.inputs))),
                      ("directConnections", .string(program.directConnections.rawValue))]
            pairs.append(("program", .object(block)))
        } else {
            pairs.append(("plugin", .string(app.type.id)))
        }
        let slot = plan?.slot(for: app.id)
        var params: [(String, ControlJSON)] = app.type.parameters.enumerated().map { index, spec in
            (spec.name, .number(Double(slot?.parameterTarget(index) ?? app.parameters[index])))
        }
        if app.program == nil {
            params += app.configuration.values.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }
        }
        if !params.isEmpty { pairs.append(("params", .object(params))) }
        if let state = pluginState(of: app, slot: slot) { pairs.append(("pluginState", .string(state))) }
        if app.role == .node, let component = app.component {
            pairs.append(("component", .object([("type", .string(component.type.rawValue)), ("subtype", .string(component.subtype)),
                                                ("manufacturer", .string(component.manufacturer)), ("name", .string(component.name)),
                                                ("version", .number(Double(component.version)))])))
        }
        if let setup = app.session, let state = sessions.state(of: app.id) {
            let kept = KeptSession(state)
            pairs.append(("session", .object(kept.pairs.filter { $0.0 != "foreground" })))
            pairs.append(("entitlements", .array(setup.entitlements.map(\.rawValue).sorted().map(ControlJSON.string))))
            if !setup.requestedEntitlements.isEmpty {
                pairs.append(("requires", .array(setup.requestedEntitlements.map(\.rawValue).sorted().map(ControlJSON.string))))
            }
            pairs.append(("backgroundModes", .array(setup.backgroundModes.map(\.rawValue).sorted().map(ControlJSON.string))))
            pairs.append(("state", .string(state.foreground ? "foreground" : "background")))
        }
        return .object(pairs)
    }
}
