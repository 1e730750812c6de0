import AudioGraph
import LocatedJSON
import AudioSession
import NodeKit
import Suggestions

/// Checks a ``GraphDescription`` against a registry and builds the ``Graph``: ids, plugins,
/// parameters, sessions, components, ports, directions, gains, JACK names, cycles, the policy and
/// transport settings and, on a graph with no other error, Inter-App Audio's conditions.
///
/// It collects every error before failing, so that one run of `iaa validate` shows them all.
public struct Validator {
    /// An app as far as it could be resolved; nil fields were reported already.
    struct ResolvedApp {
        let id: String?
        let role: AppRole
        let type: NodeType?
        let configuration: NodeConfiguration
        let parameters: [Float]
        let layout: NodeLayout?
        let session: AppSessionSetup?
        let component: ComponentDescription?
        let program: ProgramBinding?
        let link: LinkEnd?
        let isolation: IsolationChoice?
        /// Whether an input reads the previous cycle (a feedback return), and whether a port is a
        /// program's end: most apps have neither, and knowing it spares each connection copies of
        /// the layout (three arrays, retained and released) to look.
        let hasFeedbackInputs: Bool
        let hasProgramEnds: Bool
    }

    var sink: DiagnosticSink
    let description: GraphDescription
    let registry: NodeRegistry
    /// What a grants file allows, when one is in force: graphs may grant no more.
    let grants: Grants?
    var apps: [ResolvedApp] = []
    /// First app with each id, by index into `apps`.
    var appIndex: NameIndex
    var connections: [Connection] = []
    /// The place of each of `connections` in the description, for "already connected" errors.
    var connectionSources: [Int] = []
    /// Each connection made so far, by its two ends, so that a duplicate is found without a scan.
    var connectionIndex = NameIndex()
    /// Every app's port indices by name: its inputs in namespace `2 × app`, its outputs in
    /// `2 × app + 1`, so that a connection's port is one lookup however wide its app.
    var portNames = NameIndex()
    var externalConnections: [ExternalConnection] = []
    var dependencies: TopologicalOrder
    /// Receiving links' UDP ports by `HOST PORT`, each with the neighbours it conflicts with:
    /// the receiving app and the port it names (a receiver takes that port and the next).
    var receivedPorts: [String: (app: String, port: Int)] = [:]
    /// The first app with a session that starts in the foreground, by its pointer.
    var foregroundApp: String?
    /// The graph file's path, as given.
    let file: String

    /// The folder of `file` (plugin paths are relative to it); "." for a bare name.
    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    private init(_ description: GraphDescription, file: String, registry: NodeRegistry, grants: Grants?) {
        self.description = description
        self.registry = registry
        self.grants = grants
        self.file = file
        sink = DiagnosticSink(file: file, sourceMap: description.sourceMap)
        dependencies = TopologicalOrder(appCount: description.apps.count)
        // Sized once: an app's resolution is a few hundred bytes, and growing copied them all.
        apps.reserveCapacity(description.apps.count)
        appIndex = NameIndex(capacity: description.apps.count)
        // Most apps have a port or two each way.
        portNames = NameIndex(capacity: description.apps.count * 3)
        connectionIndex = NameIndex(capacity: description.connections.count)
        connections.reserveCapacity(description.connections.count)
        connectionSources.reserveCapacity(description.connections.count)
    }

    /// Whether a setting's value is `accepted`; if not, an `outOfRange` error at `pointer` says so
    /// and the setting keeps its default.
    mutating func withinRange(_ accepted: Bool, at pointer: String, _ message: @autoclosure () -> String,
                              hint: String) -> Bool {
        if !accepted { sink.error(.outOfRange, at: pointer, message(), hint: hint) }
        return accepted
    }

