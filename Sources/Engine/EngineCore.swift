import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import JackBackend
import Synchronization

/// The running engine's state: graph, plans, sessions and the JACK backend. Everything here runs
/// on `queue`, the one serial control queue: socket requests, the clock tick and JACK's
/// notifications all go through it, so no lock is needed and the audio thread is never waited on.
final class EngineCore: @unchecked Sendable {
    let queue = DispatchQueue(label: "iaa.control")
    private(set) var backend: JackBackend
    private(set) var builder: PlanBuilder
    private(set) var sessions: SessionController
    /// The graph file as last applied (for `dump --graph`, which also reflects live changes).
    private(set) var description: GraphDescription
    let clientName: String
    let serverName: String?
    var server: ControlServer?
    private let start = ContinuousClock.now
    /// Connections the engine itself asked JACK for, so their notifications say `by: iaa`.
    private var ownConnections: Set<[String]> = []
    /// Whether any of our outputs reaches something outside (a route, in Apple's terms).
    private var routeAvailable = true
    /// Every JACK connection to our ports now, whoever made it: what a server restart re-makes.
    private(set) var liveConnections: Set<[String]> = []
    /// Clients of a dead server whose close did not return in time (a known libjack hang).
    private var abandoned: [JackBackend] = []
    /// Apps already reported as bypassed or muted for a fault.
    private var faultsReported: Set<String> = []
    /// The deadline guard's share of the period (0 off); applied to every backend this core adopts.
    var deadlineShare: Double = 0.5
    /// Where apps' nodes run (`--isolation`, trusted folders, the child binary); nil keeps every
    /// node in process. Set before `startUp`.
    var isolation: IsolationPolicy?
    /// The grants file in force: every applied graph is held to it too.
    var grants: Grants?
    /// Xrun counters as last announced on the event stream: (JACK's, ours, preempted).
    private var xrunsAnnounced: (all: Int64, ours: Int64, preempted: Int64) = (0, 0, 0)
    /// Whether an `audioStalled` event is out and no `audioResumed` has followed (EngineCore+Stall).
    var stallAnnounced = false
    /// JACK's buffer size as last seen (JACK also calls its callback once at activation).
    private var bufferSize: Int
    /// `iaa run --watch`: reloads rebuilt plugin libraries; nil without the option.
    var libraryWatcher: LibraryWatcher?
    /// Set on JACK's notification thread when a port or client appeared; cleared by the pass over
    /// the graph's JACK connection rules it queued (one pass for a burst of registrations).
    let rulesDue = Atomic<Bool>(false)
    /// The ports and clients that appeared since the last pass, by name.
    let appeared = Mutex<[String]>([])
    /// Rule connections someone removed by hand (or with `iaa disconnect`): left alone until a
    /// port or client at their outside end appears again (the program restarted), or `apply`.
    var heldRulePairs: Set<[String]> = []
    /// Rule connections JACK refused, with when they first failed: retried on the clock tick
    /// (a program's ports exist before it activates, and JACK refuses connections until then),
    /// warned about once they keep failing.
    var ruleFailures: [[String]: (since: Double, warned: Bool)] = [:]
    /// The outside processes behind program apps (docs/programs.md).
    var programs = ProgramRoster()

    var graph: Graph { sessions.graph }

    init(graph: Graph, description: GraphDescription, backend: JackBackend, serverName: String?) throws {
        self.backend = backend
        self.description = description
        self.serverName = serverName
        clientName = backend.clientName
        bufferSize = backend.maximumFrames
        builder = PlanBuilder(sampleRate: backend.sampleRate, maximumFrames: backend.maximumFrames,
                              gainRampSeconds: graph.policy.rampSeconds)
        sessions = SessionController(graph: graph)
    }

    /// Seconds since the engine started: the session clock.
    var now: Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// Compiles and installs the first plan, and makes the graph's JACK connections.
    func startUp() throws -> [SessionEvent] {
        installNodeFactory(for: graph)
        return try PlanInstall(graph, builder: builder, sessions: sessions, binding: .first, on: backend, at: 0).events
    }

