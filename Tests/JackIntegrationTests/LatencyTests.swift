import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// What JACK is told of latency (docs/latency.md), read back as JACK's own tool reads it:
    /// `jack_lsp -l` calls `jack_port_get_latency_range` in both directions on every port.
    @Suite("Latency: JACK told every port's range along the graph's paths", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct LatencyTests {
        typealias Running = ControlPlaneTests.Running

        /// A port's (playback, capture) ranges as `jack_lsp -l` prints them.
        struct Ranges: Equatable, CustomStringConvertible {
            var playback: ClosedRange<Int>
            var capture: ClosedRange<Int>
            var description: String { "playback \(playback), capture \(capture)" }
        }

        static func ranges(_ port: String) throws -> Ranges? {
            let output = try runCommand("jack_lsp", ["-l", port]).stdout
            func range(_ kind: String) -> ClosedRange<Int>? {
                guard let line = output.split(separator: "\n").first(where: { $0.contains("port \(kind) latency") }) else { return nil }
                let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                guard numbers.count == 2 else { return nil }
                return numbers[0]...numbers[1]
            }
            guard let playback = range("playback"), let capture = range("capture") else { return nil }
            return Ranges(playback: playback, capture: capture)
        }

        /// Polls until `port`'s ranges satisfy `condition` (JACK recomputes on its own thread).
        static func await(_ port: String, seconds: Double = 5, _ condition: (Ranges) -> Bool) throws -> Ranges? {
            let deadline = Date().addingTimeInterval(seconds)
            var last: Ranges?
            while Date() < deadline {
                last = try ranges(port)
                if let last, condition(last) { return last }
                usleep(20_000)
            }
            return last
        }

        static func write(_ graph: String, in directory: URL) throws -> String {
            let path = directory.appendingPathComponent("latency.json").path
            try graph.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        static let limiter = "lv2:http://plugin.org.uk/swh-plugins/lookaheadLimiterConst"

        @Test("capture → passthrough → lookahead limiter → playback: 8191 frames on each port's range, both ways")
        func limiterChain() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write("""
                { "format": "iaa-graph/1", "name": "latency",
                  "apps": [ { "id": "thru", "plugin": "builtin:passthrough" }, { "id": "look", "plugin": "\(Self.limiter)" } ],
                  "connections": [ { "from": "thru:out", "to": "look:in_1" } ],
                  "jack": { "connections": [ { "from": "system:capture_1", "to": "thru:in" },
                                             { "from": "look:out_1", "to": "system:playback_1" } ] } }
                """, in: directory)
            let running = try Running(graph: graph, client: "t-lat")
            defer { running.stop() }
            let capture = try #require(try Self.ranges("system:capture_1")).capture
            let playback = try #require(try Self.ranges("system:playback_1")).playback
            // The plugin's 8191 frames on top of what JACK holds for the outside ports, not its
            // default of every input to every output with nothing added.
            let out = try Self.await("t-lat:look.out_1") { $0.capture == (capture.lowerBound + 8191)...(capture.upperBound + 8191) }
            #expect(out?.capture == (capture.lowerBound + 8191)...(capture.upperBound + 8191), "\(String(describing: out))")
            let into = try Self.await("t-lat:thru.in") { $0.playback == (playback.lowerBound + 8191)...(playback.upperBound + 8191) }
            #expect(into?.playback == (playback.lowerBound + 8191)...(playback.upperBound + 8191), "\(String(describing: into))")
            // iaa's own listing and status say the same.
            let ports = try running.result("ports").arrayValue ?? []
            let listed = ports.first { $0["name"]?.stringValue == "t-lat:look.out_1" }
            #expect(listed?["latency"]?["capture"]?["max"]?.intValue == capture.upperBound + 8191)
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            let look = apps.first { $0["id"]?.stringValue == "look" }
            #expect(look?["latency"]?["own"]?.intValue == 8191)
        }

        @Test("two latent plugins in a chain beside a direct path: the sum is aligned and JACK hears both delays once")
        func chainBesideDirect() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write("""
                { "format": "iaa-graph/1", "name": "latency",
                  "apps": [ { "id": "tone", "plugin": "builtin:oscillator" },
                            { "id": "a", "plugin": "\(Self.limiter)" }, { "id": "b", "plugin": "\(Self.limiter)" },
                            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
                  "connections": [ { "from": "tone:out", "to": "a:in_1" }, { "from": "a:out_1", "to": "b:in_1" },
                                   { "from": "b:out_1", "to": "mix:in_1" }, { "from": "tone:out", "to": "mix:in_2" } ],
                  "jack": { "connections": [ { "from": "mix:out", "to": "system:playback_1" } ] } }
                """, in: directory)
            let running = try Running(graph: graph, client: "t-lat2")
            defer { running.stop() }
            let out = try Self.await("t-lat2:mix.out") { $0.capture == 16382...16382 }
            #expect(out?.capture == 16382...16382, "\(String(describing: out))")
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            let mix = apps.first { $0["id"]?.stringValue == "mix" }
            let compensation = mix?["latency"]?["compensation"]?.arrayValue ?? []
            #expect(compensation.count == 1)
            #expect(compensation.first?["from"]?.stringValue == "tone:out")
            #expect(compensation.first?["delay"]?.intValue == 16382)
        }

        @Test("a latency that changes while running (swh lookaheadLimiter's delay) reaches JACK without a restart")
        func changeWhileRunning() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write("""
                { "format": "iaa-graph/1", "name": "latency",
                  "apps": [ { "id": "tone", "plugin": "builtin:oscillator" },
                            { "id": "look", "plugin": "lv2:http://plugin.org.uk/swh-plugins/lookaheadLimiter",
                              "params": { "delay_s": 0.01 } } ],
                  "connections": [ { "from": "tone:out", "to": "look:in_1" } ],
                  "jack": { "connections": [ { "from": "look:out_1", "to": "system:playback_1" } ] } }
                """, in: directory)
            let running = try Running(graph: graph, client: "t-lat3")
            defer { running.stop() }
            let before = try Self.await("t-lat3:look.out_1") { $0.capture == 480...480 }
            #expect(before?.capture == 480...480, "\(String(describing: before))")
            _ = try running.result("set", ["app": "look", "param": "delay_s", "value": 0.05])
            let after = try Self.await("t-lat3:look.out_1") { $0.capture == 2400...2400 }
            #expect(after?.capture == 2400...2400, "\(String(describing: after))")
        }

        @Test("a latent program app (JACK's jack_latent_client) counts its program's latency, and the other path is aligned to it")
        func latentProgram() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write("""
                { "format": "iaa-graph/1", "name": "latency",
                  "apps": [ { "id": "latent", "program": { "jackClient": "latent", "outputs": 1 },
                              "session": { "category": "playback", "options": ["mixWithOthers"], "active": true },
                              "backgroundModes": ["audio"] },
                            { "id": "tone", "plugin": "builtin:oscillator" },
                            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
                  "connections": [ { "from": "latent:out_1", "to": "mix:in_1" }, { "from": "tone:out", "to": "mix:in_2" } ],
                  "jack": { "connections": [ { "from": "mix:out", "to": "system:playback_1" } ] } }
                """, in: directory)
            let running = try Running(graph: graph, client: "t-lat4")
            defer { running.stop() }
            let program = try ProgramProcess("/usr/bin/jack_latent_client", ["1000"])
            defer { program.stop() }
            // What JACK holds for the program's output (its 1000 frames after whatever feeds it)
            // is the app's own latency: mix.out carries it, and the oscillator's path is delayed
            // to meet it. Read together, as the engine may still be undoing the program's own
            // connections.
            let deadline = Date().addingTimeInterval(5)
            var own: ClosedRange<Int>?, out: ClosedRange<Int>?, delay: Int?
            while Date() < deadline {
                own = try Self.ranges("latent:output")?.capture
                out = try Self.ranges("t-lat4:mix.out")?.capture
                let apps = try running.result("status")["apps"]?.arrayValue ?? []
                let mix = apps.first { $0["id"]?.stringValue == "mix" }
                delay = mix?["latency"]?["compensation"]?.arrayValue?.first?["delay"]?.intValue
                if let own, own.lowerBound >= 1000, out == own, delay == own.upperBound { break }
                usleep(20_000)
            }
            #expect((own?.lowerBound ?? 0) >= 1000, "program output \(String(describing: own))")
            #expect(out == own, "program output \(String(describing: own)), mix.out \(String(describing: out))")
            #expect(delay == own?.upperBound)
        }
    
        @Test("an outside signal into the mixer directly and through the limiter: delayed to meet it, so the copies add up, heard by a JACK client")
        func outsideSignalAligned() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write("""
                { "format": "iaa-graph/1", "name": "latency",
                  "apps": [ { "id": "look", "plugin": "\(Self.limiter)" },
                            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
                  "connections": [ { "from": "look:out_1", "to": "mix:in_2" } ],
                  "jack": { "connections": [ { "from": "system:capture_1", "to": "mix:in_1" },
                                             { "from": "system:capture_1", "to": "look:in_1" } ] } }
                """, in: directory)
            let running = try Running(graph: graph, client: "t-lat5")
            defer { running.stop() }
            // JACK: both paths leave the mixer 8191 frames after the capture port's own latency.
            let capture = try #require(try Self.ranges("system:capture_1")).capture
            let expected = (capture.lowerBound + 8191)...(capture.upperBound + 8191)
            let out = try Self.await("t-lat5:mix.out") { $0.capture == expected }
            #expect(out?.capture == expected, "\(String(describing: out))")
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            let mix = apps.first { $0["id"]?.stringValue == "mix" }
            #expect(mix?["latency"]?["outside"]?.intValue == 8191)
            // Heard: a JACK client plays a 442.436 Hz sine into both inputs (8191 frames are
            // 75.5 of its periods, so copies not aligned would cancel) and records the mixer.
            let heard = try runJackPython("""
                import jack, numpy, time
                c = jack.Client("t-lat5-peer", no_start_server=True)
                out = c.outports.register("out"); into = c.inports.register("in")
                state = {"n": 0, "taken": []}
                @c.set_process_callback
                def process(frames):
                    n = numpy.arange(state["n"], state["n"] + frames)
                    out.get_array()[:] = 0.25 * numpy.sin(2 * numpy.pi * 442.436 * n / c.samplerate)
                    state["taken"].append(into.get_array().copy())
                    state["n"] += frames
                c.activate()
                for port in ["t-lat5:mix.in_1", "t-lat5:look.in_1"]: c.connect(out, port)
                c.connect("t-lat5:mix.out", into)
                time.sleep(1.2)
                c.deactivate()
                # The loudest 0.1 s of the last 0.5: a cycle this Python client missed on a busy
                # machine is a gap of its own, not the mixer's level.
                taken = numpy.concatenate(state["taken"])[-int(0.5 * c.samplerate):]
                step = c.samplerate // 10
                print(max(float(numpy.sqrt(numpy.mean(taken[k:k + step] ** 2))) for k in range(0, len(taken) - step + 1, step)))
                """)
            try #require(heard.status == 0, "\(heard.output)")
            let rms = try #require(Double(heard.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(heard.output)")
            // Two copies of a 0.25 sine in phase: 0.5 / √2.
            #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.002, "mixer RMS \(rms)")
        }
    }
}