    /// Validates `description`; `file` names it in diagnostics. Structural checks (unknown keys,
    /// JSON types) belong to reading the file, so a description built in code skips them.
    public static func validate(_ description: GraphDescription, file: String,
                                registry: NodeRegistry, grants: Grants? = nil) -> GraphLoadResult {
        var validator = Validator(description, file: file, registry: registry, grants: grants)
        for app in description.apps { validator.resolve(app) }
        for index in description.connections.indices { validator.resolve(description.connections[index], at: index) }
        validator.checkJackClient()
        for app in description.apps.indices { validator.checkJackNames(app: app) }
        for connection in description.jack.connections { validator.resolve(connection) }
        let exposure = validator.exposure()
        let policy = validator.policy()
        let transport = validator.transport()
        // Nothing to range-check: the written setting over the default (compensation on).
        let latency = LatencyConfiguration(compensate: description.latency.compensate ?? LatencyConfiguration().compensate)
        let isolation = validator.isolationConfiguration()
        let admission = validator.admission()
        guard !validator.sink.diagnostics.contains(where: \.isError) else {
            return GraphLoadResult(graph: nil, description: description, diagnostics: validator.sink.sorted)
        }
        // An app can be unfinished without an error here: a key of the wrong type was reported
        // while reading the file, and the validator left it alone. A graph without that app
        // would shift the indices the connections hold, so there is none.
        let apps = validator.finishedApps()
        guard apps.count == validator.apps.count else {
            return GraphLoadResult(graph: nil, description: description, diagnostics: validator.sink.sorted)
        }
        let graph = Graph(name: description.name ?? "", apps: apps,
                          connections: validator.connections,
                          externalConnections: validator.externalConnections,
                          order: validator.dependencies.order(), policy: policy, transport: transport,
                          exposure: exposure, isolation: isolation, admission: admission, latency: latency)
        // Inter-App Audio's conditions are about apps as the graph holds them, so they are checked
        // last, over the graph itself, with the rules the engine applies to live connections.
        validator.checkInterAppAudio(graph)
        // The result drops the graph when that found an error.
        return GraphLoadResult(graph: graph, description: description, diagnostics: validator.sink.sorted)
    }

    /// The apps as the graph holds them; only called when there is no error, so every field is set.
    private func finishedApps() -> [App] {
        var finished: [App] = []
        finished.reserveCapacity(apps.count)
        for app in apps {
            guard let id = app.id, let type = app.type, let layout = app.layout else { continue }
            finished.append(App(id: id, role: app.role, type: type, configuration: app.configuration,
                                parameters: app.parameters, layout: layout, session: app.session, component: app.component,
                                program: app.program, link: app.link, isolation: app.isolation))
        }
        return finished
    }

    /// Reports `key` of the object at `pointer` as missing, unless the file wrote it with the wrong
    /// type (already reported while reading).
    mutating func requireKey(_ key: String, of pointer: String) {
        let keyPointer = JSONPointer.appending(pointer, key)
        guard !description.sourceMap.contains(keyPointer) else { return }
        sink.error(.missingKey, at: keyPointer, "missing required key \"\(key)\"")
    }

