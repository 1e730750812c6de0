import ArgumentParser
import Engine

/// `-v` and `-q`: how much a long-running command says on stderr. Without them the level comes
/// from `IAA_LOG_LEVEL`, else the configuration file's `logLevel`, else `info`.
struct LogOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Say more on stderr: also every control request (log level debug).")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Say only warnings and errors on stderr (log level warning).")
    var quiet = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("-v and -q contradict each other; give one") }
    }

    /// Sets the process's log level, before anything is logged.
    func apply() {
        if verbose { StandardError.level = .debug } else if quiet { StandardError.level = .warning }
    }
}