    /// Makes the graph's JACK connection rules true now; warns about each rule whose port is
    /// missing (with the closest live port names) and each connection JACK refused. Missing ports
    /// leave their rule pending: it is made when the port appears.
    /// Rule connections removed by hand are made again too.
    func connectExternals(_ connections: [ExternalConnection]) -> [String] {
        heldRulePairs = []
        var warnings = pendingRuleWarnings(connections)
        for outcome in makeRules(connections) {
            if case .failed = outcome.result { warnings.append("\(outcome)") } else { ownConnections.insert([outcome.source, outcome.destination]) }
        }
        routeAvailable = outputsReachOutside()
        return warnings
    }

    /// Installs `newGraph` (same JACK client), keeping every running node whose app, type and
    /// configuration did not change, and returns the session events the change caused.
    /// An app whose plugin library was rebuilt gets a node running the new code, swapped in
    /// with a fade (``CodeSwap``); its parameters are the graph's, its ports and connections stay.
    /// With `sameSessions`, every session stays as it is; apps admitted or removed
    /// (`programs.admit`) gain or lose theirs (see `SessionController.adopt`).
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

    func replaceDescription(_ newDescription: GraphDescription) {
        description = newDescription
    }

    /// Runs on every control tick: the session clock, node transport requests, retired plans.
    func tick() {
        let time = now
        if let deadline = sessions.nextDeadline, deadline <= time {
            publish(applySession(.advanceTime(to: time), at: time).events)
        }
        backend.collectRetiredPlans()
        announceXruns(at: time)
        announceStall(at: time)
        // Twice a second: a refused rule connection is tried again (see `ruleFailures`).
        if !ruleFailures.isEmpty, Int(time * 10) % 5 == 0 { keepRules() }
        if programs.retryDue, Int(time * 10) % 5 == 0 { routePrograms() }
        guard let plan = backend.currentPlan else { return }
        for app in plan.slotAppIDs where !faultsReported.contains(app) {
            guard let slot = plan.slot(for: app), slot.isFaulted else { continue }
            faultsReported.insert(app)
            let fault = describeFault(slot)
            server?.publish(JSONValue.object([("t", .number(time)), ("event", .object([
                ("app", .string(app)), ("name", .string(fault.action)), ("fault", .string(fault.kind)),
                ("reason", .string("\(fault.reason); re-enable it with `iaa enable \(app)`")),
            ]))]), topic: "events")
            StandardError.warning("app \"\(app)\" is \(fault.action): \(fault.reason); `iaa enable \(app)` re-enables it")
        }
        for app in plan.slotAppIDs {
            switch plan.slot(for: app)?.takeTransportRequest() ?? .none {
            case .play: backend.startTransport()
            case .stop: backend.stopTransport()
            case .toggleRecord:
                let recording = backend.toggleRecording()
                server?.publish(JSONValue.object([("t", .number(time)), ("transport", .object([
                    ("recording", .bool(recording)), ("by", .string(app)),
                ]))]), topic: "events")
            case .none: break
            }
        }
    }

    /// One `xrun` line on the event stream per tick in which JACK reported xruns or a cycle ran
    /// past the period: how many, how many were iaa's (past the period on its CPU time), and how
    /// many only by the clock (the system took the CPU away), with the cycle count for context.
    func announceXruns(at time: Double) {
        let now = (all: backend.xrunCount, ours: backend.ourXrunCount, preempted: backend.preemptedOverrunCount)
        guard now != xrunsAnnounced else { return }
        if now.all >= xrunsAnnounced.all, now.ours >= xrunsAnnounced.ours, now.preempted >= xrunsAnnounced.preempted {
            server?.publish(JSONValue.object([("t", .number(time)), ("xrun", .object([
                ("count", .number(Double(now.all - xrunsAnnounced.all))), ("ours", .bool(now.ours > xrunsAnnounced.ours)),
                ("oursCount", .number(Double(now.ours - xrunsAnnounced.ours))),
                ("preempted", .number(Double(now.preempted - xrunsAnnounced.preempted))),
                ("cycle", .number(Double(backend.cycleCount))),
            ]))]), topic: "events")
        }
        // A new backend (after a server restart) counts from zero again.
        xrunsAnnounced = now
    }

