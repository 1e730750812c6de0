import AudioGraph
import AudioSession
import Isolation
import ControlSocket
import JackBackend
import NodeKit
import PluginHost

/// What reporting needs of the engine beyond ``EngineHost``: everything else `status` shows,
/// read as it is at the moment of the request.
protocol ReportHost: EngineHost {
    var serverName: String? { get }
    var clientName: String { get }
    var programs: ProgramApps { get }
    var links: LinkSupervisor { get }
    var connections: EngineConnections { get }
    var satellite: SatelliteLink? { get }
    var keeping: ChangeKeeper? { get }
    var watch: EngineWatch { get }
    var isolated: IsolatedApps? { get }
    var decoder: RequestDecoder { get }
}

/// What the read methods report: `status`, `dump`, `ports`, `get`, the Graphviz picture; made from the
/// engine as it is when asked, and holding nothing of its own.
struct EngineReport {
    unowned let host: ReportHost

    /// `get`: the app's parameters, or the one `param` names, as they are now.
    func parameters(_ request: ControlRequest) throws -> ParameterReading {
        let (_, app) = try host.decoder.app(request)
        let slot = host.backend.currentPlan?.slot(for: app.id)
        var specs = Array(app.type.parameters.enumerated())
        if let name = request["param"]?.stringValue {
            specs = specs.filter { $0.element.name == name }
            guard !specs.isEmpty else { throw host.decoder.unknownParameter(name, of: app) }
        }
        return ParameterReading(app: app.id, parameters: specs.map { index, spec in
            .init(name: spec.name, value: Double(slot?.parameterTarget(index) ?? spec.defaultValue), min: Double(spec.range.lowerBound),
                  max: Double(spec.range.upperBound), defaultValue: Double(spec.defaultValue), unit: spec.unit.rawValue)
        })
    }

    func status() -> StatusReply {
        var jack = JackStatus(server: host.serverName ?? "default", client: host.clientName)
        jack.sampleRate = host.backend.sampleRate
        jack.bufferSize = host.backend.currentBufferSize
        jack.dspLoad = (host.backend.dspLoad * 100).rounded() / 100
        jack.xruns = Int(host.backend.xrunCount)
        jack.ourXruns = Int(host.backend.ourXrunCount)
        jack.preemptedCycles = Int(host.backend.preemptedOverrunCount)
        jack.cycles = Int(host.backend.cycleCount)
        jack.cycleTime = cycleTime()
        jack.deadlineFaults = Int(host.backend.deadlineFaultCount)
        jack.stalled = host.watch.stall()
        let connections = host.connections.rules.status(on: host.connections.ground, routedBy: host.programs.roster.routedBy)
        return StatusReply(graph: host.graph.name, jack: jack, transport: transportStatus(), render: renderStatus(),
                           apps: host.graph.apps.indices.map(appStatus),
                           interruption: host.sessions.policy.states.contains { $0.interrupted },
                           jackConnections: connections.connections, rules: connections.rules, programs: host.programs.admissionStatus(),
                           satellite: host.satellite?.status, state: host.keeping?.status ?? KeptStateStatus())
    }

    /// `status`'s `transport`: bar and beat (both from 1, as JACK counts them) and the tempo are
    /// what nodes see this cycle, JACK's timebase master's when there is one.
    private func transportStatus() -> TransportStatus {
        let transport = host.backend.transport
        return TransportStatus(playing: transport.isPlaying, recording: transport.isRecording, tempo: transport.tempo,
                               beatsPerBar: transport.beatsPerBar, bar: Int(transport.bar),
                               beat: Int(transport.beatInBar.rounded(.down)) + 1)
    }

    func appStatus(_ index: Int) -> AppStatus {
        let app = host.graph.apps[index]
        var status = AppStatus(id: app.id, role: app.role.rawValue, plugin: app.type.id)
        status.component = app.component?.codes
        status.hosts = app.role == .node ? InterAppAudioRules.hosts(of: index, in: host.graph).map { host.graph.apps[$0].id } : []
        let slot = host.backend.currentPlan?.slot(for: app.id)
        status.gain = Double(slot?.policyGainTargetValue ?? 1)
        status.muted = (slot?.isFaulted ?? false) || host.isolated?.node(app.id).map { $0.status.state != .running } == true
        status.fault = fault(app.id)
        status.isolation = host.isolated?.status(app.id)
        status.library = app.type.code.map { code in
            AppStatus.Library(path: code.library, identity: code.identity,
                              rebuilt: LibraryFileIdentity(path: code.library).map { $0.description != code.identity } ?? false)
        }
        status.outputs = outputs(app.id)
        status.latency = latency(index)
        status.session = host.sessions.policy.state(of: app.id).map(SessionLog.status)
        // A satellite's app is heard at the gain its primary decided (docs/links.md), not at its
        // own policy's: its session says so too, as its output and `gain` do.
        if var session = status.session, let decided = host.sessions.primaryGain(of: app.id) {
            session.gain = Double(decided)
            session.ducked = session.active && decided > 0 && decided < 1
            status.session = session
        }
        status.program = host.programs.status(of: app)
        status.link = host.links.status(of: app, sampleRate: host.backend.sampleRate)
        return status
    }

