import AudioGraph
import RenderCore
import GraphFormat
import AudioSession
import CThreadNotes
import ControlSocket
import Foundation
import Isolation
import JackBackend
import Links
import StateStore

/// `iaa run`: the engine in the foreground as one JACK client, until SIGINT or SIGTERM.
public struct LiveEngine {
    public struct Options {
        public var graphPath: String
        /// `-s`; nil means `$JACK_DEFAULT_SERVER` or JACK's default.
        public var serverName: String?
        /// `-n`; nil means the graph's `jack.client`, else `iaa`.
        public var clientName: String?
        /// `--socket`; nil means `$XDG_RUNTIME_DIR/iaa/CLIENT.sock`.
        public var socketPath: String?
        /// Percent of the period one node may take in 3 consecutive cycles before it is bypassed
        /// or muted (0 turns the deadline guard off).
        public var deadlinePercent: Double = 50
        /// Threads a cycle may run on, JACK's included (`--threads`; docs/parallel.md).
        public var threads = 1
        /// When cycles are split across them (`--split`).
        public var splitting = CycleSplitting.whenItPays
        /// A grants file bounding the entitlements graphs may grant (`--grants`), or nil.
        public var grantsPath: String?
        /// `--watch`: reload a plugin library when it is rebuilt in place.
        public var watchLibraries = false
        /// `--isolation`: where apps run when the graph does not say (docs/isolation.md).
        public var isolation: IsolationChoice = .auto
        /// Keep every acknowledged change, and resume what was kept (docs/state.md); `--no-state`
        /// turns it off.
        public var keepState = true
        /// `--fresh`: start from the graph file, replacing what was kept.
        public var fresh = false
        /// Where the state is kept; nil means `$XDG_STATE_HOME/iaa`.
        public var stateFolder: String?
        /// `--join`: a primary engine whose policy decides for this engine's apps
        /// (docs/links.md); nil: this engine decides alone.
        public var primary: PrimaryAddress?
        /// `--join-ssh-config`: the ssh_config file for an `ssh://` primary.
        public var primarySSHConfig: String?

