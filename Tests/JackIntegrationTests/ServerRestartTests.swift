import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// jackd killed with SIGKILL and restarted: the engine comes back with the same ports and
    /// every connection, including one made by hand.
    @Suite("Surviving JACK server restarts", .serialized)
    struct ServerRestartTests {
        @Test("after each of 5 SIGKILLs and restarts, jack_lsp -c of the engine's ports is as before, hand-made connection included")
        func fiveRestarts() throws {
            let server = PrivateJackServer(prefix: "iaa-restart")
            try server.start()
            defer { server.stop() }
            let engine = try EngineProcess(graph: Repository.path("graphs/demo.json"), client: "t-restart",
                                           environment: ["JACK_DEFAULT_SERVER": server.name])
            defer { engine.stop() }
            #expect(try runCommand("jack_connect", ["-s", server.name, "system:capture_1", "t-restart:tone-gain.in"]).status == 0)
            usleep(300_000)
            let ours = { (text: String) in text.split(separator: "\n").filter { $0.contains("t-restart:") || $0.hasPrefix("   ") }.joined(separator: "\n") }
            let before = ours(server.lsp())
            #expect(before.contains("t-restart:tone-gain.in\n   system:capture_1"))
            for round in 1...5 {
                server.kill()
                usleep(300_000)
                // Timed from launching jackd, so the server's own start-up counts against us too.
                let started = ContinuousClock.now
                try server.start()
                let serverUp = ContinuousClock.now - started
                var after = ""
                while ContinuousClock.now - started < .seconds(12) {
                    after = ours(server.lsp())
                    if after == before { break }
                    usleep(100_000)
                }
                let took = ContinuousClock.now - started
                print("restart round \(round): server answering after \(serverUp), engine back after \(took)")
                #expect(after == before, "round \(round): ports and connections differ after \(took)")
                #expect(took < .seconds(3), "round \(round): back after \(took)")
            }
            #expect(engine.stderr.contains("the JACK server is back"))
            #expect(engine.process.isRunning)
        }

        @Test("apps hear mediaServicesWereLost when the server dies and mediaServicesWereReset when it is back; a buffer-size change is a routeConfigurationChange")
        func mediaServicesAndBufferSize() throws {
            let server = PrivateJackServer(prefix: "iaa-restart")
            try server.start()
            defer { server.stop() }
            let engine = try EngineProcess(graph: Repository.path("graphs/headunit.json"), client: "t-media",
                                           environment: ["JACK_DEFAULT_SERVER": server.name])
            defer { engine.stop() }
            // music and game are active output sessions in the head unit.
            #expect(try runCommand("jack_bufsize", ["512"], environment: ["JACK_DEFAULT_SERVER": server.name]).status == 0)
            func waitFor(_ text: String) -> Bool {
                let started = ContinuousClock.now
                while ContinuousClock.now - started < .seconds(8) {
                    if engine.stderr.contains(text) { return true }
                    usleep(100_000)
                }
                return false
            }
            #expect(waitFor(#""app":"music","name":"routeChange","reason":"routeConfigurationChange""#), "\(engine.stderr)")
            server.kill()
            #expect(waitFor(#""app":"music","name":"mediaServicesWereLost""#), "\(engine.stderr)")
            try server.start()
            #expect(waitFor(#""app":"music","name":"mediaServicesWereReset""#), "\(engine.stderr)")
            #expect(waitFor(#""app":"phone","name":"mediaServicesWereReset""#), "\(engine.stderr)")
        }
    }
}
