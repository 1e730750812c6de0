import Foundation
import Testing
import TestKit

extension OwnServers {
    /// A plugin misbehaving on a render worker thread (docs/parallel.md, "What still holds"): a
    /// crash there is named as one on JACK's thread is, and a cycle it makes late by holding the
    /// worker is the engine's xrun. In the engine's process (no isolation), on a server of their
    /// own: a crash can leave JACK's shared metadata database locked for later clients.
    @Suite("Parallel rendering: a plugin that crashes or is slow on a worker thread", .serialized,
           .enabled(if: JackHarness.server != nil, "runs where tools/test runs the JACK tests"))
    struct ParallelFaultTests {
        typealias Running = JackIntegration.IsolationTests.Running

        /// The engine with every cycle split over JACK's thread and one worker, `bad` beside
        /// `good` so that either thread may take it; returns once the worker has run steps.
        /// `good` spins on JACK's thread: the apps alone take a microsecond or two in a release
        /// build, so JACK's thread would run them all before a worker woke to take one.
        static func start(_ client: String, server: PrivateJackServer, _ arguments: [String] = [],
                          environment: [String: String] = [:]) throws -> Running {
            let running = try Running(client: client, maxCrashes: 3, default: "none",
                                      arguments: ["--threads", "2", "--split", "always"] + arguments,
                                      busyGood: true, environment: environment.merging(["JACK_DEFAULT_SERVER": server.name]) { $1 })
            let split = waitUntil(seconds: 5) {
                let render = try? running.client.call("status", params: [:]).get()["render"]
                return (render?["workers"]?.arrayValue?.first?["steps"]?.intValue ?? 0) > 0
            }
            guard split else {
                running.stop()
                throw EngineProcessError(message: "the worker ran no step:\n\(running.engine.stderr)")
            }
            return running
        }

        @Test("a plugin that segfaults only on a render worker ends the engine, whose last line names the app and the worker thread")
        func crashOnWorkerIsNamed() throws {
            let server = PrivateJackServer(prefix: "t-par-crash")
            try server.start()
            defer { server.stop() }
            let running = try Self.start("t-par-crash", server: server, environment: JackIntegration.IsolationTests.noBacktrace)
            defer { running.stop() }
            // The cycle in which a worker takes `bad` ends the process, which may come before the
            // reply leaves: a closed connection here is the crash arriving early.
            _ = try? running.setMode(6)
            #expect(waitUntil(seconds: 10) { !running.engine.process.isRunning }, "the engine outlived a segfault on its worker")
            #expect(running.engine.process.terminationReason == .uncaughtSignal, "\(running.engine.process.terminationStatus)")
            #expect(running.engine.stderr.contains("app \"bad\" crashed the engine with SIGSEGV in its process call (thread \"iaa worker 1\")"),
                    "\(running.engine.stderr)")
        }

        @Test("a cycle made late by a plugin sleeping on a render worker is the engine's xrun, not the system's")
        func slowWorkerIsOurs() throws {
            // Synchronous, so that JACK waits for the late cycle instead of reporting an xrun while it
            // runs (which counts as ours whatever made it late): what tells the cycle's lateness
            // apart is then the engine's own measure, its CPU time plus the time it waited.
            let server = PrivateJackServer(prefix: "t-par-late", options: ["-S"])
            try server.start()
            defer { server.stop() }
            // The deadline guard off, so the sleeping app keeps its place on the worker.
            let running = try Self.start("t-par-late", server: server, ["--deadline", "0"])
            defer { running.stop() }
            let before = try running.client.call("status", params: [:]).get()["jack"]
            try running.setMode(7)
            // Either thread may take `bad`, and a worker slow to wake on a busy machine leaves it to
            // the leader more often: time for a handful of late cycles, told in full if they do not come.
            let late = waitUntil(seconds: 15) { (try? running.ourXruns()) ?? 0 >= (before?["ourXruns"]?.doubleValue ?? 0) + 5 }
            let status = try running.client.call("status", params: [:]).get()
            #expect(late, "too few xruns of ours while the leader waited for its worker: jack \(status["jack"] ?? .null), render \(status["render"] ?? .null)\n\(running.engine.stderr)")
            try running.setMode(0)
            let after = try running.client.call("status", params: [:]).get()["jack"]
            let ours = (after?["ourXruns"]?.doubleValue ?? 0) - (before?["ourXruns"]?.doubleValue ?? 0)
            let preempted = (after?["preemptedCycles"]?.doubleValue ?? 0) - (before?["preemptedCycles"]?.doubleValue ?? 0)
            // Counted the other way, the late cycles were all "preempted" (37 and 54 of them, none ours).
            #expect(ours > preempted, "late cycles were blamed on the system: ours \(ours), preempted \(preempted)")
            #expect(running.engine.process.isRunning)
        }
    }
}
