/// One app in `status` and `dump` (PROTOCOL.md, App): what it is, the gain the policy gives it,
/// why it is silent if it is, and its session, program, link, isolation and latency.
public struct AppStatus: Sendable, Equatable {
    /// A plugin's control output (a meter, gain reduction, latency), by symbol.
    public struct Reading: Sendable, Equatable {
        public var name: String
        public var value: Double

        public init(name: String, value: Double) {
            self.name = name
            self.value = value
        }
    }

    public var id: String
    /// `host`, `node` or `app`.
    public var role: String
    /// The node type's name (`builtin:mixer`, `lv2:…`).
    public var plugin: String
    /// An Inter-App Audio component's codes.
    public var component: String?
    /// The hosts a node is connected to.
    public var hosts: [String] = []
    /// The policy's gain target.
    public var gain: Double = 1
    /// Faulted, or an isolated child not playing.
    public var muted = false
    /// Why the engine stopped running its node.
    public var fault: Fault?
    public var isolation: Isolation?
    public var library: Library?
    /// nil for nodes that report none.
    public var outputs: [Reading]?
    public var latency: Latency?
    /// nil for an app the policy does not manage.
    public var session: SessionStatus?
    public var program: Program?
    public var link: Link?

    public init(id: String, role: String, plugin: String) {
        self.id = id
        self.role = role
        self.plugin = plugin
    }

    public var json: ControlJSON {
        .object([
            ("id", .string(id)), ("role", .string(role)), ("plugin", .string(plugin)), ("component", .init(component)),
            ("hosts", .init(hosts)), ("gain", .number(gain)), ("muted", .bool(muted)), ("fault", fault?.json ?? .null),
            ("isolation", isolation?.json ?? .null), ("library", library?.json ?? .null),
            ("outputs", outputs.map { .object($0.map { ($0.name, .number($0.value)) }) } ?? .null),
            ("latency", latency?.json ?? .null), ("session", session?.json ?? .null), ("program", program?.json ?? .null),
            ("link", link?.json ?? .null),
        ])
    }

    public init?(json: ControlJSON) {
        guard let id = json["id"]?.stringValue else { return nil }
        self.init(id: id, role: json["role"]?.stringValue ?? "app", plugin: json["plugin"]?.stringValue ?? "")
        component = json["component"]?.stringValue
        hosts = json["hosts"]?.strings ?? []
        gain = json["gain"]?.doubleValue ?? 1
        muted = json["muted"]?.boolValue ?? false
        fault = json["fault"].flatMap(Fault.init(json:))
        isolation = json["isolation"].flatMap(Isolation.init(json:))
        library = json["library"].flatMap(Library.init(json:))
        outputs = json["outputs"]?.objectValue?.compactMap { name, value in value.doubleValue.map { Reading(name: name, value: $0) } }
        latency = json["latency"].flatMap(Latency.init(json:))
        session = json["session"].flatMap(SessionStatus.init(json:))
        program = json["program"].flatMap(Program.init(json:))
        link = json["link"].flatMap(Link.init(json:))
    }

    /// Why the engine stopped running an app's node.
    public struct Fault: Sendable, Equatable {
        /// `deadline`, `nonFinite` or `hang`.
        public var kind: String
        /// `bypassed`, `muted` or `stalled`.
        public var action: String
        public var reason: String

        public init(kind: String, action: String, reason: String) {
            self.kind = kind
            self.action = action
            self.reason = reason
        }

        public var json: ControlJSON { .object([("kind", .string(kind)), ("action", .string(action)), ("reason", .string(reason))]) }

        public init?(json: ControlJSON) {
            guard let kind = json["kind"]?.stringValue, let action = json["action"]?.stringValue else { return nil }
            self.init(kind: kind, action: action, reason: json["reason"]?.stringValue ?? "")
        }
    }

