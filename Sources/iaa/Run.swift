import ArgumentParser
import AudioGraph
import Engine
import Links

/// `iaa run GRAPH`: the engine in the foreground.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a graph as a JACK client until Ctrl-C.",
        discussion: """
            Every app port becomes a JACK port CLIENT:APP.PORT. When no JACK server is running and none \
            is named (-s or JACK_DEFAULT_SERVER), a dummy-driver server is started for the engine's lifetime.

            A plain run resumes the state kept for its JACK client and graph file: every change the \
            last engine of both acknowledged (parameters, connections, JACK connections made by hand, \
            sessions), when the graph file is still the text that state grew from; an edited file runs as it is, \
            and stderr says what it dropped. --fresh starts from the file and replaces the kept state; \
            --no-state keeps nothing (docs/state.md).
            """)

    @Argument(help: "The graph file.", completion: .file(extensions: ["json"]))
    var graph: String

    @OptionGroup var logging: LogOptions

    @Option(name: [.short, .customLong("server")], help: "JACK server name (default: $JACK_DEFAULT_SERVER, else JACK's default).")
    var server: String?

    @Option(name: [.short, .customLong("name")], help: "JACK client name (default: the graph's jack.client, else iaa).")
    var name: String?

    @Option(help: "The control socket (default: $XDG_RUNTIME_DIR/iaa/CLIENT.sock).", completion: .file())
    var socket: String?

    @Option(help: ArgumentHelp("Bypass or mute a node whose process takes more than PERCENT of the period in 3 consecutive cycles (0: never).",
                               valueName: "PERCENT"))
    var deadline: Double = 50

    @Option(help: ArgumentHelp("A grants file: the entitlements each app may be granted; graphs that grant more are refused. It must be writable only by its owner (you or root).",
                               valueName: "file"), completion: .file(extensions: ["json"]))
    var grants: String?

    @Flag(help: "Reload a plugin library when it is rebuilt: its apps get the new code, keeping their parameters and connections.")
    var watch = false

    @Option(help: ArgumentHelp("Where apps run when the graph does not say: process (a child process each), none (inside the engine) or auto (in process only for trusted code; see docs/isolation.md).",
                               valueName: "auto|process|none"))
    var isolation: IsolationChoice = .auto

    @OptionGroup var threading: ThreadOptions

    @Flag(help: "Start from the graph file, replacing the state kept for this client (docs/state.md).")
    var fresh = false

    @Flag(help: "Keep nothing: changes last until the engine stops, and nothing kept is resumed.")
    var noState = false

    @Option(help: ArgumentHelp("Where acknowledged changes are kept (default: $XDG_STATE_HOME/iaa, else ~/.local/state/iaa).",
                               valueName: "folder"), completion: .directory)
    var stateFolder: String?

    @Option(help: ArgumentHelp("Join a primary engine, whose policy then decides for this graph's apps while it is reachable: its control socket's path, or ssh://[USER@]HOST[:PORT]/PATH on another machine, which the engine reaches through `ssh -N -L` (docs/links.md).",
                               valueName: "primary"))
    var join: String?

    @Option(help: ArgumentHelp("An ssh_config file for the ssh:// primary (ssh -F): host name, port, key, known hosts.",
                               valueName: "file"), completion: .file())
    var joinSSHConfig: String?

    func validate() throws {
        if let join {
            do {
                _ = try PrimaryAddress(join)
            } catch {
                throw ValidationError("--join: \(error)")
            }
        }
        guard !(fresh && noState) else {
            throw ValidationError("--fresh replaces the kept state and --no-state keeps none: give one of them")
        }
        guard deadline.isFinite, deadline >= 0, deadline <= 100 else {
            throw ValidationError("--deadline must be a percentage from 0 to 100 (0 turns the guard off), not \(deadline)")
        }
    }

    func run() throws {
        logging.apply()
        var options = LiveEngine.Options(graphPath: graph, serverName: server, clientName: name, socketPath: socket)
        options.deadlinePercent = deadline
        options.grantsPath = grants
        options.watchLibraries = watch
        options.isolation = isolation
        options.threads = threading.count
        options.splitting = threading.split
        options.keepState = !noState
        options.fresh = fresh
        options.stateFolder = stateFolder
        options.primary = try join.map { text in try PrimaryAddress(text) }
        options.primarySSHConfig = joinSSHConfig
        let code = LiveEngine(options: options).run()
        if code != 0 { throw ExitCode(code) }
    }
}
