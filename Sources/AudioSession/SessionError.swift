/// A refused session action, with AVAudioSession's error name and four-character code.
/// A refused action changes nothing.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case cannotInterruptOthers, missingEntitlement, badParam, incompatibleCategory, insufficientPriority
        case sessionNotActive, isBusy, cannotStartPlaying, cannotStartRecording, unknownApp

        /// Apple's four-character code ('!int'); `badParam` is Apple's -50 (paramErr).
        public var fourCC: String {
            switch self {
            case .cannotInterruptOthers: return "!int"
            case .missingEntitlement: return "ent?"
            case .badParam: return "-50"
            case .incompatibleCategory: return "!cat"
            case .insufficientPriority: return "!pri"
            case .sessionNotActive: return "inac"
            case .isBusy: return "!act"
            case .cannotStartPlaying: return "!pla"
            case .cannotStartRecording: return "!rec"
            case .unknownApp: return "app?"
            }
        }
    }

    public let code: Code
    public let app: String?
    public let message: String

    public init(_ code: Code, app: String?, _ message: String) {
        self.code = code
        self.app = app
        self.message = message
    }

    public var description: String { "\(code.rawValue) ('\(code.fourCC)'): \(message)" }
}
