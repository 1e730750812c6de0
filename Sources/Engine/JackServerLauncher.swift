import Foundation

/// Starts a JACK server on the dummy driver when none is running, so `iaa run` works on a machine
/// without a sound card, and stops it when the engine exits.
public final class JackServerLauncher {
    public let process: Process
    public let command: String
    public let logPath: String

    private init(process: Process, command: String, logPath: String) {
        self.process = process
        self.command = command
        self.logPath = logPath
    }

    /// Spawns `jackd -d dummy`. The caller then retries opening its client until the server answers.
    public static func startDummy(serverName: String?, sampleRate: Int = 48_000, frames: Int = 256) throws -> JackServerLauncher {
        guard let jackd = executable("jackd") else {
            throw EngineError(code: .jackUnreachable, message: "no JACK server is running and jackd is not installed",
                              hint: "install it (apt-get install --no-install-recommends jackd2) or start a server yourself")
        }
        var arguments: [String] = []
        if let serverName { arguments += ["-n", serverName] }
        arguments += ["-d", "dummy", "-r", String(sampleRate), "-p", String(frames)]
        let logPath = logFolder() + "/jackd-\(serverName ?? "default").log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: jackd)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return JackServerLauncher(process: process, command: (["jackd"] + arguments).joined(separator: " "), logPath: logPath)
    }

    /// Stops the server and waits for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Where a started server's log goes, as the XDG base directories say a program's state does:
    /// `$XDG_STATE_HOME/iaa` (default `~/.local/state/iaa`), else `$XDG_RUNTIME_DIR/iaa`, and the
    /// temporary folder only when neither can be made. One file per server name, replaced each start.
    static func logFolder() -> String {
        let environment = ProcessInfo.processInfo.environment
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let candidates = [(nonEmpty("XDG_STATE_HOME") ?? (nonEmpty("HOME") ?? NSHomeDirectory()) + "/.local/state") + "/iaa",
                          nonEmpty("XDG_RUNTIME_DIR").map { $0 + "/iaa" }].compactMap { $0 }
        for folder in candidates {
            if (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])) != nil {
                return folder
            }
        }
        return NSTemporaryDirectory()
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
