/// Which app ports the backend registers as JACK ports: the graph's `jack.expose`.
///
/// Every app port is a JACK port by default, so `jack_lsp` lists it and anything can be wired to
/// it. A large graph registers thousands, at about 0.2 ms each, and most are never wired outside:
/// `"expose": ["mix:*", "synth:midi_in"]` (or `"none"`) keeps the rest inside the engine. Ports
/// named by `jack.connections` are always exposed.
public struct PortExposure: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        case input, output, midiInput
    }

    package struct Key: Sendable, Hashable {
        let app: Int
        let direction: Direction
        let port: Int

        package init(app: Int, direction: Direction, port: Int) {
            self.app = app
            self.direction = direction
            self.port = port
        }
    }

    /// The patterns as written (`["mix:*"]`, `[]` for `"none"`), or nil when every port is exposed.
    public let patterns: [String]?
    let selected: Set<Key>

    /// Every app port is a JACK port (the default).
    public static let all = PortExposure(patterns: nil, selected: [])

    package init(patterns: [String]?, selected: Set<Key>) {
        self.patterns = patterns
        self.selected = selected
    }

    /// Whether port `port` (an index into the app layout's inputs, outputs or MIDI inputs) of
    /// app `app` is a JACK port.
    public func exposes(app: Int, _ direction: Direction, port: Int) -> Bool {
        patterns == nil || selected.contains(Key(app: app, direction: direction, port: port))
    }

    /// True when some port is not a JACK port.
    public var isSelective: Bool { patterns != nil }
}