    private mutating func resolve(_ app: AppDescription) {
        let index = apps.count
        if app.id == nil { requireKey("id", of: app.pointer) }
        let isLink = writesLink(app)
        let isProgram = isLink || writesProgram(app)
        if app.plugin == nil, !isProgram { requireKey("plugin", of: app.pointer) }
        let id = checkId(app)
        if let id { appIndex.insert(id, index) }
        var role = AppRole.app
        if let written = app.role {
            if let known = AppRole(rawValue: written) {
                role = known
            } else {
                let roles = AppRole.allCases.map(\.rawValue)
                sink.error(.invalidValue, at: app.pointer + "/role", "unknown role \(JSONText.quoted(written))",
                           hint: Suggestion.hint(for: written, in: roles) ?? "roles: " + roles.joined(separator: ", "))
            }
        }
        var type: NodeType?
        var program: ProgramBinding?
        var link: LinkEnd?
        var programConfiguration = NodeConfiguration()
        if isLink {
            (program, link, type, programConfiguration) = self.link(of: app, id: id, role: role)
        } else if isProgram {
            (program, type, programConfiguration) = self.program(of: app, role: role)
        } else if app.plugin == ProgramBinding.nodeTypeID {
            sink.error(.programConflict, at: app.pointer + "/plugin",
                       "\(ProgramBinding.nodeTypeID) is what a \"program\" block makes; it is not written as a plugin",
                       hint: "write \"program\": { \"jackClient\": \"NAME\" } instead of \"plugin\"")
        } else if let plugin = app.plugin {
            type = registry[plugin]
            var reported = false
            if type == nil, !plugin.hasPrefix("builtin:"), let resolver = registry.resolver {
                switch resolver(plugin, Self.directory(of: file)) {
                case .success(let resolved): type = resolved
                case .failure(let error):
                    sink.error(error.code, at: app.pointer + "/plugin", error.message, hint: error.hint)
                    reported = true
                }
            }
            if type == nil, !reported {
                sink.error(.unknownPlugin, at: app.pointer + "/plugin", "no node type \(JSONText.quoted(plugin))",
                           hint: Suggestion.hint(for: plugin, in: registry.ids)
                               ?? "known types: " + registry.ids.joined(separator: ", "))
            }
        }
        let (configuration, parameters) = isProgram ? (programConfiguration, [])
            : type.map { values(of: app, type: $0) } ?? (NodeConfiguration(), [])
        if let type { checkPluginEntitlements(of: app, id: id, type: type) }
        let session = sessionSetup(of: app, id: id, role: role, pluginRequests: !(type?.requestedEntitlements.isEmpty ?? true))
        let layout = type?.layout(configuration)
        if let layout {
            for (position, port) in layout.inputs.enumerated() { portNames.insert(port.name, in: 2 * index, position) }
            for (position, port) in layout.outputs.enumerated() { portNames.insert(port.name, in: 2 * index + 1, position) }
        }
        let component = component(of: app, id: id, role: role, type: type, layout: layout)
        apps.append(ResolvedApp(id: id, role: role, type: type, configuration: configuration,
                                parameters: parameters, layout: layout, session: session, component: component,
                                program: program, link: link, isolation: isolationChoice(app),
                                hasFeedbackInputs: layout?.inputs.contains(where: \.readsPreviousCycle) ?? false,
                                hasProgramEnds: layout.map { $0.inputs.contains(where: \.programEnd) || $0.outputs.contains(where: \.programEnd) } ?? false))
    }

    /// The id if it is present, well-formed and not taken; otherwise reports why.
    private mutating func checkId(_ app: AppDescription) -> String? {
        guard let id = app.id else { return nil }
        var pointer: String { app.pointer + "/id" }
        guard PortReference.isValidId(id) else {
            let cleaned = String(id.map { PortReference.isValidId(String($0)) ? $0 : "-" })
            sink.error(.invalidId, at: pointer, "app id \(JSONText.quoted(id)) may only use letters, digits, '_' and '-'",
                       hint: id.isEmpty ? "give the app a name such as \"synth\"" : "for example \(JSONText.quoted(cleaned))")
            return nil
        }
        if let first = appIndex[id] {
            let firstPointer = description.apps[first].pointer
            let line = description.sourceMap.location(of: firstPointer + "/id").map { " (line \($0.line))" } ?? ""
            sink.error(.duplicateId, at: pointer, "app id \(JSONText.quoted(id)) is already used by \(firstPointer)\(line)",
                       hint: "app ids must be unique; rename one of them")
            return nil
        }
        return id
    }

    /// The app's index if `id` names an app, else nil; the caller reports.
    func app(named id: String) -> Int? { appIndex[id] }

    /// The app ids, in file order, for hints.
    var appIds: [String] { apps.compactMap(\.id) }
}