    /// Sends events to `iaa events` subscribers and the log on stderr.
    func publish(_ events: [SessionEvent]) {
        for event in events {
            let line = JSONValue.object([("t", .number(now)), ("event", SessionLog.payload(event))])
            server?.publish(line, topic: "events")
            server?.publish(line, topic: Self.programTopic(event.app))
            StandardError.write("iaa: event: \(SessionLog.payload(event).text)")
        }
    }

    /// A JACK connection to one of our ports changed, by us or by anyone (`jack_connect`, a
    /// patchbay): an event, and a route change when our outputs lost or regained their last one.
    func connectionChanged(source: String, destination: String, connected: Bool) {
        let ours = ownConnections.remove([source, destination]) != nil
        if connected { liveConnections.insert([source, destination]) } else { liveConnections.remove([source, destination]) }
        if !connected, !ours { ruleConnectionRemoved(source, destination) }
        if connected, !ours { programConnectionMade(source, destination) }
        server?.publish(JSONValue.object([
            ("t", .number(now)),
            ("connection", .object([("from", .string(source)), ("to", .string(destination)), ("connected", .bool(connected)),
                                    ("by", .string(ours ? "iaa" : "outside"))])),
        ]), topic: "events")
        let available = outputsReachOutside()
        guard available != routeAvailable else { return }
        routeAvailable = available
        publish(applySession(.route(available: available), at: now).events)
    }

    /// Whether any of our audio outputs is connected outside the engine: Apple's "route".
    private func outputsReachOutside() -> Bool {
        backend.ports().contains { !$0.isInput && !$0.connections.isEmpty && $0.type.contains("audio") }
    }

    /// JACK's buffer size changed: every active output app hears `routeConfigurationChange`,
    /// and the graph is recompiled for the new size (nodes are prepared anew).
    func bufferSizeChanged(to frames: Int) {
        guard frames != bufferSize else { return }
        bufferSize = frames
        let events = sessions.policy.states.filter { $0.active && $0.category.hasOutput }
            .map { SessionEvent(app: $0.id, kind: .routeChange(reason: .routeConfigurationChange), time: now) }
        publish(events)
        guard frames > builder.instances.maximumFrames else { return }
        builder = PlanBuilder(sampleRate: backend.sampleRate, maximumFrames: frames, gainRampSeconds: graph.policy.rampSeconds)
        installNodeFactory(for: graph)
        _ = try? install(graph, sameSessions: true)
    }

    /// How a faulted slot is handled and why, in the words of events and `status`.
    func describeFault(_ slot: NodeSlot) -> (kind: String, action: String, reason: String) {
        switch slot.fault {
        case .deadline:
            return ("deadline", slot.canBypass ? "bypassed" : "muted",
                    "its process took more than \(Int((deadlineShare * 100).rounded())) % of the period in 3 consecutive cycles")
        case .nonFinite, .none:
            return ("nonFinite", "muted", "its output held NaN or infinity")
        }
    }

    /// Re-enables an app muted for a fault.
    func enable(_ app: String) -> Bool {
        if enableIsolated(app) { return true }
        guard let slot = backend.currentPlan?.slot(for: app), slot.isFaulted else { return false }
        slot.clearFault()
        faultsReported.remove(app)
        return true
    }

    /// Wires JACK's notifications for `backend` to this queue. Before the backend is activated.
    func adopt(_ backend: JackBackend) {
        backend.setDeadlineShare(deadlineShare)
        backend.onConnectionChange = { [self] source, destination, connected in
            queue.async { self.connectionChanged(source: source, destination: destination, connected: connected) }
        }
        backend.onBufferSizeChange = { [self] frames in queue.async { self.bufferSizeChanged(to: frames) } }
        backend.onClientGone = { [self] name in queue.async { self.programClientGone(name) } }
        backend.onOutsideConnection = { [self] source, destination in
            queue.async { self.programConnectionMade(source, destination) }
        }
        backend.onRegistration = { [self] name in
            appeared.withLock { $0.append(name) }
            guard !rulesDue.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async {
                self.rulesDue.store(false, ordering: .releasing)
                self.portsAppeared(self.appeared.withLock { names in
                    defer { names = [] }
                    return names
                })
            }
        }
    }

