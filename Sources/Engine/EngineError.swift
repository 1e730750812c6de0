/// An engine-level failure with the exit code users of JACK and PipeWire tools expect.
public struct EngineError: Error, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidGraph, jackUnreachable, nodeCreationFailed, io, usage

        /// 1 refused or invalid; 2 engine or JACK unreachable; 64 bad usage (docs/command-line.md).
        public var exitCode: Int32 {
            switch self {
            case .invalidGraph, .nodeCreationFailed, .io: return 1
            case .jackUnreachable: return 2
            case .usage: return 64
            }
        }
    }

    public let code: Code
    public let message: String
    public let hint: String?

    public init(code: Code, message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "error: \(message)\n  hint: \($0)" } ?? "error: \(message)"
    }
}
