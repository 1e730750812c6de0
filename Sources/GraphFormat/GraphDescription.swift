import LocatedJSON

/// A graph file as written, before validation: plain values, nothing resolved against a registry.
///
/// Required fields are optional here because a description with errors still exists (so that
/// every error can be found in one pass); ``Validator`` turns a clean one into a ``Graph``. The
/// `pointer` of each element is its place in the file, kept because skipped elements (not an
/// object) would otherwise shift the indices that errors report.
public struct GraphDescription: Sendable {
    /// The format this engine reads.
    public static let format = "iaa-graph/1"
    /// The JACK client name when the file names none.
    public static let defaultJackClient = "iaa"

    public var schema: String?
    public var format: String?
    public var name: String?
    public var apps: [AppDescription]
    public var connections: [ConnectionDescription]
    public var jack: JackDescription
    /// The `policy` block as written; absent settings keep their defaults.
    public var policy: PolicyDescription
    /// The `transport` block as written; absent settings keep their defaults.
    public var transport: TransportDescription
    /// The `latency` block as written; absent settings keep their defaults.
    public var latency: LatencyDescription
    /// The `isolation` block as written; absent settings keep their defaults.
    public var isolation: IsolationDescription = IsolationDescription()
    /// The `programs.admit` object as written (programs the graph does not name, admitted as
    /// apps); the ``Validator`` reads it, as it reads an app's `program`.
    public var admission: JSONNode?
    /// Where each value was written; empty for a description built in code.
    public var sourceMap: SourceMap

    public init(schema: String? = nil, format: String? = GraphDescription.format, name: String?,
                apps: [AppDescription] = [], connections: [ConnectionDescription] = [],
                jack: JackDescription = JackDescription(), policy: PolicyDescription = PolicyDescription(),
                transport: TransportDescription = TransportDescription(), latency: LatencyDescription = LatencyDescription(),
                sourceMap: SourceMap = SourceMap()) {
        self.schema = schema
        self.format = format
        self.name = name
        self.apps = apps
        self.connections = connections
        self.jack = jack
        self.policy = policy
        self.transport = transport
        self.latency = latency
        self.sourceMap = sourceMap
    }

    /// The JACK client name the engine opens: `jack.client`, or `"iaa"`.
    public var jackClientName: String { jack.client ?? Self.defaultJackClient }
}

/// A parameter or configuration value as written: a number, or a string such as `"-6dB"`.
public enum ValueLiteral: Sendable, Hashable {
    case number(Double)
    case text(String)
}

extension ValueLiteral {
    /// A number or a string such as `example` (graph and timeline files alike); whether it means
    /// something is checked later.
    static func read(_ node: JSONNode, at pointer: @autoclosure () -> String, example: String, _ sink: inout DiagnosticSink) -> ValueLiteral? {
        // Read in place: `node.value` would make the number's text too.
        if let number = node.number { return .number(number) }
        if let text = node.string { return .text(text) }
        sink.error(.wrongType, at: pointer(), "expected a number or a string such as \"\(example)\", not \(node.typeName)")
        return nil
    }
}

/// One `params` entry of an app.
public struct ParameterAssignment: Sendable, Hashable {
    public var name: String
    public var value: ValueLiteral

    public init(name: String, value: ValueLiteral) {
        self.name = name
        self.value = value
    }
}

/// One element of `apps`.
public struct AppDescription: Sendable {
    public var id: String?
    /// `host`, `node` or `app`; kept as written so that a misspelling can be reported.
    public var role: String?
    public var plugin: String?
    /// In the order written.
    public var params: [ParameterAssignment]
    /// The `session` object as written; its presence makes the app one the policy manages. The
    /// ``Validator`` reads it, so that a description built in code is checked the same way.
    public var session: JSONNode?
    /// Names as written: the grants (`entitlements`), what the app asks for (`requires`), its
    /// background modes and its initial `state`; checked by the ``Validator``.
    public var entitlements: [String]?
    public var requires: [String]?
    public var backgroundModes: [String]?
    /// The Inter-App Audio `component` object as written; the ``Validator`` reads it (as it reads
    /// `session`), so that a description built in code is checked the same way.
    public var component: JSONNode?
    /// The `program` object as written (a program app); the ``Validator`` reads it.
    public var program: JSONNode?
    /// The `link` object as written (one end of an audio link to another machine, docs/links.md).
    public var link: JSONNode?
    public var state: String?
    public var name: String?
    public var displayName: String?
    /// A plugin's saved state (LV2 state as Turtle, as `iaa dump --graph` writes it).
    public var pluginState: String?
    /// `process`, `none` or `auto` as written; checked by the ``Validator``.
    public var isolation: String?
    /// Where this app is in the file (`/apps/2`).
    public var pointer: String {
        get { place.pointer }
        set { place = .written(newValue) }
    }
    var place: ElementPlace
    /// The objects among `session`, `component`, `program` and `link` written with another type: reported
    /// while reading, they still count as written (a mistyped `session` still makes the app managed).
    public var mistyped: Set<String> = []