        public init(graphPath: String, serverName: String? = nil, clientName: String? = nil, socketPath: String? = nil) {
            self.graphPath = graphPath
            self.serverName = serverName
            self.clientName = clientName
            self.socketPath = socketPath
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
        // A plugin in our process that crashes it is named on stderr before the process ends.
        _ = iaa_crash_note_install()

        var grants: Grants?
        if let path = options.grantsPath {
            guard let loaded = GraphLoading.loadGrants(path) else { return 1 }
            grants = loaded
        }
        // Read once: its text is also what the kept state is compared with (docs/state.md).
        let fileText = (try? String(contentsOfFile: options.graphPath, encoding: .utf8)) ?? ""
        let file = fileText.isEmpty ? GraphLoading.load(options.graphPath, grants: grants)
            : GraphFile.load(text: fileText, file: options.graphPath, registry: GraphLoading.registry, grants: grants)
        if !file.diagnostics.isEmpty { StandardError.write(GraphLoading.report(file), level: .error) }
        guard let fileDescription = file.description, file.graph != nil else { return 1 }

        let environmentServer = ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        let serverName = options.serverName ?? environmentServer
        // -n, the graph's jack.client, IAA_CLIENT (or the configuration file's client), then "iaa".
        let environmentClient = ProcessInfo.processInfo.environment["IAA_CLIENT"].flatMap { $0.isEmpty ? nil : $0 }
        let clientName = options.clientName ?? fileDescription.jack.client ?? environmentClient ?? fileDescription.jackClientName
        // jack2 binds a client's socket at the path of the server's when their names are equal
        // (/dev/shm/jack_NAME_UID_0): the client's replaces the server's, and no other program,
        // the engine's own program apps and link bridges included, can reach that server again.
        if clientName == serverName ?? "default" {
            StandardError.write("iaa: error: the JACK client name \"\(clientName)\" is the JACK server's name: jack2 would put the client's socket in place of the server's, and no other program could connect to the server", level: .error)
            StandardError.write("  hint: give the engine another name (-n \(clientName)-iaa, or the graph's jack.client), or the server another (jackd -n)", level: .error)
            return 1
        }

        // What was kept for this client and graph file, resumed when the file is the one it grew
        // from. What the start made of it is said once the start goes on (a start that fails on
        // JACK or the control socket drops nothing: the next one reads the same state).
        var keeping: Keeping?
        var loaded = file, held: [[String]] = []
        var keptReport: [(line: String, level: LogLevel)] = []
        if options.keepState {
            let base = options.stateFolder ?? StateKeeper.defaultFolder()
            let place = StatePlace(base: base, client: clientName, graphPath: options.graphPath)
            if let moved = place.adoptEarlierLayout(base: base, client: clientName, sourceText: fileText) {
                keptReport.append(("kept state: \(moved)", .info))
            }
            let opened = StateKeeper.open(place, fresh: options.fresh)
            let chosen = KeptStart.choose(opened, path: options.graphPath, fileText: fileText, file: file, grants: grants)
            (loaded, held) = (chosen.loaded, chosen.held)
            keptReport += chosen.start.report.map { ($0, chosen.start.discarded.isEmpty ? .info : .warning) }
            keeping = Keeping(keeper: opened.keeper, source: options.graphPath, sourceText: fileText, start: chosen.start)
        }
        guard let graph = loaded.graph, let description = loaded.description else { return 1 }
        var launcher: JackServerLauncher?
        defer { launcher?.stop() }
        let probe = RealtimeProbe.fromEnvironment()
        let backend: JackBackend
        do {
            backend = try openClient(clientName, serverName: serverName, probe: probe, launcher: &launcher)
        } catch {
            StandardError.write("iaa: \(error)", level: .error)
            return EngineError.Code.jackUnreachable.exitCode
        }
        // The client open at exit: a server restart replaces it.
        var openBackend: any LiveBackend = backend
        defer { Self.close(openBackend, within: 3) }

        let core: EngineCore
        do {
            core = try EngineCore(graph: graph, description: description, backend: backend, serverName: serverName)
            core.cycles = CycleSettings(deadlineShare: options.deadlinePercent / 100, threads: options.threads, splitting: options.splitting)
            core.grants = grants
            // A hung child must be bounded even with the deadline guard off.
            var isolation = IsolationPolicy.fromEnvironment(
                engineDefault: options.isolation, share: options.deadlinePercent > 0 ? options.deadlinePercent / 100 : 0.5)
            // Below the audio thread, which shares its CPU with the children (CPUPlacement).
            isolation.settings.realtimePriority = backend.realtimePriority.flatMap { $0 > 1 ? $0 - 1 : nil }
            isolation.settings.placement = CPUPlacement()
            core.isolated = IsolatedApps(isolation, host: core, queue: core.queue)
            core.keeping = keeping.map { ChangeKeeper($0, host: core) }
            for pair in held { core.connections.rules.book.hold(pair) }
            core.adopt(backend)
            let startEvents = try core.startUp()
            for warning in try core.goLive(startEvents: startEvents) { StandardError.warning(warning) }
            let path = options.socketPath ?? ControlServer.defaultPath(client: backend.clientName)
            let server = try ControlServer(path: path, queue: core.queue,
                                           diagnostics: { StandardError.write("iaa: control: \($0)", level: .warning) },
                                           disconnected: { [core] connection in core.programs.connectionClosed(connection) },
                                           handler: { [core] request in core.handle(request) })
            core.queue.sync { core.publisher.server = server }
            if options.watchLibraries {
                let watcher = try LibraryWatcher(queue: core.queue) { [core] in core.reloads.reloadChanged() }
                core.queue.sync {
                    core.reloads.watcher = watcher
                    core.reloads.watchFolders()
                }
                StandardError.write("iaa: watching the plugin libraries' folders; a rebuilt library is reloaded")
            }
            // The start goes on: what it made of the kept state is said, and the first snapshot
            // of the graph it runs replaces that state.
            for report in keptReport { StandardError.write("iaa: \(report.line)", level: report.level) }
            core.queue.sync { core.keeping?.started() }
            server.start()
            StandardError.write("iaa: control socket \(path)")
            if let primary = options.primary {
                // The tunnel's end beside the control socket, in the same private folder.
                let local = (path as NSString).deletingLastPathComponent + "/\(backend.clientName)-primary.sock"
                core.queue.sync { core.join(primary: primary, localSocket: local, sshConfig: options.primarySSHConfig) }
            }
        } catch {
            StandardError.write("iaa: error: \(error)", level: .error)
            return 1
        }
        defer { core.queue.sync { core.publisher.server?.stop() } }
        let portCount = graph.apps.reduce(0) { $0 + $1.layout.inputs.count + $1.layout.outputs.count + $1.layout.midiInputs.count }
        StandardError.write("iaa: running '\(graph.name)' as JACK client '\(backend.clientName)' on server '\(serverName ?? "default")' (\(Int(backend.sampleRate)) Hz, \(backend.maximumFrames) frames, \(graph.apps.count) apps, \(portCount) ports); stop with Ctrl-C")

        let reason = waitForStop(core, signals: stopSignals) {
            // Reopen under the same name; restart the server only if iaa started the first one.
            if let started = launcher, !started.process.isRunning {
                launcher = try? JackServerLauncher.startDummy(serverName: nil)
            }
            return try? Self.open(clientName, serverName: serverName, probe: probe).get()
        }
        let current = core.queue.sync {
            core.leavePrimary()
            core.links.stopAll()
            core.keeping?.stopped()
            return core.backend
        }
        openBackend = current
        StandardError.write("iaa: \(reason); \(current.cycleCount) cycles, \(current.xrunCount) xruns reported by JACK (\(current.ourXrunCount) caused by iaa)")
        if let counts = current.probeCounts {
            StandardError.write("iaa: rt-probe: \(counts.mallocs) mallocs, \(counts.retains) retains on the audio thread in \(current.cycleCount) cycles")
        }
        return 0
    }

