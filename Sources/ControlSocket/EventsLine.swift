/// One line of the `events` stream (PROTOCOL.md, `events`): `{"t", KIND: {…}}` where KIND is
/// `event`, `connection`, `xrun`, `transport` or `reload`. The engine writes every line from this
/// type; readers read it back into it and print or keep lines of a kind they do not know as they are.
public struct EventsLine: Sendable, Equatable {
    /// Seconds on the engine's clock.
    public var time: Double
    public var content: Content

    public enum Content: Sendable, Equatable {
        /// An audio session's event or one of the engine's own (``EngineEvent``).
        case event(EngineEvent)
        /// A JACK connection of one of the engine's ports made or broken, by anyone.
        case connection(ConnectionChange)
        /// A control tick (100 ms) during which JACK reported xruns or a cycle ran past the period.
        case xrun(XrunReport)
        /// A node toggled the transport's recording.
        case transport(RecordingToggle)
        /// An app runs a rebuilt plugin library now.
        case reload(ReloadNotice)
    }

    public init(time: Double, _ content: Content) {
        self.time = time
        self.content = content
    }

    public var json: ControlJSON {
        let (key, payload): (String, ControlJSON) = switch content {
        case .event(let event): ("event", event.json)
        case .connection(let change): ("connection", change.json)
        case .xrun(let report): ("xrun", report.json)
        case .transport(let toggle): ("transport", toggle.json)
        case .reload(let notice): ("reload", notice.json)
        }
        return .object([("t", .number(time)), (key, payload)])
    }

    /// Reads a line; nil when it is none of the kinds above or a member it needs is missing.
    public init?(json: ControlJSON) {
        guard let time = json["t"]?.doubleValue else { return nil }
        if let payload = json["event"] {
            guard let event = EngineEvent(json: payload) else { return nil }
            self.init(time: time, .event(event))
        } else if let payload = json["connection"] {
            guard let change = ConnectionChange(json: payload) else { return nil }
            self.init(time: time, .connection(change))
        } else if let payload = json["xrun"] {
            guard let report = XrunReport(json: payload) else { return nil }
            self.init(time: time, .xrun(report))
        } else if let payload = json["transport"] {
            guard let toggle = RecordingToggle(json: payload) else { return nil }
            self.init(time: time, .transport(toggle))
        } else if let payload = json["reload"] {
            guard let notice = ReloadNotice(json: payload) else { return nil }
            self.init(time: time, .reload(notice))
        } else {
            return nil
        }
    }
}

/// `{"from", "to", "connected", "by"}`: a connection of the engine's ports changed.
public struct ConnectionChange: Sendable, Equatable {
    public enum Maker: String, Sendable, CaseIterable {
        /// The engine made or broke it (a graph's rule, `iaa connect`, a program's route).
        case iaa
        /// Someone else did: `jack_connect`, a patchbay, another program.
        case outside
    }

    public var from: String
    public var to: String
    public var connected: Bool
    public var by: Maker

    public init(from: String, to: String, connected: Bool, by: Maker) {
        self.from = from
        self.to = to
        self.connected = connected
        self.by = by
    }

    public var json: ControlJSON {
        .object([("from", .string(from)), ("to", .string(to)), ("connected", .bool(connected)), ("by", .string(by.rawValue))])
    }

    public init?(json: ControlJSON) {
        guard let from = json["from"]?.stringValue, let to = json["to"]?.stringValue,
              let connected = json["connected"]?.boolValue, let by = json["by"]?.stringValue.flatMap(Maker.init(rawValue:)) else { return nil }
        self.init(from: from, to: to, connected: connected, by: by)
    }
}

/// `{"count", "ours", "oursCount", "preempted", "cycle"}`: the xruns of one control tick.
public struct XrunReport: Sendable, Equatable {
    /// Xruns JACK reported.
    public var count: Int
    /// Cycles past the period on the engine's own CPU time (its xruns).
    public var oursCount: Int
    /// Cycles past the period by the clock only: the system took the CPU away.
    public var preempted: Int
    /// The engine's cycle count then, for context.
    public var cycle: Int

    public init(count: Int, oursCount: Int, preempted: Int, cycle: Int) {
        self.count = count
        self.oursCount = oursCount
        self.preempted = preempted
        self.cycle = cycle
    }

    /// Whether any of them was the engine's.
    public var ours: Bool { oursCount > 0 }

    public var json: ControlJSON {
        .object([("count", .init(count)), ("ours", .bool(ours)), ("oursCount", .init(oursCount)), ("preempted", .init(preempted)),
                 ("cycle", .init(cycle))])
    }

    public init?(json: ControlJSON) {
        guard let count = json["count"]?.intValue, let oursCount = json["oursCount"]?.intValue else { return nil }
        self.init(count: count, oursCount: oursCount, preempted: json["preempted"]?.intValue ?? 0, cycle: json["cycle"]?.intValue ?? 0)
    }
}

/// `{"recording", "by"}`: a node toggled the transport's recording.
public struct RecordingToggle: Sendable, Equatable {
    public var recording: Bool
    /// The app that asked.
    public var by: String

    public init(recording: Bool, by: String) {
        self.recording = recording
        self.by = by
    }

    public var json: ControlJSON { .object([("recording", .bool(recording)), ("by", .string(by))]) }

    public init?(json: ControlJSON) {
        guard let recording = json["recording"]?.boolValue, let by = json["by"]?.stringValue else { return nil }
        self.init(recording: recording, by: by)
    }
}

/// `{"app", "library", "by"}`: an app runs a rebuilt plugin library now.
public struct ReloadNotice: Sendable, Equatable {
    public enum Cause: String, Sendable, CaseIterable {
        /// `iaa reload APP`.
        case request
        /// `iaa run --watch` saw the file written.
        case watch
        /// `iaa apply` of a graph whose library changed.
        case apply
    }

    public var app: String
    public var library: String
    public var by: Cause

    public init(app: String, library: String, by: Cause) {
        self.app = app
        self.library = library
        self.by = by
    }

    public var json: ControlJSON { .object([("app", .string(app)), ("library", .string(library)), ("by", .string(by.rawValue))]) }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let library = json["library"]?.stringValue,
              let by = json["by"]?.stringValue.flatMap(Cause.init(rawValue:)) else { return nil }
        self.init(app: app, library: library, by: by)
    }
}
