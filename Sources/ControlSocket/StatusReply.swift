/// The `status` reply (PROTOCOL.md, "Methods"): the engine writes it from this type and `iaa
/// status` reads it back into it, so neither spells a member's name by hand. Members the engine
/// has nothing for are null, as PROTOCOL.md documents them.
public struct StatusReply: Sendable, Equatable {
    public var graph: String
    public var jack: JackStatus
    public var transport: TransportStatus
    public var render: RenderStatus
    public var apps: [AppStatus]
    /// Whether an interruption is in progress.
    public var interruption: Bool
    public var jackConnections: [JackConnectionStatus]
    public var rules: [RuleStatus]
    /// The graph's `programs.admit`, nil when it has none.
    public var programs: AdmissionStatus?
    /// The link to the primary of a satellite, nil for an engine that decides alone.
    public var satellite: SatelliteStatus?
    public var state: KeptStateStatus

    public init(graph: String, jack: JackStatus, transport: TransportStatus = .init(), render: RenderStatus = .init(),
                apps: [AppStatus] = [], interruption: Bool = false, jackConnections: [JackConnectionStatus] = [],
                rules: [RuleStatus] = [], programs: AdmissionStatus? = nil, satellite: SatelliteStatus? = nil,
                state: KeptStateStatus = .init()) {
        self.graph = graph
        self.jack = jack
        self.transport = transport
        self.render = render
        self.apps = apps
        self.interruption = interruption
        self.jackConnections = jackConnections
        self.rules = rules
        self.programs = programs
        self.satellite = satellite
        self.state = state
    }

    public var json: ControlJSON {
        .object([
            ("graph", .string(graph)), ("jack", jack.json), ("transport", transport.json), ("render", render.json),
            ("apps", .array(apps.map(\.json))), ("interruption", .bool(interruption)),
            ("jackConnections", .array(jackConnections.map(\.json))), ("rules", .array(rules.map(\.json))),
            ("programs", programs?.json ?? .null), ("satellite", satellite?.json ?? .null), ("state", state.json),
        ])
    }

    public init?(json: ControlJSON) {
        guard let graph = json["graph"]?.stringValue, let jack = json["jack"].flatMap(JackStatus.init(json:)) else { return nil }
        self.init(graph: graph, jack: jack,
                  transport: json["transport"].flatMap(TransportStatus.init(json:)) ?? .init(),
                  render: json["render"].flatMap(RenderStatus.init(json:)) ?? .init(),
                  apps: json["apps"]?.arrayValue?.compactMap(AppStatus.init(json:)) ?? [],
                  interruption: json["interruption"]?.boolValue ?? false,
                  jackConnections: json["jackConnections"]?.arrayValue?.compactMap(JackConnectionStatus.init(json:)) ?? [],
                  rules: json["rules"]?.arrayValue?.compactMap(RuleStatus.init(json:)) ?? [],
                  programs: json["programs"].flatMap(AdmissionStatus.init(json:)),
                  satellite: json["satellite"].flatMap(SatelliteStatus.init(json:)),
                  state: json["state"].flatMap(KeptStateStatus.init(json:)) ?? .init())
    }
}

/// `status`'s `jack`: the server, the engine's client on it, and how its cycles go.
public struct JackStatus: Sendable, Equatable {
    /// The audio thread stuck in one cycle for more than 10 periods and 50 ms.
    public struct Stall: Sendable, Equatable {
        /// The app whose `process` the audio thread is in, when known.
        public var app: String?
        public var seconds: Double
        public var reason: String

        public init(app: String?, seconds: Double, reason: String) {
            self.app = app
            self.seconds = seconds
            self.reason = reason
        }
    }

    /// The engine's own processing per cycle since the client opened, µs.
    public struct CycleTime: Sendable, Equatable {
        public var median: Double
        public var p99: Double
        public var max: Double

        public init(median: Double, p99: Double, max: Double) {
            self.median = median
            self.p99 = p99
            self.max = max
        }
    }

