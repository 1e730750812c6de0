import AudioGraph
import RenderCore
import GraphFormat
import ControlSocket
@testable import Engine
import OfflineBackend
import SignalAnalysis
import Testing

/// One command, two ways in: a control request (live) and a timeline entry (offline) read into
/// the same ``EngineCommand``, and performing it gives the same log and the same sound.
@Suite("Engine commands from requests and timelines")
struct EngineCommandTests {
    /// An inactive host (`daw`) and a 440 Hz generator node (`osc`), not connected.
    static let graphText = InterAppAudioLiveSessionTests.graph(hostActive: false, connected: false)

    static func graph() throws -> Graph {
        try #require(GraphFile.load(text: graphText, file: "graph.json", registry: GraphLoading.registry).graph)
    }

    /// Each step as a request (method and params) and as the timeline entry saying the same.
    static let steps: [(time: Double, method: ControlMethod, params: [(String, ControlJSON)], entry: String)] = [
        // Refused: the host's session is not active yet.
        (0.25, .connect, [("from", .string("osc:out")), ("to", .string("daw:in_1"))],
         #"{"at": 0.25, "do": "connect", "from": "osc:out", "to": "daw:in_1"}"#),
        (0.5, .activate, [("app", .string("daw"))], #"{"at": 0.5, "do": "activate", "app": "daw"}"#),
        (0.75, .connect, [("from", .string("osc:out")), ("to", .string("daw:in_1")), ("gain", .string("-6dB"))],
         #"{"at": 0.75, "do": "connect", "from": "osc:out", "to": "daw:in_1", "gain": "-6dB"}"#),
        (1.0, .set, [("app", .string("osc")), ("param", .string("frequency")), ("value", .number(220))],
         #"{"at": 1.0, "do": "setParam", "app": "osc", "param": "frequency", "value": 220}"#),
        (1.25, .deactivate, [("app", .string("osc")), ("notifyOthers", .bool(true))],
         #"{"at": 1.25, "do": "deactivate", "app": "osc", "options": ["notifyOthersOnDeactivation"]}"#),
        (1.5, .disconnect, [("from", .string("osc:out")), ("to", .string("daw:in_1"))],
         #"{"at": 1.5, "do": "disconnect", "from": "osc:out", "to": "daw:in_1"}"#),
        // Refused: nothing is connected any more.
        (1.75, .disconnect, [("from", .string("osc:out")), ("to", .string("daw:in_1"))],
         #"{"at": 1.75, "do": "disconnect", "from": "osc:out", "to": "daw:in_1"}"#),
    ]

    static func request(_ method: ControlMethod, _ params: [(String, ControlJSON)]) -> ControlRequest {
        ControlRequest(id: .number(1), method: method.rawValue, params: .object(params), peer: ControlPeer(uid: 0, pid: 0),
                       connection: 0)
    }

    /// A decoder for requests to an engine rendering `graph` offline: no ports outside.
    static func decoder(_ graph: Graph) -> RequestDecoder {
        RequestDecoder(graph: graph, clientName: "iaa", fullName: { "iaa:\($0)" }, outsidePorts: { _ in [] })
    }

    static func timelineEntries(_ graph: Graph) throws -> [TimelineEntry] {
        let text = "{\"timeline\": [\(steps.map(\.entry).joined(separator: ", "))]}"
        let loaded = TimelineFile.load(text: text, file: "timeline.json", graph: graph)
        #expect(loaded.diagnostics.map(\.formatted) == [])
        return try #require(loaded.entries)
    }

    /// The timeline's entries with each command read from the request instead.
    static func requestEntries(_ graph: Graph) throws -> [TimelineEntry] {
        try zip(steps, timelineEntries(graph)).map { step, entry in
            TimelineEntry(time: step.time, action: try decoder(graph).command(step.method, request(step.method, step.params)),
                          pointer: entry.pointer, sourceJSON: entry.sourceJSON)
        }
    }

    /// Renders two seconds of `entries` and returns the log, the host's output and the graph's
    /// connections at the end.
    static func render(_ entries: [TimelineEntry], graph: Graph) throws -> (log: [String], host: [Float], connections: [Connection]) {
        let backend = OfflineBackend(sampleRate: 48_000, blockSize: 256)
        let builder = PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: graph.policy.rampSeconds)
        let engine = try OfflineEngine(graph: graph, backend: backend, builder: builder)
        var scenario = Scenario(entries: entries, engine: engine, log: SessionLog(sampleRate: 48_000))
        scenario.logStart()
        var host: [Float] = []
        while host.count < 96_000 {
            try scenario.applyDue(atFrame: host.count)
            let count = min(256, 96_000 - host.count, scenario.framesUntilNext(from: host.count))
            let plan = try #require(backend.renderCycle(frames: count))
            let out = try #require(plan.outputBuffer(app: "daw", port: "out"))
            host += UnsafeBufferPointer(start: out, count: count)
        }
        return (scenario.log.lines, host, engine.sessions.graph.connections)
    }

    @Test("a request and a timeline entry read into the same command")
    func sameCommand() throws {
        let graph = try Self.graph()
        #expect(try Self.requestEntries(graph).map(\.action) == Self.timelineEntries(graph).map(\.action))
        #expect(try Self.timelineEntries(graph)[2].action == .connect([Connection(
            from: PortAddress(app: 1, port: 0), to: PortAddress(app: 0, port: 0), gain: ParameterValue.parse("-6dB") ?? 0)]))
    }

    @Test("the commands read from requests and from the timeline render the same log and sound")
    func samePerformance() throws {
        let graph = try Self.graph()
        let live = try Self.render(Self.requestEntries(graph), graph: graph)
        let offline = try Self.render(Self.timelineEntries(graph), graph: graph)
        #expect(live.log == offline.log)
        #expect(live.host == offline.host)
        // Not two silences: the node was heard while connected, and both refusals were logged.
        #expect(SignalAnalysis.rms(offline.host[48_000..<57_600]) > 0.05)
        #expect(offline.log.filter { $0.contains("\"ok\":false") }.count == 2)
        #expect(offline.log.contains { $0.contains("\"name\":\"nodeConnected\"") })
    }

    @Test("a refusal reads the same as a protocol error and as a log entry")
    func oneRefusal() throws {
        let graph = try Self.graph()
        let engine = try OfflineEngine(graph: graph, backend: OfflineBackend(), builder: PlanBuilder(sampleRate: 48_000, maximumFrames: 256))
        let connect = try Self.decoder(graph).command(.connect, Self.request(.connect, Self.steps[0].params))
        let refusal = try #require(try engine.perform(connect, at: 0).refusal)
        let error = ControlError(refusal)
        #expect(error.code == refusal.logEntry.code)
        #expect(error.message == refusal.logEntry.message)
        #expect(refusal.logEntry.fourCC == "!cat")
        // Nothing changed: the graph has no connection, the host stays inactive.
        #expect(engine.sessions.graph.connections.isEmpty)
    }

    @Test("offline, connections between outside ports are refused: the backend has none")
    func noOutsidePorts() throws {
        let graph = try Self.graph()
        let engine = try OfflineEngine(graph: graph, backend: OfflineBackend(), builder: PlanBuilder(sampleRate: 48_000, maximumFrames: 256))
        let outcome = try engine.perform(.connectPorts([PortPair("system:capture_1", "iaa:daw.in_1")]), at: 0)
        guard case .portsRefused(_, let reason) = try #require(outcome.refusal) else {
            Issue.record("expected portsRefused, got \(String(describing: outcome.refusal))")
            return
        }
        #expect(reason == "an offline render has no ports outside the engine")
    }

    /// A live request's mistake refused with the same words as the timeline entry saying it.
    static func refusal(_ method: ControlMethod, _ params: [(String, ControlJSON)], _ graph: Graph) throws -> ControlError {
        do {
            _ = try decoder(graph).command(method, request(method, params))
        } catch let error as ControlError {
            return error
        }
        Issue.record("\(method) \(params) was accepted")
        return ControlError(code: "", message: "")
    }

    @Test("a request is read as its timeline action: the timeline's hints and suggestions, the protocol's codes and fields")
    func requestsShareTheTimelinesReader() throws {
        let graph = try Self.graph()
        let typo = try Self.refusal(.set, [("app", "osc"), ("param", "frequncy"), ("value", 300)], graph)
        #expect((typo.code, typo.field) == ("unknownParameter", "param"))
        #expect(typo.message.contains(#"did you mean "frequency"?"#), "\(typo.message)")
        let app = try Self.refusal(.activate, [("app", "dwa")], graph)
        #expect((app.code, app.field) == ("unknownApp", "app"))
        #expect(app.message.contains(#"did you mean "daw"?"#), "\(app.message)")
        let category = try Self.refusal(.setCategory, [("app", "daw"), ("category", "playbak")], graph)
        #expect((category.code, category.field) == ("invalidParams", "category"))
        #expect(category.message.contains(#"did you mean "playback"?"#), "\(category.message)")
        let range = try Self.refusal(.set, [("app", "osc"), ("param", "frequency"), ("value", 99_999)], graph)
        #expect((range.code, range.field) == ("parameterOutOfRange", "value"))
        let missing = try Self.refusal(.activate, [], graph)
        #expect((missing.code, missing.field) == ("invalidParams", "app"))
        let reason = try Self.refusal(.interrupt, [("type", "begin"), ("reason", "lunch")], graph)
        #expect((reason.code, reason.field) == ("invalidParams", "reason"))
        // The protocol's own spellings are the timeline's actions.
        #expect(try Self.decoder(graph).command(.interrupt, Self.request(.interrupt, [("type", "begin"), ("reason", "call")]))
                == .session(.interrupt(.began, reason: .default)))
        #expect(try Self.decoder(graph).command(.task, Self.request(.task, [("app", "daw"), ("action", "begin")]))
                == .session(.beginBackgroundTask(app: "daw")))
    }

    @Test("a live request for a configuration value says it is one, as a timeline entry does")
    func configurationValueHint() throws {
        let text = """
            { "format": "iaa-graph/1", "name": "c", "apps": [ { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ] }
            """
        let graph = try #require(GraphFile.load(text: text, file: "c.json", registry: GraphLoading.registry).graph)
        let error = try Self.refusal(.set, [("app", "mix"), ("param", "inputs"), ("value", 3)], graph)
        #expect((error.code, error.field) == ("unknownParameter", "param"))
        #expect(error.message.contains("is a configuration value, fixed when the node is created"), "\(error.message)")
        #expect(error.message.contains("change it in the graph file"), "\(error.message)")
    }
}
