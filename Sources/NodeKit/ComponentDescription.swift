/// What an Inter-App Audio node publishes about itself: its type and four-character codes.
public struct ComponentDescription: Sendable, Hashable {
    /// The four node types of Inter-App Audio, with Apple's four-character codes.
    public enum ComponentType: String, Sendable, Hashable, CaseIterable {
        case generator, instrument, effect, musicEffect

        /// `aurg`, `auri`, `aurx`, `aurm`.
        public var code: String {
            switch self {
            case .generator: return "aurg"
            case .instrument: return "auri"
            case .effect: return "aurx"
            case .musicEffect: return "aurm"
            }
        }

        public init?(code: String) {
            guard let type = Self.allCases.first(where: { $0.code == code }) else { return nil }
            self = type
        }

        /// Audio inputs, MIDI input and audio outputs this type has (Inter-App Audio's rules).
        public var takesAudioInput: Bool { self == .effect || self == .musicEffect }
        public var takesMIDI: Bool { self == .instrument || self == .musicEffect }
    }

    public var type: ComponentType
    /// Four ASCII characters each.
    public var subtype: String
    public var manufacturer: String
    public var name: String
    public var version: Int

    public init(type: ComponentType, subtype: String, manufacturer: String, name: String, version: Int = 1) {
        self.type = type
        self.subtype = subtype
        self.manufacturer = manufacturer
        self.name = name
        self.version = version
    }

    /// `auri/poly/demo`.
    public var codes: String { "\(type.code)/\(subtype)/\(manufacturer)" }
}
