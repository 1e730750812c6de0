import ControlSocket

/// The snapshot's graph file with the journal's changes made to it, as a restarted engine runs
/// it: each ``KeptChange`` edits the file the way `iaa dump --graph` would have written it after
/// the change, so replaying is editing JSON, not performing commands again (which would ask the
/// session policy and JACK again, at another time).
struct KeptGraph {
    private(set) var root: [(String, ControlJSON)]
    /// Rule connections removed by hand, full port names (``RuleBook``).
    private(set) var held: [[String]]

    /// Nil when `text` is not a JSON object (a snapshot's graph always is).
    init?(text: String, held: [[String]]) {
        guard let pairs = (try? ControlJSONParser.parse(text))?.objectValue else { return nil }
        root = pairs
        self.held = held
    }

    /// The graph file, one line.
    var text: String { ControlJSON.object(root).text }

    mutating func apply(_ change: KeptChange) {
        switch change {
        case .parameter(let app, let param, let value):
            editApp(app) { pairs in
                var params = Self.value("params", in: pairs)?.objectValue ?? []
                Self.set(param, .number(value), in: &params)
                Self.set("params", .object(params), in: &pairs)
            }
        case .session(let app, let session):
            editApp(app) { pairs in
                guard var block = Self.value("session", in: pairs)?.objectValue else { return }
                for (key, value) in session.pairs where key != "foreground" { Self.set(key, value, in: &block) }
                Self.set("session", .object(block), in: &pairs)
                Self.set("state", .string(session.foreground ? "foreground" : "background"), in: &pairs)
            }
        case .connect(let from, let to, let gain):
            var list = Self.value("connections", in: root)?.arrayValue ?? []
            list.removeAll { Self.joins($0, from, to) }
            list.append(.object([("from", .string(from)), ("to", .string(to))] + (gain == 1 ? [] : [("gain", .number(gain))])))
            Self.set("connections", .array(list), in: &root)
        case .disconnect(let from, let to):
            let list = Self.value("connections", in: root)?.arrayValue ?? []
            Self.set("connections", .array(list.filter { !Self.joins($0, from, to) }), in: &root)
        case .jackConnect(let from, let to, let ports):
            held.removeAll { $0 == ports }
            editJackConnections { list in
                if !list.contains(where: { Self.joins($0, from, to) }) { list.append(.object([("from", .string(from)), ("to", .string(to))])) }
            }
        case .jackDisconnect(let from, let to, let ports, let rule):
            if rule {
                if !held.contains(ports) { held.append(ports) }
            } else {
                editJackConnections { list in list.removeAll { Self.joins($0, from, to) } }
            }
        }
    }

    private mutating func editApp(_ id: String, _ edit: (inout [(String, ControlJSON)]) -> Void) {
        guard var apps = Self.value("apps", in: root)?.arrayValue,
              let index = apps.firstIndex(where: { $0["id"]?.stringValue == id }),
              var pairs = apps[index].objectValue else { return }
        edit(&pairs)
        apps[index] = .object(pairs)
        Self.set("apps", .array(apps), in: &root)
    }

    private mutating func editJackConnections(_ edit: (inout [ControlJSON]) -> Void) {
        var jack = Self.value("jack", in: root)?.objectValue ?? []
        var list = Self.value("connections", in: jack)?.arrayValue ?? []
        edit(&list)
        Self.set("connections", .array(list), in: &jack)
        Self.set("jack", .object(jack), in: &root)
    }

    private static func joins(_ entry: ControlJSON, _ from: String, _ to: String) -> Bool {
        entry["from"]?.stringValue == from && entry["to"]?.stringValue == to
    }

    private static func value(_ key: String, in pairs: [(String, ControlJSON)]) -> ControlJSON? {
        pairs.first { $0.0 == key }?.1
    }

    /// Replaces `key`'s value where it is, or appends it.
    private static func set(_ key: String, _ value: ControlJSON, in pairs: inout [(String, ControlJSON)]) {
        if let index = pairs.firstIndex(where: { $0.0 == key }) { pairs[index].1 = value } else { pairs.append((key, value)) }
    }
}