    public var server: String
    public var client: String
    public var sampleRate: Double = 0
    public var bufferSize: Int = 0
    /// JACK's DSP load, percent.
    public var dspLoad: Double = 0
    public var xruns: Int = 0
    public var ourXruns: Int = 0
    public var preemptedCycles: Int = 0
    public var cycles: Int = 0
    public var cycleTime = CycleTime(median: 0, p99: 0, max: 0)
    public var deadlineFaults: Int = 0
    public var stalled: Stall?

    public init(server: String, client: String) {
        self.server = server
        self.client = client
    }

    public var json: ControlJSON {
        .object([
            ("server", .string(server)), ("client", .string(client)), ("sampleRate", .number(sampleRate)),
            ("bufferSize", .init(bufferSize)), ("dspLoad", .number(dspLoad)), ("xruns", .init(xruns)),
            ("ourXruns", .init(ourXruns)), ("preemptedCycles", .init(preemptedCycles)), ("cycles", .init(cycles)),
            ("cycleTime", .object([("median", .number(cycleTime.median)), ("p99", .number(cycleTime.p99)),
                                   ("max", .number(cycleTime.max))])),
            ("deadlineFaults", .init(deadlineFaults)),
            ("stalled", stalled.map { .object([("app", .init($0.app)), ("seconds", .number($0.seconds)), ("reason", .string($0.reason))]) }
                ?? .null),
        ])
    }

    public init?(json: ControlJSON) {
        guard let server = json["server"]?.stringValue, let client = json["client"]?.stringValue else { return nil }
        self.init(server: server, client: client)
        sampleRate = json["sampleRate"]?.doubleValue ?? 0
        bufferSize = json["bufferSize"]?.intValue ?? 0
        dspLoad = json["dspLoad"]?.doubleValue ?? 0
        xruns = json["xruns"]?.intValue ?? 0
        ourXruns = json["ourXruns"]?.intValue ?? 0
        preemptedCycles = json["preemptedCycles"]?.intValue ?? 0
        cycles = json["cycles"]?.intValue ?? 0
        if let times = json["cycleTime"] {
            cycleTime = CycleTime(median: times["median"]?.doubleValue ?? 0, p99: times["p99"]?.doubleValue ?? 0,
                                  max: times["max"]?.doubleValue ?? 0)
        }
        deadlineFaults = json["deadlineFaults"]?.intValue ?? 0
        if let stall = json["stalled"], let seconds = stall["seconds"]?.doubleValue, let reason = stall["reason"]?.stringValue {
            stalled = Stall(app: stall["app"]?.stringValue, seconds: seconds, reason: reason)
        }
    }
}

/// `status`'s `transport`: what nodes see this cycle (bar and beat count from 1, as JACK's do).
public struct TransportStatus: Sendable, Equatable {
    public var playing: Bool
    public var recording: Bool
    public var tempo: Double
    public var beatsPerBar: Double
    public var bar: Int
    public var beat: Int

    public init(playing: Bool = false, recording: Bool = false, tempo: Double = 120, beatsPerBar: Double = 4, bar: Int = 1, beat: Int = 1) {
        self.playing = playing
        self.recording = recording
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.bar = bar
        self.beat = beat
    }

    public var json: ControlJSON {
        .object([("playing", .bool(playing)), ("recording", .bool(recording)), ("tempo", .number(tempo)),
                 ("beatsPerBar", .number(beatsPerBar)), ("bar", .init(bar)), ("beat", .init(beat))])
    }

    public init?(json: ControlJSON) {
        guard let playing = json["playing"]?.boolValue else { return nil }
        self.init(playing: playing, recording: json["recording"]?.boolValue ?? false, tempo: json["tempo"]?.doubleValue ?? 120,
                  beatsPerBar: json["beatsPerBar"]?.doubleValue ?? 4, bar: json["bar"]?.intValue ?? 1, beat: json["beat"]?.intValue ?? 1)
    }
}

/// `status`'s `render`: the threads a cycle may run on (docs/parallel.md).
public struct RenderStatus: Sendable, Equatable {
    public struct Worker: Sendable, Equatable {
        /// Steps run since the worker started.
        public var steps: Int
        /// µs in the last cycle it joined.
        public var busy: Double

