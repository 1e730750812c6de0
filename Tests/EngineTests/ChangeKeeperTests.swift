import AudioGraph
@testable import Engine
import Foundation
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
        let opened = StateKeeper.open(folder: folder, client: "iaa", fresh: true)
        let keeper = ChangeKeeper(Keeping(keeper: opened.keeper, source: "graph.json", sourceText: graph, start: KeptStart()), host: host)
        keeper.started()
        return (keeper, folder)
    }

    /// What the state folder holds after the snapshot, as the next start would read it.
    static func kept(in folder: String) -> [KeptChange] {
        StateKeeper.open(folder: folder, client: "iaa", fresh: false).records.compactMap { KeptChange(kind: $0.kind, body: $0.body) }
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
