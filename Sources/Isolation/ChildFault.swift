import CIsolation

/// Why an isolated app's child stopped serving it.
public enum ChildFault: Sendable, Equatable {
    /// Ended by a signal (a crash, or SIGSYS from its seccomp filter).
    case crashed(signal: Int32)
    /// Exited by itself.
    case exited(status: Int32)
    /// No answer within its share of the cycle, `strikes` cycles in a row: killed.
    case hung
    /// Its output held NaN or infinity: killed, its output never reached the graph.
    case nonFinite
    /// Creating the node in the child failed (the plugin's own message).
    case createFailed(String)
    /// The child did not get ready in time: killed.
    case startTimeout

    /// A stable word for events and `status` (`"crashed"`, `"hung"`, …).
    public var kind: String {
        switch self {
        case .crashed: "crashed"
        case .exited: "exited"
        case .hung: "hung"
        case .nonFinite: "nonFinite"
        case .createFailed: "createFailed"
        case .startTimeout: "startTimeout"
        }
    }

    /// The signal's name (`SIGSEGV`) for a crash.
    public var signalName: String? {
        guard case .crashed(let signal) = self else { return nil }
        return iaa_isolation_signal_name(signal).map { String(cString: $0) } ?? "signal \(signal)"
    }

    /// One sentence for people.
    public func reason(settings: IsolationSettings) -> String {
        switch self {
        case .crashed:
            return "its process was killed by \(signalName ?? "a signal")"
        case .exited(let status):
            return "its process exited with status \(status)"
        case .hung:
            let limit = settings.fixedTimeoutNanoseconds.map { "\(Double($0) / 1e6) ms" }
                ?? "\(Int((settings.share * 100).rounded())) % of the period"
            return "it did not answer within \(limit) in \(settings.strikes) consecutive cycles; its process was killed"
        case .nonFinite:
            return "its output held NaN or infinity; its process was killed"
        case .createFailed(let message):
            return "creating the node failed: \(message)"
        case .startTimeout:
            return "its process did not get ready within \(settings.startTimeoutSeconds) s; it was killed"
        }
    }
}
