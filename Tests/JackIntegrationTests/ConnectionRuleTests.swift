import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// The graph's `jack.connections` as rules the engine keeps true, with real programs
    /// (`jack_metro`) that start after the engine, restart, and lose connections by hand.
    @Suite("JACK connection rules stay true", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ConnectionRuleTests {
        typealias Running = ControlPlaneTests.Running

        /// A graph with one gain app and `rules` as its `jack.connections`, in a new folder.
        func graph(rules: [(from: String, to: String)]) throws -> (path: String, folder: URL) {
            let folder = try JackHarness.temporaryDirectory()
            let entries = rules.map { "{ \"from\": \"\($0.from)\", \"to\": \"\($0.to)\" }" }.joined(separator: ", ")
            let text = """
                { "format": "iaa-graph/1", "name": "rules",
                  "apps": [ { "id": "g", "plugin": "builtin:gain" } ], "connections": [],
                  "jack": { "connections": [ \(entries) ] } }
                """
            let path = folder.appendingPathComponent("rules.json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return (path, folder)
        }

        func connected(_ port: String, to other: String) throws -> Bool {
            try jackConnections()[port]?.contains(other) == true
        }

        func ruleState(_ running: Running) throws -> String? {
            try running.result("status")["rules"]?.arrayValue?.first?["state"]?.stringValue
        }

        @Test("a rule is made when its program starts after the engine, and again after it restarts")
        func ruleFollowsProgram() throws {
            let (path, folder) = try graph(rules: [("t-rmetro:120_bpm", "g:in")])
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-rule")
            defer { running.stop() }
            let pending = try running.result("status")["rules"]?.arrayValue?.first
            #expect(pending?["state"]?.stringValue == "pending")
            #expect(pending?["waitingFor"]?.stringValue == "t-rmetro:120_bpm")

            let metro = try ProgramProcess("jack_metro", ["-b", "120", "-n", "t-rmetro"])
            defer { metro.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-rule:g.in", to: "t-rmetro:120_bpm") },
                    "the rule's connection was not made when jack_metro started")
            let status = try running.result("status")
            let made = status["jackConnections"]?.arrayValue?.first { $0["from"]?.stringValue == "t-rmetro:120_bpm" }
            #expect(made?["to"]?.stringValue == "t-rule:g.in")
            #expect(made?["rule"]?.stringValue == "t-rmetro:120_bpm -> g:in")
            #expect(status["rules"]?.arrayValue?.first?["state"]?.stringValue == "made")

            metro.stop()
            #expect(try waitUntil(seconds: 5) { try jackConnections()["t-rule:g.in"]?.isEmpty == true })
            let again = try ProgramProcess("jack_metro", ["-b", "120", "-n", "t-rmetro"])
            defer { again.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-rule:g.in", to: "t-rmetro:120_bpm") },
                    "the rule's connection was not made again when jack_metro restarted")
        }

        @Test("a rule's connection removed by hand stays removed until its program restarts or the graph is applied")
        func removedByHand() throws {
            let (path, folder) = try graph(rules: [("t-hmetro:120_bpm", "g:in")])
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-hand")
            defer { running.stop() }
            let metro = try ProgramProcess("jack_metro", ["-b", "120", "-n", "t-hmetro"])
            defer { metro.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-hand:g.in", to: "t-hmetro:120_bpm") })

            #expect(try runCommand("jack_disconnect", ["t-hmetro:120_bpm", "t-hand:g.in"]).status == 0)
            #expect(try waitUntil(seconds: 3) { try ruleState(running) == "removed" })
            // Another program's ports appearing does not bring it back; only its own end's do.
            let other = try ProgramProcess("jack_metro", ["-b", "90", "-n", "t-hother"])
            defer { other.stop() }
            #expect(try waitUntil(seconds: 5) { try jackPorts().contains("t-hother:90_bpm") })
            usleep(300_000)
            #expect(try !connected("t-hand:g.in", to: "t-hmetro:120_bpm"))
            metro.stop()
            let restarted = try ProgramProcess("jack_metro", ["-b", "120", "-n", "t-hmetro"])
            defer { restarted.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-hand:g.in", to: "t-hmetro:120_bpm") },
                    "the rule's connection was not made again when its program restarted")

            // `iaa disconnect` removes it the same way; `apply` makes it again.
            #expect(try runCommand(Repository.binary, ["disconnect", "t-hmetro:120_bpm", "g:in", "--socket", running.socket]).status == 0)
            #expect(try waitUntil(seconds: 3) { try ruleState(running) == "removed" })
            #expect(try !connected("t-hand:g.in", to: "t-hmetro:120_bpm"))
            let text = try String(contentsOfFile: path, encoding: .utf8)
            _ = try running.result("apply", ["text": .string(text), "file": .string(path)])
            #expect(try connected("t-hand:g.in", to: "t-hmetro:120_bpm"))
            #expect(try ruleState(running) == "made")
        }

        @Test("a misspelt port gets a did-you-mean warning at start and in the apply reply, and the rule waits for it")
        func misspeltPort() throws {
            let metro = try ProgramProcess("jack_metro", ["-b", "120", "-n", "t-dym"])
            defer { metro.stop() }
            #expect(try waitUntil(seconds: 5) { try jackPorts().contains("t-dym:120_bpm") })
            let (path, folder) = try graph(rules: [("t-dmy:120_bpm", "g:in"), ("g:out", "@playback")])
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-typo")
            defer { running.stop() }
            let warning = #"jack.connections rule "t-dmy:120_bpm -> g:in": no JACK port "t-dmy:120_bpm" exists now (did you mean "t-dym:120_bpm"?)"#
            #expect(running.engine.stderr.contains(warning), "stderr:\n\(running.engine.stderr)")

            let text = try String(contentsOfFile: path, encoding: .utf8)
            let reply = try running.result("apply", ["text": .string(text), "file": .string(path)])
            let warnings = reply["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(warnings.contains { $0.hasPrefix(warning) && $0.hasSuffix("the rule stays pending and is made when the port appears") },
                    "apply warnings: \(warnings)")
            let cli = try runCommand(Repository.binary, ["apply", path, "--socket", running.socket])
            #expect(cli.stderr.contains("iaa: warning: " + warning), "iaa apply stderr:\n\(cli.stderr)")

            let rules = try running.result("status")["rules"]?.arrayValue ?? []
            #expect(rules.map { $0["state"]?.stringValue } == ["pending", "made"])
            let tree = try runCommand(Repository.binary, ["status", "--socket", running.socket]).stdout
            let lines = tree.split(separator: "\n")
            #expect(lines.contains { $0.contains("t-dmy:120_bpm -> g:in ") && $0.hasSuffix(" pending: waiting for t-dmy:120_bpm") },
                    "status:\n\(tree)")
            #expect(lines.contains { $0.contains("t-typo:g.out -> system:playback_1 ") && $0.hasSuffix(" rule") }, "status:\n\(tree)")
            let dot = try running.result("graph")["dot"]?.stringValue ?? ""
            #expect(dot.contains(#""t-dmy:120_bpm" -> "g" [style=dashed, color=grey, label="pending""#), "graph:\n\(dot)")
            #expect(dot.contains(#""g" -> "system:playback_1" [style=solid"#), "graph:\n\(dot)")
        }
    }
}
