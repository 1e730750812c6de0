/// `dump` (PROTOCOL.md, "Methods"): the running graph as the engine holds it, its apps as in
/// `status`. The engine writes it from this type.
public struct DumpReply: Sendable, Equatable {
    /// A connection inside the graph, with its gain.
    public struct Connection: Sendable, Equatable {
        public var from: String
        public var to: String
        public var gain: Double

        public init(from: String, to: String, gain: Double) {
            self.from = from
            self.to = to
            self.gain = gain
        }
    }

    /// The policy's figures: the duck level (dB), the ramp and the background task time (s).
    public struct Policy: Sendable, Equatable {
        public var duckLevel: Double
        public var rampTime: Double
        public var backgroundTaskTime: Double

        public init(duckLevel: Double, rampTime: Double, backgroundTaskTime: Double) {
            self.duckLevel = duckLevel
            self.rampTime = rampTime
            self.backgroundTaskTime = backgroundTaskTime
        }
    }

    /// The device's switches, as `device` sets them.
    public struct Device: Sendable, Equatable {
        public var silent: Bool
        public var locked: Bool
        public var routeAvailable: Bool

        public init(silent: Bool, locked: Bool, routeAvailable: Bool) {
            self.silent = silent
            self.locked = locked
            self.routeAvailable = routeAvailable
        }
    }

    public var graph: String
    public var apps: [AppStatus]
    public var connections: [Connection]
    /// Every JACK connection to one of the engine's ports.
    public var jackConnections: [ConnectionEnds]
    public var policy: Policy
    /// The graph's tempo and beats per bar.
    public var tempo: Double
    public var beatsPerBar: Double
    public var device: Device

    public init(graph: String, apps: [AppStatus], connections: [Connection], jackConnections: [ConnectionEnds],
                policy: Policy, tempo: Double, beatsPerBar: Double, device: Device) {
        self.graph = graph
        self.apps = apps
        self.connections = connections
        self.jackConnections = jackConnections
        self.policy = policy
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.device = device
    }

    public var json: ControlJSON {
        .object([
            ("graph", .string(graph)), ("apps", .array(apps.map(\.json))),
            ("connections", .array(connections.map { .object([("from", .string($0.from)), ("to", .string($0.to)), ("gain", .number($0.gain))]) })),
            ("jackConnections", .array(jackConnections.map(\.json))),
            ("policy", .object([("duckLevel", .number(policy.duckLevel)), ("rampTime", .number(policy.rampTime)),
                                ("backgroundTaskTime", .number(policy.backgroundTaskTime))])),
            ("transport", .object([("tempo", .number(tempo)), ("beatsPerBar", .number(beatsPerBar))])),
            ("device", .object([("silent", .bool(device.silent)), ("locked", .bool(device.locked)),
                                ("routeAvailable", .bool(device.routeAvailable))])),
        ])
    }

    public init?(json: ControlJSON) {
        guard let graph = json["graph"]?.stringValue, let policy = json["policy"], let device = json["device"] else { return nil }
        self.init(graph: graph, apps: json["apps"]?.arrayValue?.compactMap(AppStatus.init(json:)) ?? [],
                  connections: json["connections"]?.arrayValue?.compactMap { connection in
                      guard let from = connection["from"]?.stringValue, let to = connection["to"]?.stringValue else { return nil }
                      return Connection(from: from, to: to, gain: connection["gain"]?.doubleValue ?? 1)
                  } ?? [],
                  jackConnections: json["jackConnections"]?.arrayValue?.compactMap(ConnectionEnds.init(json:)) ?? [],
                  policy: Policy(duckLevel: policy["duckLevel"]?.doubleValue ?? 0, rampTime: policy["rampTime"]?.doubleValue ?? 0,
                                 backgroundTaskTime: policy["backgroundTaskTime"]?.doubleValue ?? 0),
                  tempo: json["transport"]?["tempo"]?.doubleValue ?? 120, beatsPerBar: json["transport"]?["beatsPerBar"]?.doubleValue ?? 4,
                  device: Device(silent: device["silent"]?.boolValue ?? false, locked: device["locked"]?.boolValue ?? false,
                                 routeAvailable: device["routeAvailable"]?.boolValue ?? true))
    }
}

/// `dump` with `"graph": true`: the running graph as a graph file's text, which `iaa run` and
/// `iaa apply` load again.
public struct GraphFileReply: Sendable, Equatable {
    public var file: String

    public init(file: String) { self.file = file }

    public var json: ControlJSON { .object([("file", .string(file))]) }

    public init?(json: ControlJSON) {
        guard let file = json["file"]?.stringValue else { return nil }
        self.init(file: file)
    }
}
