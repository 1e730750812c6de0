import Foundation

extension Process {
    /// Waits for the exit for up to `seconds`; true when it has exited. A test waits for a child
    /// with a deadline, so that one that hangs fails the test instead of holding the run forever.
    public func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(5_000)
        }
        // `isRunning` turns false before Foundation has stored the status: this returns at once.
        waitUntilExit()
        return true
    }

    /// Sends `signal` and waits up to `seconds` for the exit; a process still running then is sent
    /// SIGKILL. True when `signal` ended it in time (or it had already exited). A child inherits
    /// the signals its test's thread blocks, SIGTERM and SIGINT among them (a dispatch worker
    /// blocks them): only a program that handles them itself (iaa, jackd, sh) ends on them.
    @discardableResult
    public func end(with signal: Int32 = SIGTERM, within seconds: Double = 15) -> Bool {
        guard isRunning else { return true }
        kill(processIdentifier, signal)
        if waitForExit(seconds: seconds) { return true }
        kill(processIdentifier, SIGKILL)
        waitUntilExit()
        return false
    }
}
