import AudioFiles
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// docs/links.md's "On one machine", run as written: two JACK servers, two engines and the
    /// bridges between them, the rear unit's speakers recorded.
    @Suite("A link on one machine, as written", .serialized)
    struct LinkDocumentedTests {
        @Test("the steps work when pasted: the rear engine's link locks and its speakers carry the head unit's 0.5 tone")
        func asWritten() throws {
            let page = Markdown.page("docs/links.md")
            let blocks = Markdown.blocks(["sh"], in: Markdown.section(from: "### On one machine", to: "## What the engine does", in: page))
            try #require(blocks.count == 1, "expected one shell block in \"On one machine\", found \(blocks.count)")
            let directory = try makeTemporaryDirectory("links")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let work = directory + "/work"
            for folder in ["run", "state", "work"] {
                try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            try FileManager.default.createSymbolicLink(atPath: work + "/graphs", withDestinationPath: Repository.path("graphs"))
            let binaries = URL(fileURLWithPath: Repository.binary).deletingLastPathComponent().path
            let steps = try DocumentedSteps(directory: directory, markName: "IAA_LINK_DOC", prologue: """
                export XDG_RUNTIME_DIR="\(directory)/run" XDG_STATE_HOME="\(directory)/state"
                export PATH="\(binaries):$PATH"
                unset JACK_DEFAULT_SERVER IAA_CONFIG IAA_CLIENT
                cd "\(work)"
                """, blocks: blocks)
            defer { steps.finish("docs/links.md's steps") }
            let finished = waitUntil(seconds: 90) { steps.status?.isEmpty == false }
            if !finished {
                // What each engine said, and where each process waits: for the one run in many
                // where the engines did not end on SIGTERM in time.
                let logs = ["rear.log", "head.log"].map { name in
                    "\(name):\n" + ((try? String(contentsOfFile: work + "/" + name, encoding: .utf8)) ?? "").suffix(3_000)
                }
                Issue.record("the steps did not finish within 90 s:\n\(steps.output)\nprocesses:\n\(steps.stuck)\n\(logs.joined(separator: "\n"))")
                return
            }
            try #require(steps.status == "0", "the steps failed (exit \(steps.status ?? "?")):\n\(steps.output)")
            #expect(steps.output.contains("link receive 0.0.0.0:30100 running (locked after"), "\(steps.output)")
            // The steps stop what they started, servers last: nothing of theirs is left in shared memory.
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []).filter {
                $0.contains("head-unit") || $0.contains("rear-unit")
            }
            #expect(left.isEmpty, "left in /dev/shm: \(left)")
            // The level the tone crosses at: the loudest 0.1 s of the last second (a moment's
            // drop-out of a busy machine is counted by the link's `underruns`, not heard here).
            let heard = Array(try SoundFileReader(path: work + "/heard.wav").readAll()[0].suffix(48_000))
            let rms = stride(from: 0, to: heard.count - 4_799, by: 4_800).map { start in
                (heard[start..<start + 4_800].reduce(0) { $0 + Double($1) * Double($1) } / 4_800).squareRoot()
            }.max() ?? 0
            #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.01, "the rear speakers' last second: RMS \(rms)")
        }
    }
}
