import Foundation
import Testing
import TestKit
@testable import StateStore

/// What the store trusts of its folder and files, tried as another user on the machine would
/// (docs/state.md, "Who may write there"): a folder others may write, or own, is neither read nor
/// written; a link is never followed; a FIFO, a file of another user's and a huge file are set
/// aside, said, and never hang or swell the engine's start.
@Suite("The state folder against others on the machine")
struct StateFolderTrustTests {
    private func snapshot(_ keeper: StateKeeper, graph: String = "{}") throws {
        try keeper.writeSnapshot(source: "g.json", sourceText: "{}", graph: graph, held: [])
    }

    /// A snapshot written as an engine would, in `folder`, and no journal beside it.
    private func plantedSnapshot(in folder: String, graph: String) throws {
        do {
            let keeper = StateKeeper.open(folder: folder, name: "demo", fresh: false).keeper
            try snapshot(keeper, graph: graph)
        }
        for suffix in ["", "-wal", "-shm"] { unlink(folder + "/demo.journal.sqlite" + suffix) }
    }

    @Test("a folder others may write (0777) or another user owns is not trusted: its snapshot is not read, and nothing is written there")
    func untrustedFolders() throws {
        let base = try TemporaryDirectory("state-trust")
        for (name, spoil) in [("open", { (path: String) in chmod(path, 0o777) }), ("theirs", { (path: String) in chown(path, 65534, 65534) })] {
            let folder = base.file(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try plantedSnapshot(in: folder, graph: #"{"apps":[{"id":"evil","plugin":"/tmp/libevil.so","isolation":"none"}]}"#)
            #expect(spoil(folder) == 0)
            let opened = StateKeeper.open(folder: folder, name: "demo", fresh: false)
            #expect(opened.snapshot == nil, "\(name): the planted snapshot was read")
            let why = try #require(opened.keeper.unwritable)
            #expect(why.contains("not trusted") && why.contains(folder), "\(why)")
            #expect(opened.discarded == [why])
            #expect(throws: StateStoreError.self) { try self.snapshot(opened.keeper) }
            #expect(throws: StateStoreError.self) { try opened.keeper.append([(kind: "parameter", body: "{}")], at: 0) }
        }
    }

    @Test("a link planted at the snapshot's temporary name is replaced, not written through")
    func temporaryLinkIsNotFollowed() throws {
        let folder = try TemporaryDirectory("state-link")
        let victim = folder.file("victim")
        try "mine".write(toFile: victim, atomically: false, encoding: .utf8)
        let keeper = StateKeeper.open(folder: folder.file("state"), name: "demo", fresh: false).keeper
        #expect(symlink(victim, folder.file("state/demo.snapshot.json.tmp")) == 0)
        try snapshot(keeper, graph: "{\"kept\":1}")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
        #expect(StateKeeper.open(folder: folder.file("state"), name: "demo", fresh: false).snapshot?.graph == "{\"kept\":1}")
    }

    @Test("a snapshot that is a link is set aside, not read; so is a journal that is a link to another database")
    func linksAreSetAside() throws {
        let folder = try TemporaryDirectory("state-links")
        let elsewhere = try TemporaryDirectory("state-elsewhere")
        try plantedSnapshot(in: elsewhere.path, graph: "{\"theirs\":1}")
        try FileManager.default.createDirectory(atPath: folder.file("state"), withIntermediateDirectories: true)
        #expect(symlink(elsewhere.file("demo.snapshot.json"), folder.file("state/demo.snapshot.json")) == 0)
        let opened = StateKeeper.open(folder: folder.file("state"), name: "demo", fresh: false)
        #expect(opened.snapshot == nil)
        #expect(opened.discarded.first?.contains("symbolic link") == true, "\(opened.discarded)")

        let other = try TemporaryDirectory("state-other-db")
        let database = other.file("other.sqlite")
        FileManager.default.createFile(atPath: database, contents: Data())
        let second = try TemporaryDirectory("state-journal-link")
        try plantedSnapshot(in: second.path, graph: "{}")
        #expect(symlink(database, second.file("demo.journal.sqlite")) == 0)
        let reopened = StateKeeper.open(folder: second.path, name: "demo", fresh: false)
        #expect(reopened.discarded.contains { $0.contains("symbolic link") }, "\(reopened.discarded)")
        // The other database is untouched: not made a WAL, no table added.
        #expect((try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) == 0)
        #expect(FileManager.default.fileExists(atPath: second.file("demo.journal.sqlite.damaged")))
    }

    @Test("a FIFO as the journal is set aside at once, and the start goes on")
    func fifoJournal() throws {
        let folder = try TemporaryDirectory("state-fifo")
        try plantedSnapshot(in: folder.path, graph: "{\"mine\":1}")
        #expect(mkfifo(folder.file("demo.journal.sqlite"), 0o600) == 0)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot?.graph == "{\"mine\":1}")
        #expect(opened.discarded.contains { $0.contains("FIFO") }, "\(opened.discarded)")
        #expect(opened.keeper.unwritable == nil)
    }

    @Test("a snapshot larger than any snapshot (2 GiB, sparse) is set aside unread, with its size said")
    func hugeSnapshot() throws {
        let folder = try TemporaryDirectory("state-huge")
        let path = folder.file("demo.snapshot.json")
        FileManager.default.createFile(atPath: path, contents: Data("{\"format\": \"iaa-state/1\", \"seq\": 1".utf8))
        #expect(truncate(path, 2 << 30) == 0)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot == nil)
        #expect(opened.discarded.first?.contains("2147483648 bytes") == true, "\(opened.discarded)")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    @Test("a snapshot another user owns, in a folder of this user's, is set aside, not read")
    func someoneElsesSnapshot() throws {
        let folder = try TemporaryDirectory("state-chown")
        try plantedSnapshot(in: folder.path, graph: "{\"theirs\":1}")
        #expect(chown(folder.file("demo.snapshot.json"), 65534, 65534) == 0)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot == nil)
        #expect(opened.discarded.first?.contains("owned by uid 65534") == true, "\(opened.discarded)")
    }
}

/// State an earlier iaa kept per client alone (`BASE/CLIENT.snapshot.json` and its journal).
@Suite("The earlier layout of the kept state")
struct EarlierLayoutTests {
    @Test("state kept per client alone moves to its graph file's place when it grew from the same text, with its journal; another graph's stays")
    func adoptsOnlyItsOwn() throws {
        let base = try TemporaryDirectory("state-layout")
        do {
            let old = StateKeeper.open(folder: base.path, name: "iaa", fresh: false).keeper
            try old.writeSnapshot(source: "demo.json", sourceText: "{\"demo\":1}", graph: "{\"kept\":1}", held: [])
            try old.append([(kind: "parameter", body: "{\"value\":7}")], at: 0)
        }
        let other = StatePlace(base: base.path, client: "iaa", graphPath: "/graphs/headunit.json")
        #expect(other.adoptEarlierLayout(base: base.path, client: "iaa", sourceText: "{\"headunit\":1}") == nil)
        #expect(FileManager.default.fileExists(atPath: base.file("iaa.snapshot.json")))
        let place = StatePlace(base: base.path, client: "iaa", graphPath: "/graphs/demo.json")
        #expect(place.adoptEarlierLayout(base: base.path, client: "iaa", sourceText: "{\"demo\":1}")?.contains("is now") == true)
        #expect(!FileManager.default.fileExists(atPath: base.file("iaa.snapshot.json")))
        let opened = StateKeeper.open(place, fresh: false)
        #expect(opened.snapshot?.graph == "{\"kept\":1}")
        #expect(opened.records.map(\.body) == ["{\"value\":7}"])
    }
}
