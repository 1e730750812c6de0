import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// contrib/systemd/iaa@.service runs what it says: its ExecStart, with the specifiers systemd
    /// would fill in for a user, starts the engine on the session's server, started again after a
    /// kill it resumes what it acknowledged, and SIGTERM (systemd's stop) ends it cleanly.
    @Suite("The systemd user unit", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct SystemdUnitTests {
        @Test("iaa@demo's ExecStart runs ~/.config/iaa/demo.json with the user's configuration, comes back as it was after kill -9, and stops cleanly on SIGTERM")
        func unitRunsTheGraph() throws {
            let unit = try String(contentsOfFile: Repository.path("contrib/systemd/iaa@.service"), encoding: .utf8)
            let lines = unit.split(separator: "\n").map(String.init)
            let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
            let home = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: home) }
            let config = home.appendingPathComponent(".config")
            try FileManager.default.createDirectory(at: home.appendingPathComponent(".local/bin"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: config.appendingPathComponent("iaa"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: home.appendingPathComponent(".local/bin/iaa").path,
                                                       withDestinationPath: Repository.binary)
            // demo.json without its jack.client, so that the configuration file names the client.
            let demo = try String(contentsOfFile: Repository.path("graphs/demo.json"), encoding: .utf8)
                .replacingOccurrences(of: #""client": "iaa","#, with: "")
            try demo.write(to: config.appendingPathComponent("iaa/demo.json"), atomically: true, encoding: .utf8)
            // The user's configuration file names the client (demo.json names none) and asks for
            // the debug log level, which logs every control request.
            try #"{ "client": "t-unit", "logLevel": "debug" }"#.write(to: config.appendingPathComponent("iaa/config.json"),
                                                                       atomically: true, encoding: .utf8)
            let command = execStart.replacingOccurrences(of: "%h", with: home.path)
                .replacingOccurrences(of: "%E", with: config.path).replacingOccurrences(of: "%i", with: "demo")
            let words = command.split(separator: " ").map(String.init)
            var environment = ProcessInfo.processInfo.environment
            for line in lines where line.hasPrefix("Environment=") {
                let pair = line.dropFirst("Environment=".count).split(separator: "=", maxSplits: 1).map(String.init)
                environment[pair[0]] = pair[1]
            }
            // The session's server is the test's private one.
            environment["JACK_DEFAULT_SERVER"] = JackHarness.server
            environment["HOME"] = home.path
            // A service's environment: what the test's own might add is not there.
            for name in ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "IAA_CONFIG", "IAA_CLIENT", "IAA_LOG_LEVEL", "IAA_PLUGIN_PATH"] {
                environment[name] = nil
            }
            environment["XDG_RUNTIME_DIR"] = home.path
            let log = home.appendingPathComponent("journal")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            /// The unit's ExecStart, as systemd starts it (again, after a failure: `Restart=on-failure`).
            func start() throws -> Process {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: words[0])
                process.arguments = Array(words.dropFirst())
                process.environment = environment
                try FileHandle(forWritingTo: log).truncate(atOffset: 0)
                process.standardError = try FileHandle(forWritingTo: log)
                process.standardOutput = process.standardError
                try process.run()
                let running = try waitUntil(seconds: 10) {
                    let said = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("iaa: running 'demo' as JACK client 't-unit'")
                    return try said && jackPorts().contains("t-unit:mix.out")
                }
                #expect(running, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
                return process
            }
            let client = { try ControlClient(path: home.appendingPathComponent("iaa/t-unit.sock").path) }
            let first = try start()
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL); first.waitUntilExit() } }
            let status = try client().call("status", params: [:])
            #expect((try? status.get())?["jack"]?["client"]?.stringValue == "t-unit")
            #expect(((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("iaa: request status {}: ok"))
            // Killed (the OOM killer, say) and restarted by systemd: what it acknowledged is back,
            // kept in the user's ~/.local/state/iaa (docs/state.md).
            _ = try client().call("set", params: ["app": "tone", "param": "frequency", "value": 300]).get()
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(try waitUntil(seconds: 5) { try !jackPorts().contains { $0.hasPrefix("t-unit:") } })
            // One folder per client, a snapshot per graph file in it.
            let kept = (try? FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent(".local/state/iaa/t-unit").path)) ?? []
            #expect(kept.contains { $0.hasPrefix("demo-") && $0.hasSuffix(".snapshot.json") }, "\(kept)")
            let second = try start()
            defer { if second.isRunning { kill(second.processIdentifier, SIGKILL); second.waitUntilExit() } }
            let frequency = try client().call("get", params: ["app": "tone", "param": "frequency"]).get()
            #expect(frequency["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 300)
            #expect(second.end(with: SIGTERM), "the engine did not exit within 15 s of SIGTERM")
            #expect(second.terminationStatus == 0)
            #expect(!(try jackPorts()).contains { $0.hasPrefix("t-unit:") })
        }
    }
}