    /// Closes the client, giving up after `seconds`: libjack can hang in `jack_client_close`, and
    /// a metadata call can wait forever on a lock a killed client held. An engine asked to stop
    /// must stop; the server drops a vanished client on its own.
    static func close(_ backend: any LiveBackend, within seconds: Int) {
        let done = DispatchSemaphore(value: 0)
        let closer = Thread {
            backend.close()
            done.signal()
        }
        closer.start()
        if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            StandardError.warning("JACK did not let the client close within \(seconds) s (a known libjack hang); exiting without it")
        }
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

    private static func open(_ clientName: String, serverName: String?, probe: RealtimeProbe) -> Result<JackBackend, JackError> {
        Result { () throws(JackError) in try JackBackend(clientName: clientName, serverName: serverName, probe: probe) }
    }

    /// Waits for SIGINT/SIGTERM or a server shutdown, ticking the control queue meanwhile
    /// (session clock, transport requests, retired plans) and feeding `iaa top` once a second.
    /// When the server goes away, `reopen` is tried every 200 ms until a server answers.
    private func waitForStop(_ core: EngineCore, signals: sigset_t, reopen: () -> (any LiveBackend)?) -> String {
        var signals = signals
        var timeout = timespec(tv_sec: 0, tv_nsec: 100_000_000)
        var ticks = 0
        while true {
            let signal = sigtimedwait(&signals, nil, &timeout)
            if signal == SIGINT { return "stopping on SIGINT" }
            if signal == SIGTERM { return "stopping on SIGTERM" }
            if core.queue.sync(execute: { core.backend.serverWasShutDown }) {
                StandardError.write("iaa: the JACK server went away; waiting for it to come back")
                core.queue.sync { core.serverLost() }
                var restored = false
                while !restored {
                    var wait = timespec(tv_sec: 0, tv_nsec: 200_000_000)
                    let signal = sigtimedwait(&signals, nil, &wait)
                    if signal == SIGINT || signal == SIGTERM { return "stopping while the JACK server is away" }
                    guard let backend = reopen() else { continue }
                    do {
                        try core.queue.sync { try core.serverBack(backend) }
                        restored = true
                        StandardError.write("iaa: the JACK server is back; ports and connections restored")
                    } catch {
                        StandardError.warning("the JACK server came back but restoring failed: \(error)")
                    }
                }
            }
            core.queue.sync { core.tick() }
            ticks += 1
            if ticks % 10 == 0 { core.queue.sync { core.watch.publishTop() } }
        }
    }
}