        public init(steps: Int, busy: Double) {
            self.steps = steps
            self.busy = busy
        }
    }

    public var threads: Int
    /// Whether the running plan's cycles are split across the threads now.
    public var split: Bool
    public var workers: [Worker]

    public init(threads: Int = 1, split: Bool = false, workers: [Worker] = []) {
        self.threads = threads
        self.split = split
        self.workers = workers
    }

    public var json: ControlJSON {
        .object([("threads", .init(threads)), ("split", .bool(split)),
                 ("workers", .array(workers.map { .object([("steps", .init($0.steps)), ("busy", .number($0.busy))]) }))])
    }

    public init?(json: ControlJSON) {
        guard let threads = json["threads"]?.intValue else { return nil }
        self.init(threads: threads, split: json["split"]?.boolValue ?? false,
                  workers: json["workers"]?.arrayValue?.compactMap { worker in
                      worker["steps"]?.intValue.map { Worker(steps: $0, busy: worker["busy"]?.doubleValue ?? 0) }
                  } ?? [])
    }
}

/// A JACK connection to one of the engine's ports.
public struct JackConnectionStatus: Sendable, Equatable {
    public var from: String
    public var to: String
    /// The graph rule that keeps it; nil when it was made outside the graph file.
    public var rule: String?
    /// The program app that routed it.
    public var program: String?

    public init(from: String, to: String, rule: String? = nil, program: String? = nil) {
        self.from = from
        self.to = to
        self.rule = rule
        self.program = program
    }

    public var json: ControlJSON {
        .object([("from", .string(from)), ("to", .string(to)), ("rule", .init(rule)), ("program", .init(program))])
    }

    public init?(json: ControlJSON) {
        guard let from = json["from"]?.stringValue, let to = json["to"]?.stringValue else { return nil }
        self.init(from: from, to: to, rule: json["rule"]?.stringValue, program: json["program"]?.stringValue)
    }
}

/// A `jack.connections` rule of the graph file and the connections it stands for (PROTOCOL.md, Rule).
public struct RuleStatus: Sendable, Equatable {
    /// Where a rule stands.
    public enum State: String, Sendable, CaseIterable {
        /// Every connection it stands for exists.
        case made
        /// Its outside port does not exist now; it is made when the port appears.
        case pending
        /// Removed by hand; made again when the program restarts, or on `apply`.
        case removed
        /// Both ports exist but JACK refuses the connection; retried twice a second.
        case refused
    }

    public struct Connection: Sendable, Equatable {
        public var from: String
        public var to: String
        public var made: Bool

        public init(from: String, to: String, made: Bool) {
            self.from = from
            self.to = to
            self.made = made
        }
    }

    public var rule: String
    public var state: State
    /// The port a pending rule waits for.
    public var waitingFor: String?
    public var connections: [Connection]

    public init(rule: String, state: State, waitingFor: String? = nil, connections: [Connection] = []) {
        self.rule = rule
        self.state = state
        self.waitingFor = waitingFor
        self.connections = connections
    }

    public var json: ControlJSON {
        .object([("rule", .string(rule)), ("state", .string(state.rawValue)), ("waitingFor", .init(waitingFor)),
                 ("connections", .array(connections.map { .object([("from", .string($0.from)), ("to", .string($0.to)), ("made", .bool($0.made))]) }))])
    }

    public init?(json: ControlJSON) {
        guard let rule = json["rule"]?.stringValue, let state = json["state"]?.stringValue.flatMap(State.init(rawValue:)) else { return nil }
        self.init(rule: rule, state: state, waitingFor: json["waitingFor"]?.stringValue,
                  connections: json["connections"]?.arrayValue?.compactMap { pair in
                      guard let from = pair["from"]?.stringValue, let to = pair["to"]?.stringValue else { return nil }
                      return Connection(from: from, to: to, made: pair["made"]?.boolValue ?? false)
                  } ?? [])
    }
}