    /// The plugin library the app's node came from.
    public struct Library: Sendable, Equatable {
        public var path: String
        /// The loaded file's identity.
        public var identity: String
        /// The file on disk is not the one loaded: `iaa reload` swaps it in.
        public var rebuilt: Bool

        public init(path: String, identity: String, rebuilt: Bool) {
            self.path = path
            self.identity = identity
            self.rebuilt = rebuilt
        }

        public var json: ControlJSON { .object([("path", .string(path)), ("identity", .string(identity)), ("rebuilt", .bool(rebuilt))]) }

        public init?(json: ControlJSON) {
            guard let path = json["path"]?.stringValue else { return nil }
            self.init(path: path, identity: json["identity"]?.stringValue ?? "", rebuilt: json["rebuilt"]?.boolValue ?? false)
        }
    }

    /// The app's latency as the running plan aligns it, in frames (docs/latency.md).
    public struct Latency: Sendable, Equatable {
        /// The delay on one compensated connection into the app.
        public struct Compensation: Sendable, Equatable {
            public var from: String
            public var to: String
            public var delay: Int

            public init(from: String, to: String, delay: Int) {
                self.from = from
                self.to = to
                self.delay = delay
            }
        }

        public var own: Int
        /// When its inputs meet, and when its output leaves.
        public var arrival: Int
        public var output: Int
        /// The delay on an outside signal entering its ports.
        public var outside: Int
        public var compensation: [Compensation]

        public init(own: Int, arrival: Int, output: Int, outside: Int, compensation: [Compensation]) {
            self.own = own
            self.arrival = arrival
            self.output = output
            self.outside = outside
            self.compensation = compensation
        }

        public var json: ControlJSON {
            .object([
                ("own", .init(own)), ("arrival", .init(arrival)), ("output", .init(output)), ("outside", .init(outside)),
                ("compensation", .array(compensation.map { .object([("from", .string($0.from)), ("to", .string($0.to)), ("delay", .init($0.delay))]) })),
            ])
        }

        public init?(json: ControlJSON) {
            guard let own = json["own"]?.intValue else { return nil }
            self.init(own: own, arrival: json["arrival"]?.intValue ?? 0, output: json["output"]?.intValue ?? 0,
                      outside: json["outside"]?.intValue ?? 0,
                      compensation: json["compensation"]?.arrayValue?.compactMap { entry in
                          guard let from = entry["from"]?.stringValue, let to = entry["to"]?.stringValue,
                                let delay = entry["delay"]?.intValue else { return nil }
                          return Compensation(from: from, to: to, delay: delay)
                      } ?? [])
        }
    }
}

/// An app's audio session in `status` (PROTOCOL.md, App's `session`).
public struct SessionStatus: Sendable, Equatable {
    public var category: String
    public var mode: String
    public var options: [String]
    public var active = false
    public var audible = false
    public var gain: Double = 1
    public var ducked = false
    public var interrupted = false
    public var suspended = false
    public var foreground = false
    public var playing = false
    public var otherAudioPlaying = false
    public var secondaryAudioShouldBeSilencedHint = false
    /// Seconds left of a background task, while one runs.
    public var backgroundTimeRemaining: Double?

    public init(category: String, mode: String, options: [String]) {
        self.category = category
        self.mode = mode
        self.options = options
    }

    public var json: ControlJSON {
        var pairs: [(String, ControlJSON)] = [
            ("category", .string(category)), ("mode", .string(mode)), ("options", .init(options)),
            ("active", .bool(active)), ("audible", .bool(audible)), ("gain", .number(gain)), ("ducked", .bool(ducked)),
            ("interrupted", .bool(interrupted)), ("suspended", .bool(suspended)), ("foreground", .bool(foreground)),
            ("playing", .bool(playing)), ("otherAudioPlaying", .bool(otherAudioPlaying)),
            ("secondaryAudioShouldBeSilencedHint", .bool(secondaryAudioShouldBeSilencedHint)),
        ]
        if let backgroundTimeRemaining { pairs.append(("backgroundTimeRemaining", .number(backgroundTimeRemaining))) }
        return .object(pairs)
    }

