import AudioGraph
import LocatedJSON
import AudioSession
import Suggestions

/// Reads a timeline's ``JSONNode`` tree into entries: each entry's time, action and fields, and
/// that every app it names is an app of the graph (with a session, for the policy's actions).
///
/// Every error is collected; an entry with one is left out, and the caller drops the timeline.
struct TimelineReader {
    /// The actions a timeline may `do`, with the fields each takes besides `at` and `do`.
    enum ActionName: String, CaseIterable {
        case setCategory, activate, deactivate, foreground, background, beginBackgroundTask, endBackgroundTask
        case startAudio, stopAudio, terminate, interrupt, device, route
        case midi, play, stop, setParam, connect, disconnect, apply

        var fields: [String] {
            switch self {
            case .midi: ["app", "bytes"]
            case .play, .stop: []
            case .setParam: ["app", "param", "value"]
            case .connect: ["from", "to", "gain"]
            case .disconnect: ["from", "to"]
            case .apply: ["graph"]
            case .setCategory: ["app", "category", "mode", "options"]
            case .deactivate: ["app", "options"]
            case .startAudio: ["app", "recording"]
            case .interrupt: ["type", "reason"]
            case .device: ["silent", "locked"]
            case .route: ["available"]
            case .activate, .foreground, .background, .beginBackgroundTask, .endBackgroundTask, .stopAudio, .terminate: ["app"]
            }
        }
    }

    /// Written by the engine actions' extension too.
    var sink: DiagnosticSink
    /// The timeline file's path, as given: an `apply` entry's graph is relative to its folder.
    let file: String
    /// The node types an `apply` entry's graph is validated against; nil refuses `apply`.
    let registry: NodeRegistry?
    /// The graph in force at the entry being read (the rendered one, or the last one applied),
    /// with what entries look up in it.
    private var inForce: GraphInForce
    var graph: Graph { inForce.graph }
    /// Every app, for the engine actions' `APP:PORT` references.
    var ports: PortResolution.Apps { inForce.ports }

    /// A graph and its lookups, made together so that they always describe the same graph.
    private struct GraphInForce {
        let graph: Graph
        let ports: PortResolution.Apps
        /// Ids of the apps with a session, in graph order (for did-you-mean and listings).
        let managedApps: [String]
        let unmanagedApps: Set<String>

        init(_ graph: Graph) {
            self.graph = graph
            var index = NameIndex(capacity: graph.apps.count)
            for (position, app) in graph.apps.enumerated() { index.insert(app.id, position) }
            ports = PortResolution.Apps(index: index, layout: { graph.apps[$0].layout }, ids: { graph.apps.map(\.id) })
            managedApps = graph.apps.filter { $0.session != nil }.map(\.id)
            unmanagedApps = Set(graph.apps.filter { $0.session == nil }.map(\.id))
        }
    }

    init(file: String, root: JSONNode, graph: Graph, registry: NodeRegistry?) {
        sink = DiagnosticSink(file: file, sourceMap: SourceMap(root: root))
        self.file = file
        self.registry = registry
        inForce = GraphInForce(graph)
    }

    /// Makes `graph` the one later entries name apps and ports of.
    mutating func adopt(_ graph: Graph) {
        inForce = GraphInForce(graph)
    }

    /// The entries that read cleanly, sorted by time; entries at the same time keep the order
    /// written, since a scenario means them to happen in that order.
    mutating func read(_ root: JSONNode) -> [TimelineEntry]? {
        guard root.isObject else {
            sink.error(.wrongType, at: "", "a timeline must be an object such as { \"timeline\": [ … ] }, not \(root.typeName)")
            return nil
        }
        let object = ObjectReader(root, pointer: "", allowed: ["$schema", "timeline"], sink: &sink)
        _ = object.string("$schema", &sink)
        guard let elements = object.array("timeline", &sink, required: true) else { return nil }
        // Read in time order, not as written: an entry names apps of the graph in force at its
        // time, which an earlier `apply` may have replaced. An entry whose time is not a time is
        // reported as it is read, wherever it sorts.
        let order = elements.indices.sorted { (Self.writtenTime(elements[$0]), $0) < (Self.writtenTime(elements[$1]), $1) }
        return order.compactMap { index in
            readEntry(elements[index], at: JSONPointer.appending("/timeline", index))
        }
    }

