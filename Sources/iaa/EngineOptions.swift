import ArgumentParser
import ControlSocket

/// `-n/--name` and `--socket`: which running engine a client verb talks to.
///
/// Shared by every verb through `@OptionGroup`, so the flags are spelt the same everywhere and
/// match `iaa run -n CLIENT --socket PATH`.
struct EngineOptions: ParsableArguments {
    @Option(name: [.short, .customLong("name")], help: "The engine's JACK client name; picks its socket.")
    var name = "iaa"

    @Option(help: ArgumentHelp("The engine's control socket (overrides -n).", valueName: "path"),
            completion: .file())
    var socket: String?

    /// `--socket`, else `$XDG_RUNTIME_DIR/iaa/CLIENT.sock` (or `/tmp/iaa-$UID/CLIENT.sock`).
    var socketPath: String { socket ?? ControlServer.defaultPath(client: name) }

    /// Opens the connection; an unreachable engine is reported and exits 2.
    func connect(timeout: Duration? = .seconds(30)) throws -> EngineClient {
        do {
            return EngineClient(client: try ControlClient(path: socketPath, timeout: timeout))
        } catch {
            throw Failure.report(error)
        }
    }
}
