import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// iaa under New Session Manager: started by name with NSM_URL set, it announces itself, runs
    /// the session's graph as the client id the server gives, saves what changed, and restores it
    /// the next time. The server side is Tests/Fixtures/nsm/session_server.py, which speaks NSM's
    /// OSC messages as nsmd and RaySession do.
    @Suite("New Session Manager", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct NSMSessionTests {
        @Test("announce, open, save and stop under a session manager; the saved graph restores the change")
        func sessionRoundTrip() throws {
            let folder = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let instance = folder.appendingPathComponent("iaa.nTEST")
            try FileManager.default.createDirectory(at: instance, withIntermediateDirectories: true)
            // The session's graph: the demo, with no client name of its own (the server names it).
            let demo = try String(contentsOfFile: Repository.path("graphs/demo.json"), encoding: .utf8)
                .replacingOccurrences(of: #""client": "iaa","#, with: "")
            try demo.write(to: instance.appendingPathComponent("graph.json"), atomically: true, encoding: .utf8)

            let result = try runCommand("/usr/bin/python3", [Repository.path("Tests/Fixtures/nsm/session_server.py"),
                                                            Repository.binary, folder.path, "nTEST"])
            let log = (try? String(contentsOf: folder.appendingPathComponent("iaa.log"), encoding: .utf8)) ?? ""
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)\niaa said:\n\(log)")
            #expect(result.stdout.contains("announce /nsm/server/announce iaa"), "\(result.stdout)")
            #expect(result.stdout.contains("open /reply /nsm/client/open running \(instance.path)/graph.json"), "\(result.stdout)")
            #expect(result.stdout.contains("save /reply /nsm/client/save saved"), "\(result.stdout)")
            #expect(result.stdout.contains("exit 0"), "\(result.stdout)")
            #expect(log.contains("as JACK client 'nTEST'"), "\(log)")

            // The saved graph holds the change and validates; the engine runs it again.
            let saved = try String(contentsOf: instance.appendingPathComponent("graph.json"), encoding: .utf8)
            #expect(saved.contains("\"frequency\":660"), "\(saved)")
            let engine = try EngineProcess(graph: instance.appendingPathComponent("graph.json").path, client: "t-nsm-again")
            defer { engine.stop() }
            #expect(try jackPorts().contains("t-nsm-again:mix.out"))
        }
    }
}
