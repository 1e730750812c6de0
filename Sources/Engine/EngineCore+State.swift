import AudioGraph
import AudioSession
import ControlSocket
import JackBackend
import NodeKit
import PluginHost

/// What the read methods report: status, dump, ports, the Graphviz picture.
extension EngineCore {
    func status() -> ControlJSON {
        let jack = jackConnectionsJSON()
        return .object([
            ("graph", .string(graph.name)),
            ("jack", .object([
                ("server", .string(serverName ?? "default")), ("client", .string(clientName)),
                ("sampleRate", .number(backend.sampleRate)), ("bufferSize", .number(Double(backend.currentBufferSize))),
                ("dspLoad", .number((backend.dspLoad * 100).rounded() / 100)),
                ("xruns", .number(Double(backend.xrunCount))), ("ourXruns", .number(Double(backend.ourXrunCount))),
                ("preemptedCycles", .number(Double(backend.preemptedOverrunCount))),
                ("cycles", .number(Double(backend.cycleCount))), ("cycleTime", cycleTimeJSON()),
                ("deadlineFaults", .number(Double(backend.deadlineFaultCount))),
                ("stalled", stallJSON()),
            ])),
            ("transport", transportJSON()),
            ("render", renderJSON()),
            ("apps", .array(graph.apps.indices.map(appJSON))),
            ("interruption", .bool(sessions.policy.states.contains { $0.interrupted })),
            ("jackConnections", jack.connections), ("rules", jack.rules),
            ("programs", admissionJSON()),
            ("satellite", satelliteJSON()),
            ("state", keptStateJSON()),
        ])
    }

    /// `status`'s `transport`: bar and beat (both from 1, as JACK counts them) and the tempo are
    /// what nodes see this cycle, JACK's timebase master's when there is one.
    private func transportJSON() -> ControlJSON {
        let transport = backend.transport
        return .object([("playing", .bool(transport.isPlaying)), ("recording", .bool(transport.isRecording)),
                        ("tempo", .number(transport.tempo)), ("beatsPerBar", .number(transport.beatsPerBar)),
                        ("bar", .number(Double(transport.bar))), ("beat", .number(transport.beatInBar.rounded(.down) + 1))])
    }

    func appJSON(_ index: Int) -> ControlJSON {
        let app = graph.apps[index]
        let hosts = app.role == .node ? InterAppAudioRules.hosts(of: index, in: graph).map { graph.apps[$0].id } : []
        var session: ControlJSON = .null
        if let state = sessions.policy.state(of: app.id) {
            guard case .object(var pairs) = SessionLog.state(state) else { return .null }
            pairs.insert(("mode", .string(state.mode.rawValue)), at: 1)
            pairs.insert(("options", .array(state.options.map(\.rawValue).sorted().map(ControlJSON.string))), at: 2)
            session = .object(pairs)
        }
        return .object([
            ("id", .string(app.id)), ("role", .string(app.role.rawValue)), ("plugin", .string(app.type.id)),
            ("component", app.component.map { .string($0.codes) } ?? .null),
            ("hosts", .array(hosts.map(ControlJSON.string))),
            ("gain", .number(Double(backend.currentPlan?.slot(for: app.id)?.policyGainTargetValue ?? 1))),
            ("muted", .bool((backend.currentPlan?.slot(for: app.id)?.isFaulted ?? false)
                            || isolatedNode(app.id).map { $0.status.state != .running } == true)),
            ("fault", faultJSON(app.id)),
            ("isolation", isolationJSON(app.id)),
            ("library", app.type.code.map { code in
                .object([("path", .string(code.library)), ("identity", .string(code.identity)),
                         ("rebuilt", .bool(LibraryFileIdentity(path: code.library).map { $0.description != code.identity } ?? false))])
            } ?? .null),
            ("outputs", outputsJSON(app.id)),
            ("latency", latencyJSON(index)),
            ("session", session),
            ("program", programJSON(app)),
            ("link", linkJSON(app)),
        ])
    }

    /// A plugin's control outputs (meters, gain reduction, latency) by symbol, or null for nodes
    /// that report none.
    private func outputsJSON(_ app: String) -> ControlJSON {
        guard let node = backend.currentPlan?.slot(for: app)?.anyNode as? any ReportingNode else { return .null }
        let readings = node.readings
        return readings.isEmpty ? .null : .object(readings.map { ($0.name, .number(Double($0.value))) })
    }

    /// The app's latency as the running plan aligns it (frames): its own, when its inputs meet
    /// (`arrival`) and its output leaves (`output`), the delay on each compensated connection
    /// into it and on an outside signal entering its ports (docs/latency.md).
    private func latencyJSON(_ index: Int) -> ControlJSON {
        guard let latency = backend.currentPlan?.latency, latency.own.count == graph.apps.count else { return .null }
        let delayed = graph.connections.indices.filter { graph.connections[$0].to.app == index && latency.delay[$0] > 0 }
        let delaysOutside = graph.apps[index].layout.inputs.indices.contains {
            CompensationLines.hasOutsideEntry(graph, app: index, port: $0)
        }
        return .object([
            ("own", .number(Double(latency.own[index]))), ("arrival", .number(Double(latency.arrival[index]))),
            ("output", .number(Double(latency.output(index)))),
            ("outside", .number(Double(delaysOutside ? latency.outsideDelay(index) : 0))),
            ("compensation", .array(delayed.map { connection in
                let (from, to) = Self.names(graph.connections[connection], in: graph)
                return .object([("from", .string(from)), ("to", .string(to)), ("delay", .number(Double(latency.delay[connection])))])
            })),
        ])
    }

