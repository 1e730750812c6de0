import ArgumentParser
import ControlSocket
import Foundation
import Synchronization

/// Follows one of the engine's streams (`events`, `top`) on a thread of its own, so the main
/// thread can stop it after a quiet spell: `ControlClient.stream` waits for lines without a
/// timeout, as a quiet stream is not a dead engine.
final class StreamFollower: Sendable {
    /// How the stream ended.
    enum End: Sendable {
        case closed
        case refused(ControlError)
        case unreachable(ControlSocketError)
    }

    private struct State {
        var lastActivity: ContinuousClock.Instant?
        var end: End?
        var stopped = false
    }

    private let state = Mutex(State())
    private let path: String
    private let method: ControlMethod
    private let onLine: @Sendable (String) -> Void

    /// - Parameter onLine: called with each stream line, one at a time, never after ``follow(quiet:)`` returns.
    init(path: String, method: ControlMethod, onLine: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.method = method
        self.onLine = onLine
    }

    /// Subscribes and passes lines on until the engine closes the stream or, when `quiet` is given,
    /// no line has come for that long after the subscription was answered. Failures are reported
    /// and thrown as the verb's exit code.
    func follow(quiet: Duration?) throws {
        let thread = Thread { [self] in self.read() }
        thread.name = "iaa-stream"
        thread.start()
        let clock = ContinuousClock()
        while true {
            let end: End? = state.withLock { state in
                if let end = state.end { return end }
                if let quiet, let last = state.lastActivity, clock.now - last >= quiet {
                    // Under the lock: no line is half printed when the process exits.
                    state.stopped = true
                    return .closed
                }
                return nil
            }
            switch end {
            case nil: Thread.sleep(forTimeInterval: 0.02)
            case .closed?: return
            case .refused(let error)?: throw Failure.report(error)
            case .unreachable(let error)?: throw Failure.report(error)
            }
        }
    }

    private func read() {
        let end: End
        do {
            let client = try ControlClient(path: path)
            let result = try client.stream(method.rawValue, onStart: { _ in self.touch() }, onLine: { line in
                self.state.withLock { state in
                    guard !state.stopped else { return false }
                    state.lastActivity = ContinuousClock.now
                    onLine(line)
                    return true
                }
            })
            switch result {
            case .success: end = .closed
            case .failure(let error): end = .refused(error)
            }
        } catch {
            end = .unreachable(error)
        }
        state.withLock { $0.end = $0.end ?? end }
    }

    private func touch() {
        state.withLock { $0.lastActivity = ContinuousClock.now }
    }
}