    /// The JACK server went away: every app hears `mediaServicesWereLost`. The dead client is
    /// abandoned, not closed: `jack_client_close` after a server's death can hang (a known libjack
    /// issue) while holding libjack's process-wide lock, which then blocks opening a new client.
    /// Graph and sessions are kept.
    func serverLost() {
        publish(graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereLost, time: now) })
        backend.abandon()
        abandoned.append(backend)
    }

    /// A server is back: the same ports are registered on `newBackend`, every connection there
    /// was is made again (the graph's and those made by hand), and apps hear `mediaServicesWereReset`.
    func serverBack(_ newBackend: JackBackend) throws {
        adopt(newBackend)
        if newBackend.sampleRate != builder.instances.sampleRate || newBackend.maximumFrames > builder.instances.maximumFrames {
            builder = PlanBuilder(sampleRate: newBackend.sampleRate, maximumFrames: newBackend.maximumFrames,
                                  gainRampSeconds: graph.policy.rampSeconds)
            installNodeFactory(for: graph)
        }
        _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .rebind, on: newBackend, at: now)
        newBackend.setDefaultTempo(graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        if graph.transport.timebaseMaster {
            newBackend.becomeTimebaseMaster(tempo: graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        }
        try newBackend.activate()
        isolation?.settings.placement?.adopt(audioThread: newBackend.audioThread)
        backend = newBackend
        bufferSize = newBackend.maximumFrames
        let remembered = liveConnections
        liveConnections = []
        for warning in connectExternals(graph.externalConnections) { StandardError.warning("\(warning)") }
        // The programs are clients of the new server too, when they come back: found afresh.
        programs.clients = [:]
        programs.refused = [:]
        routePrograms()
        for pair in remembered {
            noteOwnConnection(pair[0], pair[1])
            if case .failed(let why) = newBackend.connect(pair[0], pair[1]).result {
                StandardError.warning("cannot restore \(pair[0]) -> \(pair[1]): \(why)")
            }
        }
        publish(graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereReset, time: now) })
    }

    /// Remembers a connection the engine asked for, so its notification is attributed to iaa.
    func noteOwnConnection(_ source: String, _ destination: String) {
        ownConnections.insert([source, destination])
    }

    /// Forgets a connection the engine asked for and JACK refused.
    func forgetOwnConnection(_ source: String, _ destination: String) {
        ownConnections.remove([source, destination])
    }
}

extension EngineCore {
    /// One `iaa top` line: the engine's share of the period, and each app's gain and state.
    func publishTop() {
        let watched = (server?.subscriberCount(topic: "top") ?? 0) > 0
        backend.setMetering(watched)
        guard let server, watched else { return }
        let busy = backend.takeBusyTimes()
        let period = Double(backend.currentBufferSize) / backend.sampleRate
        let plan = backend.currentPlan
        let apps: [JSONValue] = graph.apps.map { app in
            let state = sessions.policy.state(of: app.id)
            let meter = plan?.takeMeter(app: app.id)
            let peak = meter.map { $0.peak > 0 ? 20 * log10(Double($0.peak)) : -200 } ?? -200
            return .object([("id", .string(app.id)),
                            ("busy", .number((meter?.seconds ?? 0) / period)), ("peak", .number(peak)),
                            ("gain", .number(Double(backend.currentPlan?.slot(for: app.id)?.policyGainTargetValue ?? 1))),
                            ("state", .string(programIsAway(app) ? "not running"
                                : state.map { $0.suspended ? "suspended" : $0.interrupted ? "interrupted" : $0.ducked ? "ducked" : $0.audible ? "audible" : "silent" } ?? "running"))])
        }
        server.publish(JSONValue.object([
            ("t", .number(now)), ("period", .number(period)),
            ("busy", .number(busy.last / period)), ("busyMax", .number(busy.maximum / period)),
            ("dspLoad", .number(backend.dspLoad)), ("xruns", .number(Double(backend.xrunCount))),
            ("ourXruns", .number(Double(backend.ourXrunCount))), ("apps", .array(apps)),
        ]), topic: "top")
    }
}