    /// The threads cycles run on (docs/parallel.md): how many, whether the running plan's cycles
    /// are split now, and per worker the steps it ran and its time in the last cycle it joined.
    private func renderJSON() -> ControlJSON {
        let render = backend.renderThreads
        return .object([
            ("threads", .number(Double(render.threads))), ("split", .bool(render.split)),
            ("workers", .array(zip(render.workerSteps, render.workerBusySeconds).map { steps, busy in
                .object([("steps", .number(Double(steps))), ("busy", .number((busy * 1e8).rounded() / 100))])
            })),
        ])
    }

    /// The engine's own processing time per cycle since the client opened, in microseconds.
    private func cycleTimeJSON() -> ControlJSON {
        let times = backend.cycleTimes
        func microseconds(_ nanoseconds: Double) -> ControlJSON { .number((nanoseconds / 10).rounded() / 100) }
        return .object([("median", microseconds(times.median)), ("p99", microseconds(times.p99)),
                        ("max", microseconds(times.maximum))])
    }

    /// Why the engine stopped running an app's node, or null.
    private func faultJSON(_ app: String) -> ControlJSON {
        if let stalled = stallFaultJSON(app) { return stalled }
        guard let slot = backend.currentPlan?.slot(for: app), slot.isFaulted else { return .null }
        let fault = describeFault(slot)
        return .object([("kind", .string(fault.kind)), ("action", .string(fault.action)), ("reason", .string(fault.reason))])
    }

    func dump() -> ControlJSON {
        let device = sessions.policy.device
        return .object([
            ("graph", .string(graph.name)),
            ("apps", .array(graph.apps.indices.map(appJSON))),
            ("connections", .array(graph.connections.map { connection in
                let (from, to) = Self.names(connection, in: graph)
                return .object([("from", .string(from)), ("to", .string(to)), ("gain", .number(Double(connection.gain)))])
            })),
            ("jackConnections", .array(backend.livePorts().flatMap { port in
                port.connections.map { other in
                    .object([("from", .string(port.isInput ? other : port.name)), ("to", .string(port.isInput ? port.name : other))])
                }
            })),
            ("policy", .object([("duckLevel", .number(graph.policy.duckLevelDecibels)), ("rampTime", .number(graph.policy.rampSeconds)),
                                ("backgroundTaskTime", .number(graph.policy.backgroundTaskSeconds))])),
            ("transport", .object([("tempo", .number(graph.transport.tempo)), ("beatsPerBar", .number(graph.transport.beatsPerBar))])),
            ("device", .object([("silent", .bool(device.silent)), ("locked", .bool(device.locked)),
                                ("routeAvailable", .bool(device.routeAvailable))])),
        ])
    }

    /// `APP:PORT` names of both ends of an internal connection.
    static func names(_ connection: Connection, in graph: Graph) -> (String, String) {
        let from = graph.apps[connection.from.app], to = graph.apps[connection.to.app]
        return ("\(from.id):\(from.layout.outputs[connection.from.port].name)", "\(to.id):\(to.layout.inputs[connection.to.port].name)")
    }

    static func portJSON(_ port: LivePort) -> ControlJSON {
        PortListing(name: port.name, app: port.appID, port: port.portName, type: port.type, direction: port.isInput ? .input : .output,
                    connections: port.connections, capture: port.capture, playback: port.playback).json
    }

    /// A Graphviz picture: roles as clusters, gains on edges, ducked or suspended apps dashed.
    func dot() -> String {
        var lines = ["digraph iaa {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
        for role in AppRole.allCases {
            let members = graph.apps.filter { $0.role == role }
            guard !members.isEmpty else { continue }
            lines.append("  subgraph cluster_\(role.rawValue) {")
            lines.append("    label=\"\(role.rawValue)s\";")
            for app in members {
                let state = sessions.policy.state(of: app.id)
                let dashed = (state?.ducked ?? false) || (state?.suspended ?? false)
                let detail = state.map { "\\n\($0.category.rawValue)\($0.audible ? "" : " (silent)")" } ?? ""
                // An admitted program is not in the graph file: dotted, and said so.
                let admitted = app.program?.admitted == true
                let kind = admitted ? "admitted program \(app.program?.jackClient ?? "")" : app.type.id
                let style = admitted ? ", style=\"rounded,dotted\"" : dashed ? ", style=\"rounded,dashed\"" : ""
                lines.append("    \"\(app.id)\" [label=\"\(app.id)\\n\(kind)\(detail)\"\(style)];")
            }
            lines.append("  }")
        }
        for connection in graph.connections {
            let (from, to) = Self.names(connection, in: graph)
            let label = connection.gain == 1 ? "" : " label=\"\(connection.gain)\""
            lines.append("  \"\(graph.apps[connection.from.app].id)\" -> \"\(graph.apps[connection.to.app].id)\" [tooltip=\"\(from) -> \(to)\"\(label)];")
        }
        lines += jackDotLines()
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