    public init(id: String?, role: String? = nil, plugin: String?, params: [ParameterAssignment] = [],
                session: JSONNode? = nil, entitlements: [String]? = nil, requires: [String]? = nil,
                backgroundModes: [String]? = nil,
                component: JSONNode? = nil, state: String? = nil, name: String? = nil,
                displayName: String? = nil, pointer: String) {
        place = .written(pointer)
        self.id = id
        self.role = role
        self.plugin = plugin
        self.params = params
        self.session = session
        self.entitlements = entitlements
        self.requires = requires
        self.backgroundModes = backgroundModes
        self.component = component
        self.state = state
        self.name = name
        self.displayName = displayName
    }
}

/// The `policy` object: each setting a number or a string with a unit, range-checked by the
/// ``Validator``.
public struct PolicyDescription: Sendable {
    /// Decibels: a number or a string such as `"-12dB"`.
    public var duckLevel: ValueLiteral?
    /// Seconds: a number or a string such as `"10ms"` or `"0.01s"`.
    public var rampTime: ValueLiteral?
    /// Seconds: a number or a string such as `"30s"`.
    public var backgroundTaskTime: ValueLiteral?

    public init(duckLevel: ValueLiteral? = nil, rampTime: ValueLiteral? = nil, backgroundTaskTime: ValueLiteral? = nil) {
        self.duckLevel = duckLevel
        self.rampTime = rampTime
        self.backgroundTaskTime = backgroundTaskTime
    }
}

/// The `isolation` object: the apps' default and the restart limit, checked by the ``Validator``.
public struct IsolationDescription: Sendable {
    public var defaultChoice: String?
    public var maxCrashes: Double?
    /// Seconds: a number or a string such as `"60s"`.
    public var crashWindow: ValueLiteral?

    public init(defaultChoice: String? = nil, maxCrashes: Double? = nil, crashWindow: ValueLiteral? = nil) {
        self.defaultChoice = defaultChoice
        self.maxCrashes = maxCrashes
        self.crashWindow = crashWindow
    }
}

/// The `transport` object: the host tempo and meter, range-checked by the ``Validator``.
public struct TransportDescription: Sendable {
    /// Beats per minute.
    public var tempo: Double?
    public var beatsPerBar: Double?
    public var playing: Bool?
    public var timebaseMaster: Bool?

    public init(tempo: Double? = nil, beatsPerBar: Double? = nil, playing: Bool? = nil, timebaseMaster: Bool? = nil) {
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.playing = playing
        self.timebaseMaster = timebaseMaster
    }
}

/// The `latency` object: whether paths of different latency that meet are aligned.
public struct LatencyDescription: Sendable {
    /// Plugin delay compensation; on when absent.
    public var compensate: Bool?

    public init(compensate: Bool? = nil) {
        self.compensate = compensate
    }
}

/// One element of `connections`: `"APP:PORT"` to `"APP:PORT"`.
public struct ConnectionDescription: Sendable {
    public var from: String?
    public var to: String?
    public var gain: ValueLiteral?
    /// Where this connection is in the file (`/connections/3`).
    public var pointer: String {
        get { place.pointer }
        set { place = .written(newValue) }
    }
    var place: ElementPlace

    public init(from: String?, to: String?, gain: ValueLiteral? = nil, pointer: String) {
        self.init(from: from, to: to, gain: gain, place: .written(pointer))
    }

    init(from: String?, to: String?, gain: ValueLiteral? = nil, place: ElementPlace) {
        self.from = from
        self.to = to
        self.gain = gain
        self.place = place
    }
}

/// Where an element of one of a graph file's arrays is: its JSON pointer, made only when asked.
///
/// A large graph has thousands of apps and connections and almost never an error to report:
/// writing `/connections/4711` for each (a heap string past 15 bytes) was a tenth of reading it.
enum ElementPlace: Sendable {
    case written(String)
    case element(of: StaticString, Int)

    var pointer: String {
        switch self {
        case .written(let pointer): pointer
        case .element(let array, let index): JSONPointer.appending(array.description, index)
        }
    }
}

/// The `jack` object: the client name and connections to ports outside the engine.
public struct JackDescription: Sendable {
    public var client: String?
    public var connections: [JackConnectionDescription]
    /// `expose` as written ("all", "none" or APP:PORT patterns); the validator reads it.
    public var expose: JSONNode?

    public init(client: String? = nil, connections: [JackConnectionDescription] = []) {
        self.client = client
        self.connections = connections
    }
}

/// One element of `jack.connections`; exactly one side is an app port or a glob over one app.
public struct JackConnectionDescription: Sendable {
    public var from: String?
    public var to: String?
    public var pointer: String

    public init(from: String?, to: String?, pointer: String) {
        self.from = from
        self.to = to
        self.pointer = pointer
    }
}
