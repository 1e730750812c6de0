import Foundation
import Testing
import TestKit
@testable import StateStore

/// The store on its own: what is kept comes back, and every kind of damage is survived, said and
/// set aside (docs/state.md, "What survives what").
@Suite struct StateKeeperTests {
    private func keep(_ keeper: StateKeeper, _ values: ClosedRange<Int>) throws {
        for value in values { try keeper.append([(kind: "parameter", body: "{\"value\":\(value)}")], at: Double(value)) }
    }

    private func snapshot(_ keeper: StateKeeper, graph: String = "{}") throws {
        try keeper.writeSnapshot(source: "g.json", sourceText: "{}", graph: graph, held: [["a:x", "b:y"]])
    }

    @Test func keptChangesComeBackInOrderAfterTheSnapshot() throws {
        let folder = try TemporaryDirectory("state")
        let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(first.snapshot == nil && first.records.isEmpty && first.discarded.isEmpty)
        try snapshot(first.keeper)
        try keep(first.keeper, 1...3)
        let again = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(again.snapshot?.held == [["a:x", "b:y"]])
        #expect(again.records.map(\.body) == ["{\"value\":1}", "{\"value\":2}", "{\"value\":3}"])
        #expect(again.records.map(\.seq) == [1, 2, 3])
        // A snapshot includes what came before it; numbering goes on after it.
        try snapshot(again.keeper, graph: "{\"after\":3}")
        try keep(again.keeper, 4...4)
        let third = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(third.snapshot?.graph == "{\"after\":3}" && third.snapshot?.seq == 3)
        #expect(third.records.map(\.seq) == [4])
    }

    @Test func theFolderIsMadeForItsOwnerOnly() throws {
        let folder = try TemporaryDirectory("state")
        let opened = StateKeeper.open(folder: folder.file("xdg/iaa"), name: "demo", fresh: false)
        #expect(opened.keeper.unwritable == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: folder.file("xdg/iaa"))[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("the journal and SQLite's files beside it are 0600, as the snapshot is; a journal an earlier iaa left 0644 is made 0600")
    func everyFileIsForItsOwnerOnly() throws {
        let folder = try TemporaryDirectory("state")
        let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        try snapshot(first.keeper)
        try keep(first.keeper, 1...2)
        let mode = { (name: String) in (try? FileManager.default.attributesOfItem(atPath: folder.file(name))[.posixPermissions] as? Int) ?? nil }
        for name in ["demo.snapshot.json", "demo.journal.sqlite", "demo.journal.sqlite-wal", "demo.journal.sqlite-shm"] {
            #expect(mode(name) == 0o600, "\(name): \(mode(name).map { String($0, radix: 8) } ?? "missing")")
        }
        let earlier = try TemporaryDirectory("state")
        FileManager.default.createFile(atPath: earlier.file("demo.journal.sqlite"), contents: nil, attributes: [.posixPermissions: 0o644])
        _ = StateKeeper.open(folder: earlier.path, name: "demo", fresh: false)
        #expect((try FileManager.default.attributesOfItem(atPath: earlier.file("demo.journal.sqlite"))[.posixPermissions] as? Int) == 0o600)
    }

    @Test func freshDeletesWhatWasKept() throws {
        let folder = try TemporaryDirectory("state")
        let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        try snapshot(first.keeper)
        try keep(first.keeper, 1...2)
        let fresh = StateKeeper.open(folder: folder.path, name: "demo", fresh: true)
        #expect(fresh.snapshot == nil && fresh.records.isEmpty && fresh.discarded.isEmpty)
    }

    @Test func aTornLastRecordIsOneThatWasNeverKept() throws {
        let folder = try TemporaryDirectory("state")
        let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        try snapshot(first.keeper)
        try keep(first.keeper, 1...5)
        // The log as a crash mid-write leaves it: the last frame cut short. The process that
        // wrote it is gone, as after a kill: copy the files somewhere no connection holds.
        let crashed = try TemporaryDirectory("state")
        for name in ["demo.snapshot.json", "demo.journal.sqlite", "demo.journal.sqlite-wal"] {
            try FileManager.default.copyItem(atPath: folder.file(name), toPath: crashed.file(name))
        }
        let wal = crashed.file("demo.journal.sqlite-wal")
        let size = try #require(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        #expect(truncate(wal, off_t(size - 100)) == 0)
        let reopened = StateKeeper.open(folder: crashed.path, name: "demo", fresh: false)
        #expect(reopened.discarded.isEmpty)
        #expect(reopened.records.map(\.seq) == [1, 2, 3, 4])
        #expect(reopened.keeper.unwritable == nil)
        try keep(reopened.keeper, 6...6)
        #expect(StateKeeper.open(folder: crashed.path, name: "demo", fresh: false).records.map(\.seq) == [1, 2, 3, 4, 5])
    }

    @Test func aDamagedJournalIsSetAsideAndTheSnapshotStands() throws {
        let folder = try TemporaryDirectory("state")
        do {
            let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
            try snapshot(first.keeper, graph: "{\"kept\":true}")
            try keep(first.keeper, 1...50)
        }
        let journal = folder.file("demo.journal.sqlite")
        unlink(journal + "-wal")
        unlink(journal + "-shm")
        // Overwritten in the middle: SQLite's check finds it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 3000))
        try handle.close()
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot?.graph == "{\"kept\":true}")
        #expect(opened.records.isEmpty)
        let said = try #require(opened.discarded.first)
        #expect(said.contains("demo.journal.sqlite") && said.contains("discarded") && said.contains(".damaged"))
        #expect(FileManager.default.fileExists(atPath: journal + ".damaged"))
        // Keeping goes on in a new journal, numbered after the snapshot.
        try keep(opened.keeper, 1...1)
        #expect(StateKeeper.open(folder: folder.path, name: "demo", fresh: false).records.map(\.seq) == [1])
    }

