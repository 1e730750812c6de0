import Foundation

extension Process {
    /// Waits up to `seconds` for the exit; true when it exited in time. A process still running
    /// then is killed (SIGKILL) and waited for: a child that hangs fails its test instead of
    /// holding the run forever.
    public func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning, Date() < deadline { usleep(5_000) }
        let exited = !isRunning
        if !exited { kill(processIdentifier, SIGKILL) }
        // Returns at once for a process that has exited: Foundation stores its status.
        waitUntilExit()
        return exited
    }

    /// Sends `signal` and waits up to `seconds` for the exit, then kills it (``waitForExit(seconds:)``).
    /// True when `signal` ended it in time (or it had already exited). A child inherits the
    /// signals its test's thread blocks, SIGTERM and SIGINT among them (a dispatch worker blocks
    /// them): only a program that handles them itself (iaa, jackd, sh) ends on them.
    @discardableResult
    public func end(with signal: Int32 = SIGTERM, within seconds: Double = 15) -> Bool {
        guard isRunning else { return true }
        kill(processIdentifier, signal)
        return waitForExit(seconds: seconds)
    }
}
