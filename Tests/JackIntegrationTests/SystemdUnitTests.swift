import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// contrib/systemd/iaa@.service runs what it says: its ExecStart, with the specifiers systemd
    /// would fill in for a user, starts the engine on the session's server, and SIGTERM (systemd's
    /// stop) ends it cleanly.
    @Suite("The systemd user unit", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct SystemdUnitTests {
        @Test("iaa@demo's ExecStart runs ~/.config/iaa/demo.json with the user's configuration and stops cleanly on SIGTERM")
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
                                                       withDestinationPath: Repository.debugBinary)
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
            for name in ["XDG_CONFIG_HOME", "IAA_CONFIG", "IAA_CLIENT", "IAA_LOG_LEVEL", "IAA_PLUGIN_PATH"] { environment[name] = nil }
            environment["XDG_RUNTIME_DIR"] = home.path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: words[0])
            process.arguments = Array(words.dropFirst())
            process.environment = environment
            let log = home.appendingPathComponent("journal")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = process.standardError
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
            var running = false
            for _ in 0..<100 where !running {
                usleep(100_000)
                running = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("iaa: running 'demo' as JACK client 't-unit'")
            }
            #expect(running, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            #expect(try jackPorts().contains("t-unit:mix.out"))
            let status = try ControlClient(path: home.appendingPathComponent("iaa/t-unit.sock").path).call("status", params: [:])
            #expect((try? status.get())?["jack"]?["client"]?.stringValue == "t-unit")
            #expect(((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("iaa: request status {}: ok"))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(!(try jackPorts()).contains { $0.hasPrefix("t-unit:") })
        }
    }
}
