import ControlSocket
@testable import Engine
import Foundation
import GraphFormat
import StateStore
import TestKit
import Testing

/// The journal's records and their replay onto the snapshot's graph file (docs/state.md): each
/// record reads back as written, and edits the file as `dump --graph` would have written it.
@Suite("Kept changes and their replay")
struct KeptGraphTests {
    static let graph = """
        {"format":"iaa-graph/1","name":"g","apps":[
          {"id":"tone","role":"app","plugin":"builtin:oscillator","params":{"frequency":440},
           "session":{"category":"playback","mode":"default","options":[],"active":true},"state":"foreground"},
          {"id":"mix","role":"app","plugin":"builtin:mixer","params":{"inputs":2}}],
         "connections":[{"from":"tone:out","to":"mix:in_1"}],
         "jack":{"client":"iaa","connections":[{"from":"mix:out","to":"@playback"}]}}
        """

    static let session = KeptSession(try! ControlJSONParser.parse(
        #"{"category":"ambient","mode":"default","options":["mixWithOthers"],"active":false,"foreground":false}"#))!

    static let changes: [KeptChange] = [
        .parameter(app: "tone", param: "frequency", value: 300),
        .connect(from: "tone:out", to: "mix:in_2", gain: 0.5),
        .disconnect(from: "tone:out", to: "mix:in_1"),
        .jackConnect(from: "tone:out", to: "system:playback_2", ports: ["iaa:tone.out", "system:playback_2"]),
        .jackDisconnect(from: "mix:out", to: "system:playback_1", ports: ["iaa:mix.out", "system:playback_1"], rule: true),
        .session(app: "tone", session),
    ]

    @Test("every record reads back as it was written; an unknown kind or a malformed body reads as nothing")
    func recordsRoundTrip() {
        for change in Self.changes {
            #expect(KeptChange(kind: change.kind, body: change.body) == change, "\(change.kind) \(change.body)")
        }
        #expect(KeptChange(kind: "teleport", body: "{}") == nil)
        #expect(KeptChange(kind: "parameter", body: #"{"app":"tone"}"#) == nil)
        #expect(KeptChange(kind: "parameter", body: "{not json") == nil)
    }

    @Test("replayed, the records edit the graph file as the running engine's dump would read")
    func replayEditsTheFile() throws {
        var kept = try #require(KeptGraph(text: Self.graph, held: []))
        for change in Self.changes { kept.apply(change) }
        let file = try ControlJSONParser.parse(kept.text)
        let tone = file["apps"]?.arrayValue?.first
        #expect(tone?["params"]?["frequency"]?.doubleValue == 300)
        #expect(tone?["session"]?["category"]?.stringValue == "ambient")
        #expect(tone?["session"]?["active"]?.boolValue == false)
        #expect(tone?["session"]?["foreground"] == nil)
        #expect(tone?["state"]?.stringValue == "background")
        let connections = file["connections"]?.arrayValue ?? []
        #expect(connections.map(\.text) == [#"{"from":"tone:out","to":"mix:in_2","gain":0.5}"#])
        let jack = file["jack"]?["connections"]?.arrayValue?.map(\.text) ?? []
        #expect(jack == [#"{"from":"mix:out","to":"@playback"}"#, #"{"from":"tone:out","to":"system:playback_2"}"#])
        #expect(kept.held == [["iaa:mix.out", "system:playback_1"]])
        // The rule's pair made again is no longer held; a pair removed that no rule stands for is
        // struck from the file.
        kept.apply(.jackConnect(from: "mix:out", to: "system:playback_1", ports: ["iaa:mix.out", "system:playback_1"]))
        kept.apply(.jackDisconnect(from: "tone:out", to: "system:playback_2", ports: ["iaa:tone.out", "system:playback_2"], rule: false))
        #expect(kept.held.isEmpty)
        let after = try ControlJSONParser.parse(kept.text)["jack"]?["connections"]?.arrayValue?.map(\.text) ?? []
        #expect(after == [#"{"from":"mix:out","to":"@playback"}"#, #"{"from":"mix:out","to":"system:playback_1"}"#])
    }

    @Test("a record for an app the graph no longer has changes nothing")
    func unknownAppIsIgnored() throws {
        var kept = try #require(KeptGraph(text: Self.graph, held: []))
        let before = kept.text
        kept.apply(.parameter(app: "gone", param: "frequency", value: 1))
        kept.apply(.session(app: "mix", Self.session))
        #expect(kept.text == before)
    }
}

/// What a start makes of what was kept (``KeptStart``): the journal replayed when the graph file
/// is the one the state grew from, the file when it changed, and a record it cannot read ending
/// the replay there, said.
@Suite("The start of an engine with kept state")
struct KeptStartTests {
    static let file = """
        {"format":"iaa-graph/1","name":"g","apps":[{"id":"tone","role":"app","plugin":"builtin:oscillator","params":{"frequency":440}}]}
        """

    /// A folder holding a snapshot of `file` and `records` after it, opened again.
    private func opened(_ records: [(kind: String, body: String)], in folder: TemporaryDirectory) throws -> StateKeeper.Opened {
        let first = StateKeeper.open(folder: folder.path, name: "iaa", fresh: false)
        try first.keeper.writeSnapshot(source: "g.json", sourceText: Self.file, graph: Self.file, held: [])
        for record in records { try first.keeper.append([record], at: 0) }
        return StateKeeper.open(folder: folder.path, name: "iaa", fresh: false)
    }

    private func frequency(_ loaded: GraphLoadResult) -> Float? { loaded.graph?.apps.first?.parameters.first }

    @Test("the same file: the journal is replayed; an unreadable record ends the replay, and says how many it drops")
    func resumesUpToWhatItCanRead() throws {
        let folder = try TemporaryDirectory("kept-start")
        let set = { (value: Int) in (kind: "parameter", body: #"{"app":"tone","param":"frequency","value":\#(value)}"#) }
        let opened = try opened([set(300), set(310), (kind: "teleport", body: "{}"), set(320), set(330)], in: folder)
        let file = GraphFile.load(text: Self.file, file: "g.json", registry: GraphLoading.registry)
        let chosen = KeptStart.choose(opened, path: "g.json", fileText: Self.file, file: file, grants: nil)
        #expect(chosen.start.outcome == .resumed && chosen.start.replayed == 2)
        #expect(frequency(chosen.loaded) == 310)
        #expect(chosen.start.discarded == ["journal record 3 (teleport) cannot be read by this iaa; it and the 2 after it are discarded"])
    }

    @Test("an edited file wins, and what the kept state had is named")
    func editedFileWins() throws {
        let folder = try TemporaryDirectory("kept-start")
        let opened = try opened([(kind: "parameter", body: #"{"app":"tone","param":"frequency","value":300}"#)], in: folder)
        let edited = Self.file.replacingOccurrences(of: "\"name\":\"g\"", with: "\"name\":\"h\"")
        let file = GraphFile.load(text: edited, file: "g.json", registry: GraphLoading.registry)
        let chosen = KeptStart.choose(opened, path: "g.json", fileText: edited, file: file, grants: nil)
        #expect(chosen.start.outcome == .fileChanged && chosen.start.replayed == 0)
        #expect(frequency(chosen.loaded) == 440)
        #expect(chosen.start.dropped == ["the parameters, session or configuration of tone"])
    }
}