    @Test func aTruncatedJournalIsSetAside() throws {
        let folder = try TemporaryDirectory("state")
        do {
            let first = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
            try snapshot(first.keeper)
            try keep(first.keeper, 1...300)
            try first.keeper.writeSnapshot(source: "g.json", sourceText: "{}", graph: "{\"at\":300}", held: [])
        }
        let journal = folder.file("demo.journal.sqlite")
        unlink(journal + "-wal")
        unlink(journal + "-shm")
        #expect(truncate(journal, 1500) == 0)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot?.graph == "{\"at\":300}")
        #expect(opened.discarded.count == 1)
        #expect(opened.keeper.unwritable == nil)
    }

    @Test func aSnapshotFromANewerVersionIsKeptAsideForIt() throws {
        let folder = try TemporaryDirectory("state")
        let path = folder.file("demo.snapshot.json")
        try #"{"format": "iaa-state/7", "seq": 12, "graph": "{}"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot == nil)
        let said = try #require(opened.discarded.first)
        #expect(said.contains("iaa-state/7") && said.contains("newer"))
        #expect(FileManager.default.fileExists(atPath: path + ".newer"))
        // Not overwritten by the next snapshot.
        try snapshot(opened.keeper)
        #expect(try String(contentsOfFile: path + ".newer", encoding: .utf8).contains("iaa-state/7"))
    }

    @Test func aSnapshotThatIsNotOneIsSetAside() throws {
        let folder = try TemporaryDirectory("state")
        try "{\"format\": \"iaa-state/1\", \"seq\": ".write(toFile: folder.file("demo.snapshot.json"), atomically: true, encoding: .utf8)
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(opened.snapshot == nil && opened.discarded.count == 1)
        #expect(FileManager.default.fileExists(atPath: folder.file("demo.snapshot.json.damaged")))
    }

    /// A tiny filesystem of its own, mounted for the test (CI runs as root): filled up, the store
    /// refuses to keep with a clear error and keeps what it had; freed, it keeps again.
    @Test func aFullDiskRefusesTheChangeAndKeepsWhatWasKept() throws {
        let folder = try TemporaryDirectory("state-full")
        let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", folder.path])
        try #require(mount.status == 0, "mounting a tmpfs needs root: \(mount.output)")
        defer { _ = try? runCommand("/bin/umount", [folder.path]) }
        let opened = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        try snapshot(opened.keeper)
        try keep(opened.keeper, 1...10)
        let filler = folder.file("filler")
        _ = try runCommand("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k", "count=1000"])
        var refused: StateStoreError?
        for value in 11...2000 {
            do {
                try opened.keeper.append([(kind: "parameter", body: String(repeating: "x", count: 2000) + "\(value)")], at: 0)
            } catch {
                refused = error
                break
            }
        }
        let error = try #require(refused)
        #expect(error.kind == .full)
        #expect(error.message.contains("demo.journal.sqlite") && error.message.contains("full"))
        let kept = opened.keeper.lastSeq
        unlink(filler)
        try keep(opened.keeper, 1...1)
        let again = StateKeeper.open(folder: folder.path, name: "demo", fresh: false)
        #expect(again.discarded.isEmpty)
        #expect(again.records.last?.seq == kept + 1)
    }

    @Test func aReadOnlyFolderIsReadAndRefusesToKeep() throws {
        let folder = try TemporaryDirectory("state-ro")
        try FileManager.default.createDirectory(atPath: folder.file("state"), withIntermediateDirectories: true)
        let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.file("state")])
        try #require(mount.status == 0, "mounting a tmpfs needs root: \(mount.output)")
        defer { _ = try? runCommand("/bin/umount", [folder.file("state")]) }
        do {
            let opened = StateKeeper.open(folder: folder.file("state"), name: "demo", fresh: false)
            try snapshot(opened.keeper, graph: "{\"ro\":1}")
            try keep(opened.keeper, 1...2)
        }
        #expect(try runCommand("/bin/mount", ["-o", "remount,ro", folder.file("state")]).status == 0)
        let opened = StateKeeper.open(folder: folder.file("state"), name: "demo", fresh: false)
        #expect(opened.snapshot?.graph == "{\"ro\":1}")
        #expect(opened.records.count == 2, "\(opened.discarded)")
        let why = try #require(opened.keeper.unwritable)
        #expect(why.contains("demo.journal.sqlite"))
        #expect(throws: StateStoreError.self) { try keep(opened.keeper, 3...3) }
    }
}
