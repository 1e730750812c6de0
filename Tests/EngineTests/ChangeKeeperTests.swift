import AudioGraph
@testable import Engine
import Foundation
import GraphFormat
import StateStore
import TestKit
import Testing

/// ``ChangeKeeper`` alone, on a ``StandInHost`` and a state folder of the test's: what a request
/// will change is worked out before it is made and kept, and which JACK connections made outside
/// the engine are the user's to keep. Replaying what was kept is the kept-state suites'.
@Suite("Keeping changes, on a stand-in host")
struct ChangeKeeperTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "kept",
          "apps": [ { "id": "tone", "plugin": "builtin:oscillator" }, { "id": "g", "plugin": "builtin:gain" },
                    { "id": "music", "program": { "jackClient": "zz*", "outputs": 1 } } ],
          "jack": { "connections": [ { "from": "g:out", "to": "@playback" } ] } }
        """

    /// The component on a fresh state folder, its first snapshot written as at the engine's start.
    static func keeper(_ host: StandInHost) throws -> (ChangeKeeper, folder: String) {
        let folder = try makeTemporaryDirectory("kept")
        let opened = StateKeeper.open(folder: folder, name: "iaa", fresh: true)
        let keeper = ChangeKeeper(Keeping(keeper: opened.keeper, source: "graph.json", sourceText: graph, start: KeptStart()), host: host)
        keeper.started()
        return (keeper, folder)
    }

    /// What the state folder holds after the snapshot, as the next start would read it.
    static func kept(in folder: String) -> [KeptChange] {
        StateKeeper.open(folder: folder, name: "iaa", fresh: false).records.compactMap { KeptChange(kind: $0.kind, body: $0.body) }
    }

    @Test("a parameter change and a connection are worked out before they are made and kept in order; a connection that would be refused plans nothing")
    func plannedAndKept() throws {
        let host = try StandInHost(Self.graph)
        let (keeper, folder) = try Self.keeper(host)
        let journal = try #require(keeper.status.journal)
        #expect(journal.refusing == nil)
        let view = keeper.view()
        let set = keeper.plannedChanges(.setParameter(app: "g", index: 0, value: 0.5), from: view)
        #expect(set == [.parameter(app: "g", param: "gain", value: 0.5)])
        let wire = Connection(from: PortAddress(app: 0, port: 0), to: PortAddress(app: 1, port: 0), gain: 1)
        let connect = keeper.plannedChanges(.connect([wire]), from: view)
        #expect(connect == [.connect(from: "tone:out", to: "g:in", gain: 1)])
        // g's output into its own input: a cycle, which the engine refuses.
        let loop = Connection(from: PortAddress(app: 1, port: 0), to: PortAddress(app: 1, port: 0), gain: 1)
        #expect(keeper.plannedChanges(.connect([loop]), from: view).isEmpty)
        try keeper.keep(set)
        try keeper.keep(connect)
        #expect(Self.kept(in: folder) == set + connect)
        let after = try #require(keeper.status.journal)
        #expect(after.lastChange == 2 && after.sinceSnapshot == 2)
    }

    @Test("a JACK connection made by hand is kept by the app's port names; the engine's own rule pairs and a program's ports are not, and a rule's pair removed by hand is kept as held")
    func outsideConnections() throws {
        let host = try StandInHost(Self.graph)
        _ = host.connections.make(host.graph.externalConnections)
        host.server.addClient("rec", outputs: [], inputs: ["in"])
        host.programEnds = ["iaa:music.play_1"]
        let (keeper, folder) = try Self.keeper(host)
        keeper.keepOutsideConnection("iaa:g.out", "system:playback_1", connected: true)
        keeper.keepOutsideConnection("zzmpv:out_0", "iaa:music.play_1", connected: true)
        keeper.keepOutsideConnection("iaa:g.out", "rec:in", connected: true)
        keeper.keepOutsideConnection("iaa:g.out", "system:playback_2", connected: false)
        #expect(Self.kept(in: folder) == [
            .jackConnect(from: "g:out", to: "rec:in", ports: ["iaa:g.out", "rec:in"]),
            .jackDisconnect(from: "g:out", to: "system:playback_2", ports: ["iaa:g.out", "system:playback_2"], rule: true),
        ])
    }
}

/// The live core keeping its state as `iaa run` does, driven by requests: what it acknowledged
/// is what a start after a kill (no clean stop, no last snapshot) resumes.
@Suite("Kept state through the live core's requests")
struct KeptRequestTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "kept",
          "apps": [ { "id": "tone", "plugin": "builtin:oscillator" }, { "id": "other", "plugin": "builtin:oscillator" } ] }
        """

    @Test("a snapshot that falls due while a set is kept holds that set: after the engine dies, every acknowledged value is back, across several snapshots")
    func snapshotDueDuringAChange() throws {
        let folder = try TemporaryDirectory("kept-requests")
        let live = try LiveCore(Self.graph)
        let opened = StateKeeper.open(folder: folder.path, name: "iaa", fresh: true)
        live.core.queue.sync {
            live.core.keeping = ChangeKeeper(Keeping(keeper: opened.keeper, source: "graph.json", sourceText: Self.graph, start: KeptStart()), host: live.core)
            live.core.keeping?.started()
        }
        // Past two snapshots (one per 256 records), each value acknowledged by its reply; the
        // last set of each app falls on a record that makes a snapshot due (256, 512).
        let per = Int(ChangeKeeper.recordsPerSnapshot)
        var last: [String: Double] = [:]
        for record in 1...(2 * per) {
            let app = record % per == 0 ? "tone" : "other"
            let value = Double(100 + record)
            _ = try live.result("set", ["app": .string(app), "param": "frequency", "value": .number(value)])
            last[app] = value
        }
        // What the next start reads, with no snapshot at exit: the engine was killed.
        let resumed = StateKeeper.open(folder: folder.path, name: "iaa", fresh: false)
        let file = GraphFile.load(text: Self.graph, file: "graph.json", registry: GraphLoading.registry)
        let chosen = KeptStart.choose(resumed, path: "graph.json", fileText: Self.graph, file: file, grants: nil)
        #expect(chosen.start.outcome == .resumed)
        let apps = try #require(chosen.loaded.graph?.apps)
        for app in apps {
            #expect(app.parameters.first.map(Double.init) == last[app.id], "\(app.id): resumed \(app.parameters.first.map { "\($0)" } ?? "nothing"), acknowledged \(last[app.id] ?? 0)")
        }
    }
}