    public init?(json: ControlJSON) {
        guard let category = json["category"]?.stringValue else { return nil }
        self.init(category: category, mode: json["mode"]?.stringValue ?? "default", options: json["options"]?.strings ?? [])
        let flag = { (key: String) in json[key]?.boolValue ?? false }
        active = flag("active")
        audible = flag("audible")
        gain = json["gain"]?.doubleValue ?? 1
        ducked = flag("ducked")
        interrupted = flag("interrupted")
        suspended = flag("suspended")
        foreground = flag("foreground")
        playing = flag("playing")
        otherAudioPlaying = flag("otherAudioPlaying")
        secondaryAudioShouldBeSilencedHint = flag("secondaryAudioShouldBeSilencedHint")
        backgroundTimeRemaining = json["backgroundTimeRemaining"]?.doubleValue
    }
}

extension AppStatus {
    /// An isolated app's child process (docs/isolation.md).
    public struct Isolation: Sendable, Equatable {
        /// Why the child stopped playing.
        public struct Fault: Sendable, Equatable {
            /// `crashed`, `exited`, `hung`, `nonFinite`…
            public var kind: String
            /// The signal that ended it (`SIGSEGV`).
            public var signal: String?
            public var reason: String

            public init(kind: String, signal: String?, reason: String) {
                self.kind = kind
                self.signal = signal
                self.reason = reason
            }
        }

        /// Where the child is.
        public enum State: String, Sendable, CaseIterable {
            /// Being started (first start or restart) and not ready yet.
            case starting
            case running
            /// It faulted; a new child starts after the backoff.
            case restarting
            /// It faulted too often (or its node cannot be created): off until `iaa enable`.
            case off
        }

        public var state: State
        public var pid: Int?
        public var restarts: Int
        public var lateCycles: Int
        /// What the child is kept from doing.
        public var restrictions: [String]
        public var fault: Fault?
        /// How to bring back a child left off.
        public var note: String?

        public init(state: State, pid: Int?, restarts: Int, lateCycles: Int, restrictions: [String], fault: Fault?, note: String?) {
            self.state = state
            self.pid = pid
            self.restarts = restarts
            self.lateCycles = lateCycles
            self.restrictions = restrictions
            self.fault = fault
            self.note = note
        }

        public var json: ControlJSON {
            var pairs: [(String, ControlJSON)] = [
                ("state", .string(state.rawValue)), ("pid", .init(pid)), ("restarts", .init(restarts)), ("lateCycles", .init(lateCycles)),
                ("restrictions", .init(restrictions)),
                ("fault", fault.map { .object([("kind", .string($0.kind)), ("signal", .init($0.signal)), ("reason", .string($0.reason))]) } ?? .null),
            ]
            if let note { pairs.append(("note", .string(note))) }
            return .object(pairs)
        }

        public init?(json: ControlJSON) {
            guard let state = json["state"]?.stringValue.flatMap(State.init(rawValue:)) else { return nil }
            var fault: Fault?
            if let kind = json["fault"]?["kind"]?.stringValue {
                fault = Fault(kind: kind, signal: json["fault"]?["signal"]?.stringValue, reason: json["fault"]?["reason"]?.stringValue ?? "")
            }
            self.init(state: state, pid: json["pid"]?.intValue, restarts: json["restarts"]?.intValue ?? 0,
                      lateCycles: json["lateCycles"]?.intValue ?? 0, restrictions: json["restrictions"]?.strings ?? [],
                      fault: fault, note: json["note"]?.stringValue)
        }
    }
}

extension AppStatus {
    /// A program app's processes (docs/programs.md).
    public struct Program: Sendable, Equatable {
        /// One JACK client bound to the app.
        public struct Client: Sendable, Equatable {
            public var name: String
            public var pid: Int?
            /// The connections routed through the app's ports.
            public var ports: [ConnectionEnds]
            /// Its ports not routed.
            public var unrouted: [String]

