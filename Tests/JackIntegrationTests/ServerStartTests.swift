import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// With no JACK server running and none named, `iaa run` starts one on the dummy driver.
    @Suite("iaa run without a JACK server", .serialized)
    struct ServerStartTests {
        /// True when JACK's default server (no name given) is not running: only then is the test safe,
        /// since it must not attach to a developer's own server.
        static var defaultServerIsDown: Bool {
            (try? runCommand("jack_wait", ["-c"], removing: ["JACK_DEFAULT_SERVER"]).stdout.contains("not running")) ?? false
        }

        @Test("starts a dummy-driver server, says so, logs it under XDG_STATE_HOME, registers its ports there, and stops it on exit",
              .enabled(if: defaultServerIsDown, "a default JACK server is already running here"))
        func startsDummyServer() throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repository.binary)
            process.arguments = ["run", Repository.path("graphs/demo.json"), "-n", "t-auto"]
            let state = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: state) }
            var environment = ProcessInfo.processInfo.environment
            environment["JACK_DEFAULT_SERVER"] = nil
            environment["XDG_STATE_HOME"] = state.path
            process.environment = environment
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var ports: [String] = []
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, process.isRunning {
                ports = (try? runCommand("jack_lsp", [], removing: ["JACK_DEFAULT_SERVER"]).stdout
                    .split(separator: "\n").map(String.init)) ?? []
                if ports.contains("t-auto:mix.out") { break }
                usleep(100_000)
            }
            #expect(process.end(with: SIGINT), "iaa run did not exit within 15 s of SIGINT")
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(ports.contains("t-auto:mix.out"), "ports seen: \(ports); stderr:\n\(log)")
            #expect(ports.contains("system:playback_1"))
            #expect(log.contains("started one on the dummy driver"))
            // The server's log is state, not a file left in /tmp.
            let serverLog = state.appendingPathComponent("iaa/jackd-default.log").path
            #expect(log.contains("log \(serverLog)"), "\(log)")
            #expect(((try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "").contains("jackdmp"), "the server's log is empty")
            #expect(process.terminationStatus == 0)
            // The server it started is gone with it.
            #expect(waitUntil(seconds: 5) { Self.defaultServerIsDown })
        }
    }
}
