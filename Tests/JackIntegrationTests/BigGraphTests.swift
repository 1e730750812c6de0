import Foundation
import Testing
import TestKit

extension OwnServers {
    /// A graph as large as a newcomer writes one: 1,000 built-in apps with every port exposed,
    /// 2,000 JACK ports with four metadata properties each. Stopped with SIGTERM and killed with
    /// SIGKILL, it leaves the JACK server, and jack2's metadata database it shares with every
    /// client of the user, usable (docs/reliability.md, "When every JACK client hangs").
    /// On a server of its own: a lane's has a port table of 512.
    @Suite("A graph of 2,000 JACK ports", .serialized,
           .enabled(if: JackHarness.server != nil, "runs where tools/test runs the JACK tests"))
    struct BigGraphTests {
        static let apps = 1_000

        /// `apps` gains in a chain, each with its input and output exposed as JACK ports.
        static func graph() throws -> String {
            let folder = try makeTemporaryDirectory("big-graph")
            let entries = (0..<apps).map { #"{ "id": "g\#($0)", "plugin": "builtin:gain" }"# }
            let connections = (1..<apps).map { #"{ "from": "g\#($0 - 1):out", "to": "g\#($0):in" }"# }
            let text = #"{ "format": "iaa-graph/1", "name": "big", "apps": [\#(entries.joined(separator: ", "))], "connections": [\#(connections.joined(separator: ", "))] }"#
            let path = folder + "/big.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// `jack_lsp` and `jack_property -l` answer, and no port of `client` is left. jackd
        /// removes a gone client's 2,000 ports and their properties first, which takes it ~10 s
        /// alone on a 2-core machine and more beside a build, so the bound tells a hang (a
        /// locked metadata database hangs both for good) from that work: 120 s.
        static func expectServerUsable(after what: String, client: String, server: String) throws {
            let started = Date()
            var ports: [String] = []
            let gone = try waitUntil(seconds: 120) {
                ports = try runCommand("jack_lsp", ["-s", server], timeout: 120).stdout.split(separator: "\n").map(String.init)
                return !ports.contains { $0.hasPrefix(client + ":") }
            }
            #expect(gone, "after \(what), JACK still lists \(ports.filter { $0.hasPrefix(client + ":") }.count) ports of \(client)")
            let properties = try runCommand("jack_property", ["-l"], environment: ["JACK_DEFAULT_SERVER": server], timeout: 120)
            #expect(properties.status == 0, "jack_property -l after \(what): \(properties.stderr)")
            #expect(!properties.stdout.contains("g999 ›"), "the ports' metadata outlived them after \(what)")
            print("big graph: after \(what), jack_lsp answered without the engine's ports after \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }

        @Test("2,000 ports: SIGTERM, then a second engine starts and is killed with SIGKILL; jack_lsp and jack_property answer after each, and no port or property is left")
        func stopAndKill() throws {
            // Not real-time: what is tested is the metadata database, not timing.
            let server = PrivateJackServer(prefix: "iaa-big", options: ["--no-realtime"], portMax: 4_096)
            try server.start()
            defer { server.stop() }
            let environment = ["JACK_DEFAULT_SERVER": server.name]
            let graph = try Self.graph()
            defer { try? FileManager.default.removeItem(atPath: (graph as NSString).deletingLastPathComponent) }
            let first = try EngineProcess(graph: graph, client: "t-big", environment: environment, arguments: ["--no-state"])
            #expect(try jackPorts(server: server.name).filter { $0.hasPrefix("t-big:") }.count == 2 * Self.apps)
            // The properties whose absence is checked below are there while it runs.
            #expect(try runCommand("jack_property", ["-l"], environment: environment, timeout: 30).stdout.contains("g999 ›"))
            #expect(first.stop() == 0, "\(first.stderr)")
            try Self.expectServerUsable(after: "SIGTERM", client: "t-big", server: server.name)

            let second = try EngineProcess(graph: graph, client: "t-big", environment: environment, arguments: ["--no-state"])
            #expect(try jackPorts(server: server.name).filter { $0.hasPrefix("t-big:") }.count == 2 * Self.apps)
            kill(second.process.processIdentifier, SIGKILL)
            second.process.waitUntilExit()
            try Self.expectServerUsable(after: "SIGKILL", client: "t-big", server: server.name)
        }
    }
}