            public init(name: String, pid: Int?, ports: [ConnectionEnds], unrouted: [String]) {
                self.name = name
                self.pid = pid
                self.ports = ports
                self.unrouted = unrouted
            }

        }

        /// The pattern the app's JACK clients are named by.
        public var jackClient: String?
        /// An app `programs.admit` made for a client, not one the graph names.
        public var admitted: Bool
        public var running: Bool
        /// `undo` or `allow`: what happens to the connections the program makes itself.
        public var directConnections: String
        public var clients: [Client]
        public var refused: [ProgramRefusal]
        /// The pid of the process attached to the app's session.
        public var attached: Int?

        public init(jackClient: String?, admitted: Bool, running: Bool, directConnections: String, clients: [Client],
                    refused: [ProgramRefusal], attached: Int?) {
            self.jackClient = jackClient
            self.admitted = admitted
            self.running = running
            self.directConnections = directConnections
            self.clients = clients
            self.refused = refused
            self.attached = attached
        }

        public var json: ControlJSON {
            .object([
                ("jackClient", .init(jackClient)), ("admitted", .bool(admitted)), ("running", .bool(running)),
                ("directConnections", .string(directConnections)),
                ("clients", .array(clients.map { client in
                    .object([("name", .string(client.name)), ("pid", .init(client.pid)),
                             ("ports", .array(client.ports.map(\.json))),
                             ("unrouted", .init(client.unrouted))])
                })),
                ("refused", .array(refused.map(\.json))), ("attached", .init(attached)),
            ])
        }

        public init?(json: ControlJSON) {
            guard json.objectValue != nil, let directConnections = json["directConnections"]?.stringValue else { return nil }
            self.init(jackClient: json["jackClient"]?.stringValue, admitted: json["admitted"]?.boolValue ?? false,
                      running: json["running"]?.boolValue ?? false, directConnections: directConnections,
                      clients: json["clients"]?.arrayValue?.compactMap { client in
                          guard let name = client["name"]?.stringValue else { return nil }
                          return Client(name: name, pid: client["pid"]?.intValue,
                                        ports: client["ports"]?.arrayValue?.compactMap(ConnectionEnds.init(json:)) ?? [],
                                        unrouted: client["unrouted"]?.strings ?? [])
                      } ?? [],
                      refused: json["refused"]?.arrayValue?.compactMap(ProgramRefusal.init(json:)) ?? [],
                      attached: json["attached"]?.intValue)
        }
    }
}

extension AppStatus {
    /// A link end's bridge (docs/links.md, PROTOCOL.md's Link).
    public struct Link: Sendable, Equatable {
        /// The sender a receiving end hears.
        public struct Sender: Sendable, Equatable {
            public var address: String
            public var channels: Int
            public var sampleRate: Int

            public init(address: String, channels: Int, sampleRate: Int) {
                self.address = address
                self.channels = channels
                self.sampleRate = sampleRate
            }
        }

        /// The receiver's resampler: its delay's error against the target (frames), its ratio, and
        /// the fewest frames its buffer held in the last quarter second (below 0: it ran dry).
        public struct Resampler: Sendable, Equatable {
            public var error: Double
            public var ratio: Double
            public var fewestFrames: Int

            public init(error: Double, ratio: Double, fewestFrames: Int) {
                self.error = error
                self.ratio = ratio
                self.fewestFrames = fewestFrames
            }
        }