    /// An entry's `at` as written, for ordering only (0 when it is not a number).
    private static func writtenTime(_ entry: JSONNode) -> Double {
        entry.member("at")?.number ?? 0
    }

    private mutating func readEntry(_ node: JSONNode, at pointer: String) -> TimelineEntry? {
        guard let members = node.members else {
            sink.error(.wrongType, at: pointer,
                       "a timeline entry must be an object such as { \"at\": 1, \"do\": \"activate\", \"app\": \"music\" }, not \(node.typeName)")
            return nil
        }
        let name = actionName(members.first { $0.key == "do" }?.value, at: pointer)
        // Without a known action the entry's fields mean nothing yet: only the action is reported.
        let allowed = name.map { ["at", "do"] + $0.fields } ?? members.map(\.key)
        let object = ObjectReader(node, pointer: pointer, allowed: allowed, sink: &sink)
        let time = time(object)
        guard let name, let action = action(name, object), let time else { return nil }
        return TimelineEntry(time: time, action: action, pointer: pointer, line: node.location?.line,
                             column: node.location?.column, sourceJSON: JSONText.compact(node))
    }

    /// One action's command from an object of its fields alone (``CommandReader``): with
    /// `strict`, members it does not take are reported; without, they are left alone.
    mutating func command(_ name: ActionName, _ node: JSONNode, pointer: String, strict: Bool) -> EngineCommand? {
        guard node.isObject else {
            sink.error(.wrongType, at: pointer, "the fields of \(JSONText.quoted(name.rawValue)) must be an object, not \(node.typeName)")
            return nil
        }
        let allowed = strict ? name.fields : name.fields + (node.members ?? []).map(\.key).filter { !name.fields.contains($0) }
        return action(name, ObjectReader(node, pointer: pointer, allowed: allowed, sink: &sink))
    }

    private mutating func actionName(_ node: JSONNode?, at pointer: String) -> ActionName? {
        let names = ActionName.allCases.map(\.rawValue)
        let listing = "actions: " + names.joined(separator: ", ")
        guard let node else {
            sink.error(.missingKey, at: pointer + "/do", "missing required key \"do\"", hint: listing)
            return nil
        }
        guard let text = node.string else {
            sink.error(.wrongType, at: pointer + "/do", "\"do\" must be a string, not \(node.typeName)", hint: listing)
            return nil
        }
        if let name = ActionName(rawValue: text) { return name }
        sink.error(.unknownAction, at: pointer + "/do", "unknown action \(JSONText.quoted(text))",
                   hint: Suggestion.hint(for: text, in: names) ?? listing)
        return nil
    }

    private mutating func time(_ object: ObjectReader) -> Double? {
        guard let time = object.number("at", &sink, required: true) else { return nil }
        guard time.isFinite, time >= 0 else {
            sink.error(.outOfRange, at: object.pointer + "/at",
                       "\"at\" is \(time.isFinite ? Validator.text(time) : "not finite"); a time is a number of seconds, at least 0",
                       hint: "times count from the start of the render")
            return nil
        }
        return time
    }

    private mutating func action(_ name: ActionName, _ object: ObjectReader) -> EngineCommand? {
        switch name {
        case .midi: midi(object)
        case .play: .transport(playing: true)
        case .stop: .transport(playing: false)
        case .setParam: parameterChange(object)
        case .connect: connection(object)
        case .disconnect: disconnection(object)
        case .apply: appliedGraph(object)
        default: sessionAction(name, object).map(EngineCommand.session)
        }
    }

