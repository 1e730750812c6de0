import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// `iaa run --grants`: an insecure grants file stops the engine before it opens a client, and
    /// a running engine refuses every graph (at start or through `apply`) that grants more.
    @Suite("Grants files on a running engine", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct GrantsLiveTests {
        static let grants = #"{ "format": "iaa-grants/1", "apps": { "music": [], "*": [] } }"#
        static let graph = """
            { "format": "iaa-graph/1", "name": "granted",
              "apps": [ { "id": "music", "plugin": "builtin:oscillator", "session": { "category": "playback", "active": true } } ] }
            """

        func prepare() throws -> URL {
            let directory = try JackHarness.temporaryDirectory()
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            try Self.grants.write(to: directory.appendingPathComponent("grants.json"), atomically: false, encoding: .utf8)
            try Self.graph.write(to: directory.appendingPathComponent("graph.json"), atomically: false, encoding: .utf8)
            return directory
        }

        @Test("a grants file others may write stops iaa run before it touches JACK, saying how to fix it")
        func insecureFileRefused() throws {
            let directory = try prepare()
            defer { try? FileManager.default.removeItem(at: directory) }
            let grants = directory.appendingPathComponent("grants.json").path
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: grants)
            let run = try runCommand(Repository.binary, ["run", directory.appendingPathComponent("graph.json").path,
                                                                "-n", "t-grants-bad", "--grants", grants])
            #expect(run.status == 1)
            #expect(run.stderr.contains("\(grants): error[insecureGrants]: the grants file has mode 0666"), "\(run.stderr)")
            #expect(run.stderr.contains("hint: chmod go-w \(grants)"), "\(run.stderr)")
            #expect(try !jackPorts().contains { $0.hasPrefix("t-grants-bad:") })
        }

        @Test("apply of a graph granting more than the grants file allows is missingEntitlement and changes nothing")
        func applyBounded() throws {
            let directory = try prepare()
            defer { try? FileManager.default.removeItem(at: directory) }
            let socket = directory.appendingPathComponent("e.sock").path
            let engine = try EngineProcess(graph: directory.appendingPathComponent("graph.json").path, client: "t-grants",
                                           arguments: ["--socket", socket, "--grants", directory.appendingPathComponent("grants.json").path])
            defer { engine.stop() }
            let client = try ControlClient(path: socket)
            let before = try client.call("dump", params: [:]).get()
            let greedy = Self.graph.replacingOccurrences(of: #""active": true } }"#,
                                                         with: #""active": true }, "entitlements": ["priority-audio"] }"#)
            guard case .failure(let error) = try client.call("apply", params: ["text": .string(greedy), "file": "greedy.json"]) else {
                Issue.record("a graph granting priority-audio beyond the grants file was applied")
                return
            }
            #expect(error.code == "invalidGraph")
            #expect(error.message.contains("greedy.json:2:") && error.message.contains("error[missingEntitlement]"), "\(error.message)")
            #expect(error.message.contains("does not allow app \"music\" the entitlement \"priority-audio\""), "\(error.message)")
            #expect(try client.call("dump", params: [:]).get() == before)
        }
    }
}