        /// `send` or `receive`.
        public var direction: String
        public var address: String
        public var channels: Int
        /// The bridge program, and its JACK client.
        public var bridge: String
        public var client: String
        /// Where a link end is, from its bridge's words.
        public enum State: String, Sendable, CaseIterable {
            /// The bridge process is starting (a sending end: until its JACK client is there).
            case starting
            /// A receiving end listens; no sender yet.
            case waiting
            /// A sender is heard and the receiver locks onto its clock.
            case locking
            /// Audio crosses: the receiver is locked, or the sender's client is up.
            case running
            /// The sender went away or the receive buffer ran dry: silence until it locks again.
            case lost
            /// The bridge process ended; it starts again after a pause that grows while it keeps failing.
            case restarting
        }

        public var state = State.starting
        /// When it took its state, on the engine's clock.
        public var since: Double?
        public var pid: Int?
        /// The latency it reports (frames): a receiving end's buffer.
        public var latency = 0
        /// Seconds from the sender's first packet to running.
        public var lockedAfter: Double?
        public var restarts = 0
        public var dropouts = 0
        public var underruns = 0
        public var sender: Sender?
        public var resampler: Resampler?
        public var lastExit: String?
        public var lastMessage: String?

        public init(direction: String, address: String, channels: Int, bridge: String, client: String) {
            self.direction = direction
            self.address = address
            self.channels = channels
            self.bridge = bridge
            self.client = client
        }

        public var json: ControlJSON {
            .object([
                ("direction", .string(direction)), ("address", .string(address)), ("channels", .init(channels)),
                ("bridge", .string(bridge)), ("client", .string(client)), ("state", .string(state.rawValue)), ("since", .init(since)),
                ("pid", .init(pid)), ("latency", .init(latency)), ("lockedAfter", .init(lockedAfter)),
                ("restarts", .init(restarts)), ("dropouts", .init(dropouts)), ("underruns", .init(underruns)),
                ("sender", sender.map { .object([("address", .string($0.address)), ("channels", .init($0.channels)),
                                                 ("sampleRate", .init($0.sampleRate))]) } ?? .null),
                ("resampler", resampler.map { .object([("error", .number($0.error)), ("ratio", .number($0.ratio)),
                                                       ("fewestFrames", .init($0.fewestFrames))]) } ?? .null),
                ("lastExit", .init(lastExit)), ("lastMessage", .init(lastMessage)),
            ])
        }

        public init?(json: ControlJSON) {
            guard let direction = json["direction"]?.stringValue, let address = json["address"]?.stringValue else { return nil }
            self.init(direction: direction, address: address, channels: json["channels"]?.intValue ?? 0,
                      bridge: json["bridge"]?.stringValue ?? "", client: json["client"]?.stringValue ?? "")
            state = json["state"]?.stringValue.flatMap(State.init(rawValue:)) ?? .starting
            since = json["since"]?.doubleValue
            pid = json["pid"]?.intValue
            latency = json["latency"]?.intValue ?? 0
            lockedAfter = json["lockedAfter"]?.doubleValue
            restarts = json["restarts"]?.intValue ?? 0
            dropouts = json["dropouts"]?.intValue ?? 0
            underruns = json["underruns"]?.intValue ?? 0
            if let heard = json["sender"], let address = heard["address"]?.stringValue {
                sender = Sender(address: address, channels: heard["channels"]?.intValue ?? 0, sampleRate: heard["sampleRate"]?.intValue ?? 0)
            }
            if let figures = json["resampler"], let error = figures["error"]?.doubleValue {
                resampler = Resampler(error: error, ratio: figures["ratio"]?.doubleValue ?? 1, fewestFrames: figures["fewestFrames"]?.intValue ?? 0)
            }
            lastExit = json["lastExit"]?.stringValue
            lastMessage = json["lastMessage"]?.stringValue
        }
    }
}

/// The two ends of a JACK connection, by full port name.
public struct ConnectionEnds: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    public var json: ControlJSON { .object([("from", .string(from)), ("to", .string(to))]) }

    public init?(json: ControlJSON) {
        guard let from = json["from"]?.stringValue, let to = json["to"]?.stringValue else { return nil }
        self.init(from: from, to: to)
    }
}
