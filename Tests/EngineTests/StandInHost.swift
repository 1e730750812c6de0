import AudioGraph
@testable import Engine
import GraphFormat
import Testing

/// What a component of the engine reads of it (``EngineHost``), stood in for: a graph whose first
/// plan is installed on an in-memory server, its sessions, a clock the test sets and a publisher
/// the test can tap. For testing one component alone, without an engine core.
final class StandInHost: EngineHost {
    let graph: Graph
    let backend: any LiveBackend
    let server: MemoryBackend
    var now = 0.0
    let sessions: AudioSessionController
    let publisher = EventPublisher(clock: EngineClock())
    func checkOnQueue() {}

    init(_ text: String) throws {
        let loaded = GraphFile.load(text: text, file: "graph.json", registry: GraphLoading.registry)
        graph = try #require(loaded.graph, "\(loaded.errors.map(\.formatted))")
        server = MemoryBackend()
        backend = server
        sessions = AudioSessionController(graph: graph)
        let builder = PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: graph.policy.rampSeconds)
        _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .first, on: server, at: 0)
    }
}