/// A JACK client refused as a program app, and why.
public struct ProgramRefusal: Sendable, Equatable {
    public var name: String
    public var pid: Int?
    public var reason: String

    public init(name: String, pid: Int?, reason: String) {
        self.name = name
        self.pid = pid
        self.reason = reason
    }

    public var json: ControlJSON { .object([("name", .string(name)), ("pid", .init(pid)), ("reason", .string(reason))]) }

    public init?(json: ControlJSON) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.init(name: name, pid: json["pid"]?.intValue, reason: json["reason"]?.stringValue ?? "")
    }
}

/// `status`'s `programs`: the graph's `programs.admit` block, the apps it admitted and the
/// clients it refused.
public struct AdmissionStatus: Sendable, Equatable {
    public struct Admit: Sendable, Equatable {
        public var jackClient: String?
        public var uid: Int?
        public var executable: String?
        public var outputs: Int
        public var inputs: Int
        /// The ports an admitted app's outputs go to, and its inputs come from (`app:port`).
        public var to: [String]
        public var from: [String]
        public var limit: Int

        public init(jackClient: String?, uid: Int?, executable: String?, outputs: Int, inputs: Int, to: [String], from: [String], limit: Int) {
            self.jackClient = jackClient
            self.uid = uid
            self.executable = executable
            self.outputs = outputs
            self.inputs = inputs
            self.to = to
            self.from = from
            self.limit = limit
        }
    }

    public var admit: Admit
    public var admitted: [String]
    public var refused: [ProgramRefusal]

    public init(admit: Admit, admitted: [String], refused: [ProgramRefusal]) {
        self.admit = admit
        self.admitted = admitted
        self.refused = refused
    }

    public var json: ControlJSON {
        .object([
            ("admit", .object([
                ("jackClient", .init(admit.jackClient)), ("uid", .init(admit.uid)), ("executable", .init(admit.executable)),
                ("outputs", .init(admit.outputs)), ("inputs", .init(admit.inputs)),
                ("to", .init(admit.to)), ("from", .init(admit.from)), ("limit", .init(admit.limit)),
            ])),
            ("admitted", .init(admitted)), ("refused", .array(refused.map(\.json))),
        ])
    }

    public init?(json: ControlJSON) {
        guard let admit = json["admit"], admit.objectValue != nil else { return nil }
        self.init(admit: Admit(jackClient: admit["jackClient"]?.stringValue, uid: admit["uid"]?.intValue,
                               executable: admit["executable"]?.stringValue, outputs: admit["outputs"]?.intValue ?? 0,
                               inputs: admit["inputs"]?.intValue ?? 0, to: admit["to"]?.strings ?? [], from: admit["from"]?.strings ?? [],
                               limit: admit["limit"]?.intValue ?? 0),
                  admitted: json["admitted"]?.strings ?? [],
                  refused: json["refused"]?.arrayValue?.compactMap(ProgramRefusal.init(json:)) ?? [])
    }
}

/// `status`'s `satellite`: a satellite's link to its primary (docs/links.md).
public struct SatelliteStatus: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case joining, joined, fallback
    }

    /// The `--join` address.
    public var primary: String
    public var state: State
    public var since: Double
    public var reason: String?
    public var joins: Int
    /// The apps the primary decides for.
    public var apps: [String]

    public init(primary: String, state: State, since: Double, reason: String?, joins: Int, apps: [String]) {
        self.primary = primary
        self.state = state
        self.since = since
        self.reason = reason
        self.joins = joins
        self.apps = apps
    }

    public var json: ControlJSON {
        .object([("primary", .string(primary)), ("state", .string(state.rawValue)), ("since", .number(since)),
                 ("reason", .init(reason)), ("joins", .init(joins)), ("apps", .init(apps))])
    }

    public init?(json: ControlJSON) {
        guard let primary = json["primary"]?.stringValue, let state = json["state"]?.stringValue.flatMap(State.init(rawValue:)) else { return nil }
        self.init(primary: primary, state: state, since: json["since"]?.doubleValue ?? 0, reason: json["reason"]?.stringValue,
                  joins: json["joins"]?.intValue ?? 0, apps: json["apps"]?.strings ?? [])
    }
}