    /// A plugin's control outputs (meters, gain reduction, latency) by symbol, or nil for nodes
    /// that report none.
    private func outputs(_ app: String) -> [AppStatus.Reading]? {
        guard let node = host.backend.currentPlan?.slot(for: app)?.anyNode as? any ReportingNode else { return nil }
        let readings = node.readings
        return readings.isEmpty ? nil : readings.map { AppStatus.Reading(name: $0.name, value: Double($0.value)) }
    }

    /// The app's latency as the running plan aligns it (frames): its own, when its inputs meet
    /// (`arrival`) and its output leaves (`output`), the delay on each compensated connection
    /// into it and on an outside signal entering its ports (docs/latency.md).
    private func latency(_ index: Int) -> AppStatus.Latency? {
        guard let latency = host.backend.currentPlan?.latency, latency.own.count == host.graph.apps.count else { return nil }
        let delayed = host.graph.connections.indices.filter { host.graph.connections[$0].to.app == index && latency.delay[$0] > 0 }
        let delaysOutside = host.graph.apps[index].layout.inputs.indices.contains {
            CompensationLines.hasOutsideEntry(host.graph, app: index, port: $0)
        }
        return AppStatus.Latency(
            own: latency.own[index], arrival: latency.arrival[index], output: latency.output(index),
            outside: delaysOutside ? latency.outsideDelay(index) : 0,
            compensation: delayed.map { connection in
                let (from, to) = host.graph.names(host.graph.connections[connection])
                return AppStatus.Latency.Compensation(from: from, to: to, delay: latency.delay[connection])
            })
    }

    /// The threads cycles run on (docs/parallel.md): how many, whether the running plan's cycles
    /// are split now, and per worker the steps it ran and its time in the last cycle it joined.
    private func renderStatus() -> RenderStatus {
        let render = host.backend.renderThreads
        return RenderStatus(threads: render.threads, split: render.split,
                            workers: zip(render.workerSteps, render.workerBusySeconds).map { steps, busy in
                                RenderStatus.Worker(steps: Int(steps), busy: (busy * 1e8).rounded() / 100)
                            })
    }

    /// The engine's own processing time per cycle since the client opened, in microseconds.
    private func cycleTime() -> JackStatus.CycleTime {
        let times = host.backend.cycleTimes
        func microseconds(_ nanoseconds: Double) -> Double { (nanoseconds / 10).rounded() / 100 }
        return JackStatus.CycleTime(median: microseconds(times.median), p99: microseconds(times.p99), max: microseconds(times.maximum))
    }

    /// Why the engine stopped running an app's node, or nil.
    private func fault(_ app: String) -> AppStatus.Fault? {
        if let stalled = host.watch.stallFault(app) { return stalled }
        guard let slot = host.backend.currentPlan?.slot(for: app), slot.isFaulted else { return nil }
        let fault = host.watch.describeFault(slot)
        return AppStatus.Fault(kind: fault.kind, action: fault.action.rawValue, reason: fault.reason)
    }

    func dump() -> DumpReply {
        let device = host.sessions.policy.device
        return DumpReply(
            graph: host.graph.name, apps: host.graph.apps.indices.map(appStatus),
            connections: host.graph.connections.map { connection in
                let (from, to) = host.graph.names(connection)
                return DumpReply.Connection(from: from, to: to, gain: Double(connection.gain))
            },
            jackConnections: host.backend.livePorts().flatMap { port in
                port.connections.map { other in
                    let (from, to) = port.ends(other)
                    return ConnectionEnds(from: from, to: to)
                }
            },
            policy: .init(duckLevel: host.graph.policy.duckLevelDecibels, rampTime: host.graph.policy.rampSeconds,
                          backgroundTaskTime: host.graph.policy.backgroundTaskSeconds),
            tempo: host.graph.transport.tempo, beatsPerBar: host.graph.transport.beatsPerBar,
            device: .init(silent: device.silent, locked: device.locked, routeAvailable: device.routeAvailable))
    }

    static func portJSON(_ port: LivePort) -> ControlJSON {
        PortListing(name: port.name, app: port.appID, port: port.portName, type: port.type, direction: port.isInput ? .input : .output,
                    connections: port.connections, capture: port.capture, playback: port.playback).json
    }

    /// A Graphviz picture: roles as clusters, gains on edges, ducked or suspended apps dashed.
    func dot() -> String {
        var lines = ["digraph iaa {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
        for role in AppRole.allCases {
            let members = host.graph.apps.filter { $0.role == role }
            guard !members.isEmpty else { continue }
            lines.append("  subgraph cluster_\(role.rawValue) {")
            lines.append("    label=\"\(role.rawValue)s\";")
            for app in members {
                let state = host.sessions.policy.state(of: app.id)
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
        for connection in host.graph.connections {
            let (from, to) = host.graph.names(connection)
            let label = connection.gain == 1 ? "" : " label=\"\(connection.gain)\""
            lines.append("  \"\(host.graph.apps[connection.from.app].id)\" -> \"\(host.graph.apps[connection.to.app].id)\" [tooltip=\"\(from) -> \(to)\"\(label)];")
        }
        lines += host.connections.rules.dotLines(on: host.connections.ground, routedBy: host.programs.roster.routedBy)
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
