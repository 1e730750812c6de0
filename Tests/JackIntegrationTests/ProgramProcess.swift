import Foundation

/// A JACK program under test (`jack_metro`, `jack_rec`), started in the background and ended by
/// its PID: `stop()` in a `defer` ends it on failure too, and `deinit` ends it if nothing did.
final class ProgramProcess {
    let process = Process()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Sends SIGKILL to the program's PID and waits for it to exit: the test process blocks SIGTERM,
    /// and a child inherits that mask, so a program that handles SIGTERM itself would never see it.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for a program that ends by itself (`jack_rec -d`), at most `seconds`, then ends it.
    func wait(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        stop()
    }

    deinit {
        stop()
    }
}
