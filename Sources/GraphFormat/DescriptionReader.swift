import LocatedJSON

/// Reads a JSON document into a ``GraphDescription``, reporting unknown and missing keys and
/// wrong JSON types. Meaning (ids, plugins, ports) is the ``Validator``'s job.
struct DescriptionReader {
    private(set) var sink: DiagnosticSink
    private var sourceMap: SourceMap

    init(file: String, root: JSONNode) {
        sourceMap = SourceMap(root: root)
        sink = DiagnosticSink(file: file, sourceMap: sourceMap)
    }

    /// The description, or nil when the document is not even an object.
    ///
    /// Required keys inside apps and connections are checked by the ``Validator``, which also
    /// sees descriptions built in code; the top-level ones are checked here.
    mutating func read(_ root: JSONNode) -> GraphDescription? {
        guard let object = object(root, at: "", what: "a graph", keys: Keys.graph) else { return nil }
        let schema = object.string("$schema", &sink)
        let format = object.string("format", &sink, required: true)
        if let format, format != GraphDescription.format {
            let hint = format.hasPrefix("iaa-graph/")
                ? "this engine reads \"\(GraphDescription.format)\"; convert the file or use a newer iaa"
                : "write \"format\": \"\(GraphDescription.format)\""
            sink.error(.unsupportedFormat, at: "/format", "unsupported format \(JSONText.quoted(format))", hint: hint)
        }
        let name = object.string("name", &sink, required: true)
        var description = GraphDescription(schema: schema, format: format, name: name, sourceMap: sourceMap)
        // Sized once: growing copied every description read so far, into fresh pages, a few
        // times over on a large graph.
        if let apps = object.arrayNode("apps", &sink, required: true) {
            description.apps.reserveCapacity(apps.count)
            for (index, app) in apps.items.enumerated() {
                if let read = readApp(app, at: .element(of: "/apps", index)) { description.apps.append(read) }
            }
        }
        if let connections = object.arrayNode("connections", &sink) {
            description.connections.reserveCapacity(connections.count)
            for (index, connection) in connections.items.enumerated() {
                if let read = readConnection(connection, at: .element(of: "/connections", index)) {
                    description.connections.append(read)
                }
            }
        }
        if let jack = object.member("jack"), let jackDescription = readJack(jack) {
            description.jack = jackDescription
        }
        if let policy = object.member("policy"), let policyDescription = readPolicy(policy) {
            description.policy = policyDescription
        }
        if let transport = object.member("transport"), let transportDescription = readTransport(transport) {
            description.transport = transportDescription
        }
        if let latency = object.member("latency"),
           let latencyObject = self.object(latency, at: "/latency", what: "\"latency\"", keys: Keys.latency) {
            description.latency = LatencyDescription(compensate: latencyObject.bool("compensate", &sink))
        }
        if let isolation = object.member("isolation"),
           let isolationObject = self.object(isolation, at: "/isolation", what: "\"isolation\"", keys: Keys.isolation) {
            description.isolation = IsolationDescription(
                defaultChoice: isolationObject.string("default", &sink), maxCrashes: isolationObject.number("maxCrashes", &sink),
                crashWindow: isolationObject.member("crashWindow").flatMap { readValue($0, at: "/isolation/crashWindow", example: "60s") })
        }
        if let programs = object.member("programs"),
           let programsObject = self.object(programs, at: "/programs", what: "\"programs\"", keys: Keys.programs) {
            description.admission = programsObject.node("admit", of: "object", &sink) { $0.isObject }
        }
        return description
    }

    private mutating func object(_ node: JSONNode, at pointer: String, what: String, keys: JSONKeySet) -> ObjectReader? {
        object(node, at: .written(pointer), what: what, keys: keys)
    }

    private mutating func object(_ node: JSONNode, at place: ElementPlace, what: String, keys: JSONKeySet) -> ObjectReader? {
        guard node.isObject else {
            sink.error(.wrongType, at: place.pointer, "\(what) must be an object, not \(node.typeName)")
            return nil
        }
        return ObjectReader(node, at: place, allowed: keys, sink: &sink)
    }

    private mutating func readApp(_ node: JSONNode, at place: ElementPlace) -> AppDescription? {
        guard let object = object(node, at: place, what: "an app", keys: Keys.app) else { return nil }
        var app = AppDescription(id: object.string("id", &sink), role: object.string("role", &sink),
                                 plugin: object.string("plugin", &sink), pointer: "")
        app.place = place
        if let params = object.member("params") {
            if params.isObject {
                app.params.reserveCapacity(params.count)
                for (key, value) in params.entries {
                    let name = key.string ?? ""
                    if let value = readValue(value, at: JSONPointer.appending(place.pointer + "/params", name)) {
                        app.params.append(ParameterAssignment(name: name, value: value))
                    }
                }
            } else {
                sink.error(.wrongType, at: place.pointer + "/params", "\"params\" must be an object, not \(params.typeName)")
            }
        }
        func writtenObject(_ key: String) -> JSONNode? {
            let node = object.node(key, of: "object", &sink) { $0.isObject }
            if node == nil, object.member(key) != nil { app.mistyped.insert(key) }
            return node
        }
        app.session = writtenObject("session")
        app.entitlements = object.strings("entitlements", &sink)
        app.requires = object.strings("requires", &sink)
        app.backgroundModes = object.strings("backgroundModes", &sink)
        app.component = writtenObject("component")
        app.program = writtenObject("program")
        app.link = writtenObject("link")
        app.state = object.string("state", &sink)
        app.name = object.string("name", &sink)
        app.displayName = object.string("displayName", &sink)
        app.pluginState = object.string("pluginState", &sink)
        app.isolation = object.string("isolation", &sink)
        return app
    }

