import AudioGraph
import Foundation
@testable import Engine
import GraphFormat
import Testing

/// What a component of the engine reads of it (``EngineHost``, and ``WatchHost``'s few more),
/// stood in for: a graph whose first plan is installed on an in-memory server, its sessions, a
/// clock the test sets, a publisher the test can tap, and program apps the test says are away.
/// For testing one component alone, without an engine core.
final class StandInHost: EngineHost, WatchHost {
    let graph: Graph
    let backend: any LiveBackend
    let server: MemoryBackend
    var now = 0.0
    let sessions: AudioSessionController
    let publisher = EventPublisher(clock: EngineClock())
    let queue = DispatchQueue(label: "stand-in host")
    var cycles = CycleSettings()
    var isolated: IsolatedApps? { nil }
    var awayPrograms: Set<String> = []
    func programIsAway(_ app: App) -> Bool { awayPrograms.contains(app.id) }
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