/// `status`'s `state`: what the engine keeps of acknowledged changes (docs/state.md).
public struct KeptStateStatus: Sendable, Equatable {
    /// What the start made of the kept state.
    public struct Start: Sendable, Equatable {
        public enum Outcome: String, Sendable, CaseIterable {
            /// Nothing was kept (a first start, `--fresh`, or what was kept could not be read).
            case none
            /// The kept state runs: the graph file is the one it grew from.
            case resumed
            /// The graph file changed since: it runs, and `dropped` says what the kept state had.
            case fileChanged
        }

        public var outcome: Outcome
        /// Journal records replayed onto the snapshot.
        public var replayed: Int
        /// What the kept state had that the changed graph file does not.
        public var dropped: [String]
        /// What could not be read, and why.
        public var discarded: [String]

        public init(outcome: Outcome, replayed: Int, dropped: [String], discarded: [String]) {
            self.outcome = outcome
            self.replayed = replayed
            self.dropped = dropped
            self.discarded = discarded
        }

        public var json: ControlJSON {
            .object([("outcome", .string(outcome.rawValue)), ("replayed", .init(replayed)), ("dropped", .init(dropped)),
                     ("discarded", .init(discarded))])
        }

        public init?(json: ControlJSON) {
            guard let outcome = json["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)) else { return nil }
            self.init(outcome: outcome, replayed: json["replayed"]?.intValue ?? 0, dropped: json["dropped"]?.strings ?? [],
                      discarded: json["discarded"]?.strings ?? [])
        }
    }

    /// Where and how far the engine keeps state; nil with `--no-state`.
    public struct Journal: Sendable, Equatable {
        public var folder: String
        /// The number of the last change kept.
        public var lastChange: Int
        /// Changes in the journal since the last snapshot.
        public var sinceSnapshot: Int
        /// Why changes are refused with `notDurable` now.
        public var refusing: String?
        public var start: Start

        public init(folder: String, lastChange: Int, sinceSnapshot: Int, refusing: String?, start: Start) {
            self.folder = folder
            self.lastChange = lastChange
            self.sinceSnapshot = sinceSnapshot
            self.refusing = refusing
            self.start = start
        }
    }

    public var journal: Journal?

    public init(journal: Journal? = nil) { self.journal = journal }

    public var json: ControlJSON {
        guard let journal else { return .object([("kept", .bool(false))]) }
        return .object([
            ("kept", .bool(true)), ("folder", .string(journal.folder)), ("lastChange", .init(journal.lastChange)),
            ("sinceSnapshot", .init(journal.sinceSnapshot)), ("refusing", .init(journal.refusing)), ("start", journal.start.json),
        ])
    }

    public init?(json: ControlJSON) {
        guard let kept = json["kept"]?.boolValue else { return nil }
        guard kept else { self.init(); return }
        guard let folder = json["folder"]?.stringValue, let start = json["start"].flatMap(Start.init(json:)) else { return nil }
        self.init(journal: Journal(folder: folder, lastChange: json["lastChange"]?.intValue ?? 0,
                                   sinceSnapshot: json["sinceSnapshot"]?.intValue ?? 0, refusing: json["refusing"]?.stringValue,
                                   start: start))
    }
}

extension ControlJSON {
    /// A whole number.
    init(_ value: Int) { self = .number(Double(value)) }
    /// The whole number, or null.
    init(_ value: Int?) { self = value.map { .number(Double($0)) } ?? .null }
    /// The string, or null.
    init(_ value: String?) { self = value.map(ControlJSON.string) ?? .null }
    /// The number, or null.
    init(_ value: Double?) { self = value.map(ControlJSON.number) ?? .null }
    /// An array of strings.
    init(_ values: [String]) { self = .array(values.map(ControlJSON.string)) }

    /// The strings of an array (its other elements left out).
    var strings: [String]? { arrayValue?.compactMap(\.stringValue) }
}
