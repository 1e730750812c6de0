import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// Cycles split across JACK's thread and a worker thread created with
    /// `jack_client_create_thread` (docs/parallel.md), against a real server.
    @Suite("Parallel rendering, live", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ParallelLiveTests {
        typealias Running = ControlPlaneTests.Running

        /// Four oscillators of amplitude 0.5 at different frequencies, each halved, into a mixer:
        /// four independent branches of 0.25. The halving apps are the misbehaving test plugin
        /// in mode 8, which spins 0.5 ms on JACK's thread: built-in apps take a microsecond or two
        /// in a release build, and JACK's thread would run them all before a worker woke. In the
        /// engine's process: an isolated app runs in its child, not on a render thread.
        static let graph = """
            { "format": "iaa-graph/1", "name": "branches", "isolation": { "default": "none" },
              "apps": [ { "id": "o1", "plugin": "builtin:oscillator", "params": { "frequency": 220, "amplitude": 0.5 } },
                        { "id": "o2", "plugin": "builtin:oscillator", "params": { "frequency": 331, "amplitude": 0.5 } },
                        { "id": "o3", "plugin": "builtin:oscillator", "params": { "frequency": 447, "amplitude": 0.5 } },
                        { "id": "o4", "plugin": "builtin:oscillator", "params": { "frequency": 563, "amplitude": 0.5 } },
                        { "id": "g1", "plugin": "./libbad.so#bad", "params": { "mode": 8 } },
                        { "id": "g2", "plugin": "./libbad.so#bad", "params": { "mode": 8 } },
                        { "id": "g3", "plugin": "./libbad.so#bad", "params": { "mode": 8 } },
                        { "id": "g4", "plugin": "./libbad.so#bad", "params": { "mode": 8 } },
                        { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 4 } } ],
              "connections": [ { "from": "o1:out", "to": "g1:in" }, { "from": "o2:out", "to": "g2:in" },
                               { "from": "o3:out", "to": "g3:in" }, { "from": "o4:out", "to": "g4:in" },
                               { "from": "g1:out", "to": "mix:in_1" }, { "from": "g2:out", "to": "mix:in_2" },
                               { "from": "g3:out", "to": "mix:in_3" }, { "from": "g4:out", "to": "mix:in_4" } ] }
            """

        /// The engine running `graph` as `client` with `arguments`; its folder goes with it.
        static func start(client: String, _ arguments: [String]) throws -> (Running, URL) {
            let directory = try JackHarness.temporaryDirectory()
            try MisbehavingPlugin.build(in: directory)
            let path = directory.appendingPathComponent("branches.json").path
            try graph.write(toFile: path, atomically: true, encoding: .utf8)
            return (try Running(graph: path, client: client, arguments: arguments), directory)
        }

        @Test("--threads 2 --split always: every cycle is split, the worker runs steps, and the mix is as loud as four tones")
        func splitCycles() throws {
            let (running, directory) = try Self.start(client: "t-par", ["--threads", "2", "--split", "always"])
            defer {
                running.stop()
                try? FileManager.default.removeItem(at: directory)
            }
            func render() throws -> ControlJSON? { try running.result("status")["render"] }
            #expect(try waitUntil(seconds: 5) { (try render()?["workers"]?.arrayValue?.first?["steps"]?.intValue ?? 0) > 0 })
            let first = try #require(try render())
            #expect(first["threads"]?.intValue == 2)
            #expect(first["split"]?.boolValue == true)
            let steps = first["workers"]?.arrayValue?.first?["steps"]?.intValue ?? 0
            #expect(try waitUntil(seconds: 5) { (try render()?["workers"]?.arrayValue?.first?["steps"]?.intValue ?? 0) > steps },
                    "the worker goes on taking steps")
            // Recorded by a JACK client: four tones of amplitude 0.25, each of RMS 0.25 / √2,
            // add up in power to an RMS of 0.25 · √2.
            let rms = try Self.recordedRMS("t-par:mix.out")
            #expect(abs(rms - 0.25 * 2.0.squareRoot()) < 0.01, "mixer RMS \(rms)")
        }

        @Test("apply while every cycle is split: the new plan, a fifth branch, is split and plays")
        func applyWhileSplit() throws {
            let (running, directory) = try Self.start(client: "t-par-apply", ["--threads", "2", "--split", "always"])
            defer {
                running.stop()
                try? FileManager.default.removeItem(at: directory)
            }
            func workerSteps() throws -> Int { try running.result("status")["render"]?["workers"]?.arrayValue?.first?["steps"]?.intValue ?? 0 }
            #expect(try waitUntil(seconds: 5) { try workerSteps() > 0 })
            let fifth = Self.graph
                .replacingOccurrences(of: #""params": { "inputs": 4 } }"#,
                                      with: #""params": { "inputs": 5 } }, { "id": "o5", "plugin": "builtin:oscillator", "params": { "frequency": 677, "amplitude": 0.25 } }, { "id": "g5", "plugin": "builtin:gain" }"#)
                .replacingOccurrences(of: #"{ "from": "g4:out", "to": "mix:in_4" }"#,
                                      with: #"{ "from": "g4:out", "to": "mix:in_4" }, { "from": "o5:out", "to": "g5:in" }, { "from": "g5:out", "to": "mix:in_5" }"#)
            _ = try running.result("apply", ["text": .string(fifth), "file": .string(directory.appendingPathComponent("branches.json").path)])
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            #expect(apps.contains { $0["id"]?.stringValue == "g5" })
            let before = try workerSteps()
            #expect(try waitUntil(seconds: 5) { try workerSteps() > before }, "the worker takes steps of the new plan")
            #expect(try running.result("status")["render"]?["split"]?.boolValue == true)
            // Five tones of amplitude 0.25: an RMS of 0.25 · √(5/2).
            let rms = try Self.recordedRMS("t-par-apply:mix.out")
            #expect(abs(rms - 0.25 * (2.5).squareRoot()) < 0.01, "mixer RMS \(rms)")
        }

        /// The RMS of half a second of `port`, recorded by a python3-jack-client client.
        static func recordedRMS(_ port: String) throws -> Double {
            let heard = try runJackPython("""
                import jack, numpy, time
                c = jack.Client("t-par-peer", no_start_server=True)
                into = c.inports.register("in")
                taken = []
                @c.set_process_callback
                def process(frames):
                    taken.append(into.get_array().copy())
                c.activate()
                c.connect("\(port)", into)
                time.sleep(2.2)
                c.deactivate()
                # The median RMS of four half seconds: a cycle this Python client missed on a busy
                # machine is a gap in one of them, not the mix's level.
                signal = numpy.concatenate(taken)[-int(2 * c.samplerate):]
                half = len(signal) // 4
                print(float(numpy.median([numpy.sqrt(numpy.mean(signal[k:k + half] ** 2)) for k in range(0, 4 * half, half)])))
                """)
            try #require(heard.status == 0, "\(heard.output)")
            return try #require(Double(heard.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(heard.output)")
        }

        @Test("--threads 1: no worker, nothing split")
        func oneThread() throws {
            let (running, directory) = try Self.start(client: "t-par1", ["--threads", "1", "--split", "always"])
            defer {
                running.stop()
                try? FileManager.default.removeItem(at: directory)
            }
            let render = try #require(try running.result("status")["render"])
            #expect(render["threads"]?.intValue == 1)
            #expect(render["split"]?.boolValue == false)
            #expect(render["workers"]?.arrayValue?.isEmpty == true)
        }
    }
}
