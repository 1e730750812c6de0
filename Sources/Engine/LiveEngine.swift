import AudioGraph
import AudioSession
import Foundation
import JackBackend

/// `iaa run`: the engine in the foreground as one JACK client, until SIGINT or SIGTERM.
public struct LiveEngine {
    public struct Options {
        public var graphPath: String
        /// `-s`; nil means `$JACK_DEFAULT_SERVER` or JACK's default.
        public var serverName: String?
        /// `-n`; nil means the graph's `jack.client`, else `iaa`.
        public var clientName: String?

        public init(graphPath: String, serverName: String? = nil, clientName: String? = nil) {
            self.graphPath = graphPath
            self.serverName = serverName
            self.clientName = clientName
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Runs until a signal arrives or the server goes away; returns the process exit code.
    public func run() -> Int32 {
        // Block the stop signals before JACK starts its threads, so only `waitForStop` sees them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let loaded = GraphLoading.load(options.graphPath)
        if !loaded.diagnostics.isEmpty { StandardError.write(GraphLoading.report(loaded)) }
        guard let graph = loaded.graph, let description = loaded.description else { return 1 }

        let environmentServer = ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        let serverName = options.serverName ?? environmentServer
        let clientName = options.clientName ?? description.jackClientName
        var launcher: JackServerLauncher?
        defer { launcher?.stop() }
        let probe = RealtimeProbe.fromEnvironment()
        let backend: JackBackend
        do {
            backend = try openClient(clientName, serverName: serverName, probe: probe, launcher: &launcher)
        } catch {
            StandardError.write("iaa: \(error)")
            return EngineError.Code.jackUnreachable.exitCode
        }
        defer { backend.close() }

        let sessions = SessionController(graph: graph)
        var startEvents: [SessionEvent] = []
        do {
            let builder = PlanBuilder(sampleRate: backend.sampleRate, maximumFrames: backend.maximumFrames,
                                      gainRampSeconds: graph.policy.rampSeconds)
            let plan = try builder.plan(for: graph)
            PlanBuilder.warmUp(plan)
            startEvents = sessions.attach(plan, initial: true)
            try backend.install(plan)
            if graph.transport.timebaseMaster {
                if !backend.becomeTimebaseMaster(tempo: graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar) {
                    StandardError.write("iaa: warning: another JACK client is timebase master; nodes follow its tempo")
                }
            } else {
                backend.setDefaultTempo(graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
            }
            try backend.activate()
        } catch {
            StandardError.write("iaa: error: \(error)")
            return 1
        }
        for outcome in backend.connect(graph.externalConnections, in: graph) {
            if case .failed = outcome.result { StandardError.write("iaa: warning: \(outcome)") }
        }
        for event in startEvents { StandardError.write("iaa: event: \(SessionLog.payload(event).text)") }
        let portCount = graph.apps.reduce(0) { $0 + $1.layout.inputs.count + $1.layout.outputs.count + $1.layout.midiInputs.count }
        StandardError.write("iaa: running '\(graph.name)' as JACK client '\(backend.clientName)' on server '\(serverName ?? "default")' (\(Int(backend.sampleRate)) Hz, \(backend.maximumFrames) frames, \(graph.apps.count) apps, \(portCount) ports); stop with Ctrl-C")

        let reason = waitForStop(backend, sessions: sessions, signals: stopSignals)
        StandardError.write("iaa: \(reason); \(backend.cycleCount) cycles, \(backend.xrunCount) xruns reported by JACK")
        if let counts = backend.probeCounts {
            StandardError.write("iaa: rt-probe: \(counts.mallocs) mallocs, \(counts.retains) retains on the audio thread in \(backend.cycleCount) cycles")
        }
        return backend.serverWasShutDown ? EngineError.Code.jackUnreachable.exitCode : 0
    }

    /// Opens the client; when no server runs and none was named, starts a dummy-driver server first.
    private func openClient(_ clientName: String, serverName: String?, probe: RealtimeProbe,
                            launcher: inout JackServerLauncher?) throws -> JackBackend {
        var attempt = Self.open(clientName, serverName: serverName, probe: probe)
        guard case .failure(let error) = attempt, error.code == .serverNotRunning, serverName == nil else {
            return try attempt.get()
        }
        let started = try JackServerLauncher.startDummy(serverName: nil)
        launcher = started
        StandardError.write("iaa: no JACK server was running; started one on the dummy driver (\(started.command), log \(started.logPath)); it stops when iaa exits")
        for _ in 0..<50 {
            usleep(100_000)
            attempt = Self.open(clientName, serverName: nil, probe: probe)
            if case .failure(let retry) = attempt, retry.code == .serverNotRunning { continue }
            break
        }
        return try attempt.get()
    }

    /// Nodes may ask the host to play or stop (Apple's remote transport control): live, that is
    /// JACK's transport.
    private func followTransportRequests(_ backend: JackBackend) {
        guard let plan = backend.currentPlan else { return }
        for app in plan.slotAppIDs {
            switch plan.slot(for: app)?.takeTransportRequest() ?? .none {
            case .play: backend.startTransport()
            case .stop: backend.stopTransport()
            case .toggleRecord, .none: break
            }
        }
    }

    private static func open(_ clientName: String, serverName: String?, probe: RealtimeProbe) -> Result<JackBackend, JackError> {
        Result { () throws(JackError) in try JackBackend(clientName: clientName, serverName: serverName, probe: probe) }
    }

    /// Waits for SIGINT/SIGTERM or a server shutdown, freeing retired plans and keeping the
    /// session clock (background task deadlines) meanwhile.
    private func waitForStop(_ backend: JackBackend, sessions: SessionController, signals: sigset_t) -> String {
        var signals = signals
        var timeout = timespec(tv_sec: 0, tv_nsec: 100_000_000)
        let start = ContinuousClock.now
        while true {
            let elapsed = start.duration(to: .now)
            let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if let deadline = sessions.nextDeadline, deadline <= now {
                for event in sessions.apply(.advanceTime(to: now), at: now).events {
                    StandardError.write("iaa: event: \(SessionLog.payload(event).text)")
                }
            }
            let signal = sigtimedwait(&signals, nil, &timeout)
            if signal == SIGINT { return "stopping on SIGINT" }
            if signal == SIGTERM { return "stopping on SIGTERM" }
            if backend.serverWasShutDown { return "the JACK server shut down" }
            backend.collectRetiredPlans()
            followTransportRequests(backend)
        }
    }
}
