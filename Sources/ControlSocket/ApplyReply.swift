/// The `apply` reply (PROTOCOL.md, `apply`): whether the graph was applied, what it changes, and
/// warnings. The engine writes it from this type and `iaa apply` reads it back.
public struct ApplyReply: Sendable, Equatable {
    /// What the new graph changes. Apps by id; connections as the graph file reads them
    /// (`echo:out -> daw:in_2 (gain 0.5)`, `mix:out -> @playback`).
    public struct Diff: Sendable, Equatable {
        public var appsAdded: [String] = []
        public var appsRemoved: [String] = []
        public var appsChanged: [String] = []
        /// Apps whose plugin library was rebuilt since it was loaded: they get the new code.
        public var appsReloaded: [String] = []
        public var connectionsAdded: [String] = []
        public var connectionsRemoved: [String] = []
        public var jackConnectionsAdded: [String] = []
        public var jackConnectionsRemoved: [String] = []
        /// `jack.expose` changed: ports are registered or unregistered.
        public var exposeChanged = false

        public init(appsAdded: [String] = [], appsRemoved: [String] = [], appsChanged: [String] = [], appsReloaded: [String] = [],
                    connectionsAdded: [String] = [], connectionsRemoved: [String] = [], jackConnectionsAdded: [String] = [],
                    jackConnectionsRemoved: [String] = [], exposeChanged: Bool = false) {
            self.appsAdded = appsAdded
            self.appsRemoved = appsRemoved
            self.appsChanged = appsChanged
            self.appsReloaded = appsReloaded
            self.connectionsAdded = connectionsAdded
            self.connectionsRemoved = connectionsRemoved
            self.jackConnectionsAdded = jackConnectionsAdded
            self.jackConnectionsRemoved = jackConnectionsRemoved
            self.exposeChanged = exposeChanged
        }

        /// The lists by their protocol names, in the order a person reads them.
        public var lists: [(key: String, items: [String])] {
            [("appsAdded", appsAdded), ("appsRemoved", appsRemoved), ("appsChanged", appsChanged), ("appsReloaded", appsReloaded),
             ("connectionsAdded", connectionsAdded), ("connectionsRemoved", connectionsRemoved),
             ("jackConnectionsAdded", jackConnectionsAdded), ("jackConnectionsRemoved", jackConnectionsRemoved)]
        }

        public var json: ControlJSON {
            .object(lists.map { ($0.key, .array($0.items.map(ControlJSON.string))) } + [("exposeChanged", .bool(exposeChanged))])
        }

        public init(json: ControlJSON) {
            func list(_ key: String) -> [String] { json[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            self.init(appsAdded: list("appsAdded"), appsRemoved: list("appsRemoved"), appsChanged: list("appsChanged"),
                      appsReloaded: list("appsReloaded"), connectionsAdded: list("connectionsAdded"),
                      connectionsRemoved: list("connectionsRemoved"), jackConnectionsAdded: list("jackConnectionsAdded"),
                      jackConnectionsRemoved: list("jackConnectionsRemoved"), exposeChanged: json["exposeChanged"]?.boolValue ?? false)
        }
    }

    public var applied: Bool
    public var diff: Diff
    public var warnings: [String]

    public init(applied: Bool, diff: Diff, warnings: [String] = []) {
        self.applied = applied
        self.diff = diff
        self.warnings = warnings
    }

    public var json: ControlJSON {
        .object([("applied", .bool(applied)), ("diff", diff.json), ("warnings", .array(warnings.map(ControlJSON.string)))])
    }

    public init?(json: ControlJSON) {
        guard let applied = json["applied"]?.boolValue else { return nil }
        self.init(applied: applied, diff: Diff(json: json["diff"] ?? .object([])),
                  warnings: json["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}