    private mutating func sessionAction(_ name: ActionName, _ object: ObjectReader) -> SessionAction? {
        switch name {
        case .setCategory:
            let app = app(object)
            // An option the category does not accept stays: the policy refuses it with badParam.
            let choice = SessionVocabulary.categoryChoice(object, &sink, categoryRequired: true, checkOptions: false)
            guard let app, let choice else { return nil }
            return .setCategory(app: app, category: choice.category, mode: choice.mode, options: choice.options)
        case .activate:
            return app(object).map { .activate(app: $0) }
        case .deactivate:
            let app = app(object)
            let options = deactivationOptions(object)
            guard let app, let options else { return nil }
            return .deactivate(app: app, options: options)
        case .foreground:
            return app(object).map { .foreground(app: $0) }
        case .background:
            return app(object).map { .background(app: $0) }
        case .beginBackgroundTask:
            return app(object).map { .beginBackgroundTask(app: $0) }
        case .endBackgroundTask:
            return app(object).map { .endBackgroundTask(app: $0) }
        case .startAudio:
            let app = app(object)
            let recording = object.bool("recording", &sink)
            guard let app, recording != nil || object.member("recording") == nil else { return nil }
            return .startAudio(app: app, recording: recording ?? false)
        case .stopAudio:
            return app(object).map { .stopAudio(app: $0) }
        case .terminate:
            return app(object).map { .terminate(app: $0) }
        case .interrupt:
            return interruption(object)
        case .device:
            return device(object)
        case .route:
            return object.bool("available", &sink, required: true).map { .route(available: $0) }
        case .midi, .play, .stop, .setParam, .connect, .disconnect, .apply:
            preconditionFailure("\(name) is not an action of the session policy")
        }
    }

    /// The `app` of an entry, if the graph has it and it has a session.
    private mutating func app(_ object: ObjectReader) -> String? {
        guard let id = object.string("app", &sink, required: true) else { return nil }
        let managedApps = inForce.managedApps
        if managedApps.contains(id) { return id }
        let pointer = object.pointer + "/app"
        if inForce.unmanagedApps.contains(id) {
            sink.error(.unmanagedApp, at: pointer,
                       "app \(JSONText.quoted(id)) has no session, so the policy does not manage it",
                       hint: "add \"session\": {} to app \(JSONText.quoted(id))")
        } else {
            let listing = managedApps.isEmpty
                ? "the graph has no app with a session"
                : "apps with a session: " + managedApps.joined(separator: ", ")
            sink.error(.unknownApp, at: pointer, "the graph has no app \(JSONText.quoted(id))",
                       hint: Suggestion.hint(for: id, in: managedApps) ?? listing)
        }
        return nil
    }

    private mutating func deactivationOptions(_ object: ObjectReader) -> Set<DeactivationOption>? {
        guard let written = object.member("options") else { return [] }
        guard let names = object.strings("options", &sink) else { return nil }
        // `strings` reported and left out the elements that are not strings.
        var failed = names.count != written.elements?.count
        let options: [(value: DeactivationOption, pointer: String)] = SessionVocabulary.values(
            names, "deactivation option", listing: "options", at: object.pointer + "/options", &sink, failed: &failed)
        return failed ? nil : Set(options.map(\.value))
    }

    private mutating func interruption(_ object: ObjectReader) -> SessionAction? {
        var type: InterruptionType?
        if let text = object.string("type", &sink, required: true) {
            switch text {
            case "begin": type = .began
            case "end": type = .ended
            default:
                sink.error(.invalidValue, at: object.pointer + "/type", "unknown interruption type \(JSONText.quoted(text))",
                           hint: Suggestion.hint(for: text, in: ["begin", "end"]) ?? "types: begin, end")
            }
        }
        var reason: InterruptionReason? = .default
        if let text = object.string("reason", &sink) {
            reason = SessionVocabulary.value(text, "interruption reason", listing: "reasons",
                                             at: object.pointer + "/reason", &sink)
        } else if object.member("reason") != nil {
            reason = nil
        }
        guard let type, let reason else { return nil }
        return .interrupt(type, reason: reason)
    }

    private mutating func device(_ object: ObjectReader) -> SessionAction? {
        let writtenSilent = object.member("silent") != nil, writtenLocked = object.member("locked") != nil
        guard writtenSilent || writtenLocked else {
            sink.error(.missingKey, at: object.pointer, "\"device\" needs \"silent\", \"locked\" or both",
                       hint: "for example { \"at\": 1, \"do\": \"device\", \"silent\": true }")
            return nil
        }
        let silent = object.bool("silent", &sink), locked = object.bool("locked", &sink)
        guard (silent != nil) == writtenSilent, (locked != nil) == writtenLocked else { return nil }
        return .device(silent: silent, locked: locked)
    }
}
