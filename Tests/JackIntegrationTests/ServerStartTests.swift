import Foundation
import Testing

extension JackIntegration {
    /// With no JACK server running and none named, `iaa run` starts one on the dummy driver.
    @Suite("iaa run without a JACK server", .serialized)
    struct ServerStartTests {
        /// True when JACK's default server (no name given) is not running: only then is the test safe,
        /// since it must not attach to a developer's own server.
        static var defaultServerIsDown: Bool {
            (try? runCommand("jack_wait", ["-c"], removing: ["JACK_DEFAULT_SERVER"]).stdout.contains("not running")) ?? false
        }

        @Test("starts a dummy-driver server, says so, registers its ports there, and stops it on exit",
              .enabled(if: defaultServerIsDown, "a default JACK server is already running here"))
        func startsDummyServer() throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: JackHarness.debugBinary)
            process.arguments = ["run", JackHarness.path("graphs/demo.json"), "-n", "t-auto"]
            var environment = ProcessInfo.processInfo.environment
            environment["JACK_DEFAULT_SERVER"] = nil
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
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(ports.contains("t-auto:mix.out"), "ports seen: \(ports); stderr:\n\(log)")
            #expect(ports.contains("system:playback_1"))
            #expect(log.contains("started one on the dummy driver"))
            #expect(process.terminationStatus == 0)
            // The server it started is gone with it.
            usleep(300_000)
            #expect(Self.defaultServerIsDown)
        }
    }
}