    /// The pointer is made only for a diagnostic: most values read cleanly.
    private mutating func readValue(_ node: JSONNode, at pointer: @autoclosure () -> String, example: String = "-6dB") -> ValueLiteral? {
        ValueLiteral.read(node, at: pointer(), example: example, &sink)
    }

    private mutating func readPolicy(_ node: JSONNode) -> PolicyDescription? {
        guard let object = object(node, at: "/policy", what: "\"policy\"", keys: Keys.policy) else { return nil }
        func setting(_ key: String, example: String) -> ValueLiteral? {
            object.member(key).flatMap { readValue($0, at: "/policy/" + key, example: example) }
        }
        return PolicyDescription(duckLevel: setting("duckLevel", example: "-12dB"),
                                 rampTime: setting("rampTime", example: "10ms"),
                                 backgroundTaskTime: setting("backgroundTaskTime", example: "30s"))
    }

    private mutating func readTransport(_ node: JSONNode) -> TransportDescription? {
        guard let object = object(node, at: "/transport", what: "\"transport\"", keys: Keys.transport) else { return nil }
        return TransportDescription(tempo: object.number("tempo", &sink), beatsPerBar: object.number("beatsPerBar", &sink),
                                    playing: object.bool("playing", &sink),
                                    timebaseMaster: object.bool("timebaseMaster", &sink))
    }

    private mutating func readConnection(_ node: JSONNode, at place: ElementPlace) -> ConnectionDescription? {
        guard let object = object(node, at: place, what: "a connection", keys: Keys.connection) else { return nil }
        var connection = ConnectionDescription(from: object.string("from", &sink),
                                               to: object.string("to", &sink), place: place)
        if let gain = object.member("gain") {
            connection.gain = readValue(gain, at: place.pointer + "/gain")
        }
        return connection
    }

    private mutating func readJack(_ node: JSONNode) -> JackDescription? {
        guard let object = object(node, at: "/jack", what: "\"jack\"", keys: Keys.jack) else { return nil }
        var jack = JackDescription(client: object.string("client", &sink))
        jack.expose = object.member("expose")
        if let connections = object.array("connections", &sink) {
            jack.connections = connections.enumerated().compactMap { index, element in
                let pointer = JSONPointer.appending("/jack/connections", index)
                guard let connection = self.object(element, at: pointer, what: "a JACK connection",
                                                   keys: Keys.jackConnection) else { return nil }
                return JackConnectionDescription(from: connection.string("from", &sink),
                                                 to: connection.string("to", &sink), pointer: pointer)
            }
        }
        return jack
    }

    /// The keys each object may have, in the order the schema lists them.
    enum Keys {
        static let graph = JSONKeySet(["$schema", "format", "name", "apps", "connections", "jack", "policy", "transport", "latency",
                                          "isolation", "programs"])
        static let programs = JSONKeySet(["admit"])
        /// `state` is read only to say why it does not apply (admitted apps start in the background).
        static let admit = JSONKeySet(["jackClient", "uid", "executable", "outputs", "inputs", "directConnections", "session",
                                          "entitlements", "requires", "backgroundModes", "state", "to", "from", "limit"])
        static let isolation = JSONKeySet(["default", "maxCrashes", "crashWindow"])
        static let app = JSONKeySet(["id", "role", "plugin", "params", "session", "entitlements", "requires", "backgroundModes",
                                        "component", "program", "link", "state", "name", "displayName", "pluginState", "isolation"])
        static let program = JSONKeySet(["jackClient", "uid", "executable", "outputs", "inputs", "directConnections"])
        static let link = JSONKeySet(["send", "receive", "channels", "buffer", "format", "from"])
        static let session = JSONKeySet(["category", "mode", "options", "active"])
        static let policy = JSONKeySet(["duckLevel", "rampTime", "backgroundTaskTime"])
        static let transport = JSONKeySet(["tempo", "beatsPerBar", "playing", "timebaseMaster"])
        static let latency = JSONKeySet(["compensate"])
        static let component = JSONKeySet(["type", "subtype", "manufacturer", "name", "version"])
        static let connection = JSONKeySet(["from", "to", "gain"])
        static let jack = JSONKeySet(["client", "expose", "connections"])
        static let jackConnection = JSONKeySet(["from", "to"])
    }
}
