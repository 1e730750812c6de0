import AudioGraph
import GraphFormat
@testable import Engine
import OfflineBackend
import SignalAnalysis
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
}
