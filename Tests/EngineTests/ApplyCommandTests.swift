import AudioGraph
import GraphFormat
@testable import Engine
import OfflineBackend
import SignalAnalysis
import TestKit
import Testing

/// Applying a whole graph is a command like any other (``EngineCommand/apply(_:)``): performed
/// offline, it changes the running graph and the sound as the equivalent smaller command does.
@Suite("Apply as an engine command")
struct ApplyCommandTests {
    /// An active host (`daw`) and a 440 Hz generator (`osc`), connected or not.
    static func text(connected: Bool) -> String {
        InterAppAudioLiveSessionTests.graph(hostActive: true, connected: connected)
    }

    static func applied(connected: Bool) throws -> AppliedGraph {
        let text = text(connected: connected)
        let graph = try #require(GraphFile.load(text: text, file: "graph.json", registry: GraphLoading.registry).graph)
        return AppliedGraph(graph, file: "graph.json", text: text)
    }

    /// Renders two seconds from the unconnected graph with `command` at 0.5 s.
    static func render(_ command: EngineCommand) throws -> (log: [String], host: [Float], connections: [Connection]) {
        let entry = TimelineEntry(time: 0.5, action: command, pointer: "/timeline/0", sourceJSON: "{}")
        return try EngineCommandTests.render([entry], graph: try applied(connected: false).graph)
    }

    @Test("applying a graph with one more connection renders as connecting it does")
    func applyMatchesConnect() throws {
        let graph = try Self.applied(connected: false).graph
        let connection = Connection(from: PortAddress(app: try #require(graph.appIndex("osc")), port: 0),
                                    to: PortAddress(app: try #require(graph.appIndex("daw")), port: 0))
        let applied = try Self.render(.apply(try Self.applied(connected: true)))
        let connected = try Self.render(.connect([connection]))
        #expect(applied.connections == [connection])
        #expect(applied.connections == connected.connections)
        #expect(applied.log == connected.log)
        #expect(applied.host == connected.host)
        // Not two silences: silent before the change, the node heard after it.
        #expect(SignalAnalysis.rms(applied.host[0..<24_000]) == 0)
        #expect(SignalAnalysis.rms(applied.host[28_800..<96_000]) > 0.05)
    }

    @Test("an apply's outcome says what changed")
    func outcomeDiff() throws {
        let engine = try OfflineEngine(graph: try Self.applied(connected: false).graph, backend: OfflineBackend(),
                                       builder: PlanBuilder(sampleRate: 48_000, maximumFrames: 256))
        let outcome = try engine.perform(.apply(try Self.applied(connected: true)), at: 0)
        #expect(outcome.refusal == nil)
        let diff = try #require(outcome.diff)
        #expect(diff.appsAdded.isEmpty && diff.appsRemoved.isEmpty && diff.appsChanged.isEmpty)
        #expect(diff.connectionsAdded == ["osc:out -> daw:in_1"])
    }

    @Test("two apply commands are equal when read from the same text of the same file")
    func identity() throws {
        #expect(EngineCommand.apply(try Self.applied(connected: true)) == .apply(try Self.applied(connected: true)))
        #expect(EngineCommand.apply(try Self.applied(connected: true)) != .apply(try Self.applied(connected: false)))
    }

    /// A timeline in a new folder with `files` beside it, read against the unconnected graph.
    static func timeline(_ entries: String, files: [String: String]) throws -> (TimelineLoadResult, TemporaryDirectory) {
        let folder = try TemporaryDirectory("timeline")
        for (name, text) in files { try text.write(toFile: folder.file(name), atomically: true, encoding: .utf8) }
        let result = TimelineFile.load(text: "{ \"timeline\": [\n\(entries)\n] }", file: folder.file("t.json"),
                                       graph: try applied(connected: false).graph, registry: GraphLoading.registry)
        return (result, folder)
    }

    @Test("a timeline's apply entry is the same command as applying the file, and renders the same")
    func timelineApply() throws {
        let text = Self.text(connected: true)
        let (loaded, folder) = try Self.timeline(#"{ "at": 0.5, "do": "apply", "graph": "next.json" }"#,
                                                 files: ["next.json": text])
        #expect(loaded.diagnostics.isEmpty)
        let entries = try #require(loaded.entries)
        let graph = try #require(GraphFile.load(text: text, file: folder.file("next.json"), registry: GraphLoading.registry).graph)
        #expect(entries.map(\.action) == [.apply(AppliedGraph(graph, file: folder.file("next.json"), text: text))])
        let fromTimeline = try EngineCommandTests.render(entries, graph: try Self.applied(connected: false).graph)
        let performed = try Self.render(.apply(try Self.applied(connected: true)))
        #expect(fromTimeline.connections == performed.connections && fromTimeline.connections.count == 1)
        #expect(fromTimeline.host == performed.host)
        #expect(SignalAnalysis.rms(fromTimeline.host[28_800..<96_000]) > 0.05)
    }

    @Test("entries after an apply name the applied graph's apps, entries before it the first graph's")
    func entriesFollowTheAppliedGraph() throws {
        // `extra` exists only in the applied graph; entries are written out of time order.
        let next = Self.text(connected: true).replacing(#""apps": ["#, with: #""apps": [ { "id": "extra", "plugin": "builtin:gain" },"#)
        let (loaded, _) = try Self.timeline("""
            { "at": 0.8, "do": "setParam", "app": "extra", "param": "gain", "value": 0.5 },
            { "at": 0.5, "do": "apply", "graph": "next.json" },
            { "at": 0.2, "do": "setParam", "app": "extra", "param": "gain", "value": 0.5 }
            """, files: ["next.json": next])
        #expect(loaded.entries == nil)
        #expect(loaded.errors.map(\.code) == [.unknownApp])
        #expect(loaded.errors.map(\.pointer) == ["/timeline/2/app"])
    }

    @Test("an apply whose graph is missing or does not load is refused at its entry, naming why")
    func refusedApply() throws {
        let broken = Self.text(connected: true).replacing("builtin:oscillator", with: "builtin:oscilator")
        let (loaded, folder) = try Self.timeline("""
            { "at": 0.5, "do": "apply", "graph": "broken.json" },
            { "at": 0.6, "do": "apply", "graph": "missing.json" }
            """, files: ["broken.json": broken])
        #expect(loaded.entries == nil)
        #expect(loaded.errors.map(\.pointer) == ["/timeline/0/graph", "/timeline/1/graph"])
        #expect(loaded.errors.map(\.code) == [.invalidValue, .io])
        #expect(loaded.errors[0].message.contains(#"does not load: 1 error, the first: \#(folder.file("broken.json")):"#))
        #expect(loaded.errors[0].message.contains(#"no node type "builtin:oscilator""#))
        #expect(loaded.errors[1].message.contains("missing.json"))
    }
}
