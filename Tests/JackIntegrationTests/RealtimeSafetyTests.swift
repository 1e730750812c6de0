import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// Proves the audio thread's rule: no heap allocation and no retain while a graph plays.
    ///
    /// The engine arms an LD_PRELOAD counter (tools/rt-counter.c) around every cycle when
    /// IAA_RT_PROBE=1, and prints the totals when it stops.
    @Suite("The audio thread is real-time safe", .serialized, .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct RealtimeSafetyTests {
        /// `rt-probe: M mallocs, R retains on the audio thread in C cycles` → (M, R, C).
        static func parseProbe(_ log: String) -> (mallocs: Int, retains: Int, cycles: Int)? {
            guard let line = log.split(separator: "\n").first(where: { $0.contains("rt-probe:") }) else { return nil }
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count >= 3 else { return nil }
            return (numbers[0], numbers[1], numbers[numbers.count - 1])
        }

        /// `notes` names a MIDI input that jack_midiseq plays a chord into, every half second;
        /// `following` names streams a client follows meanwhile (`meters` and `top` turn metering on).
        func playAndCount(binary: String, client: String, graph: String = "graphs/demo.json",
                          connect input: String = "tone-gain.in", notes: String? = nil, following streams: [String] = [],
                          arguments: [String] = []) throws -> (mallocs: Int, retains: Int, cycles: Int) {
            let library = try CachedCBuild.realtimeCounter()
            let engine = try EngineProcess(graph: Repository.path(graph), client: client, binary: binary,
                                           environment: ["IAA_RT_PROBE": "1", "LD_PRELOAD": library], arguments: arguments)
            // Something connected at both ends, so the cycle fetches JACK buffers too.
            _ = try runCommand("jack_connect", ["system:capture_1", "\(client):\(input)"])
            var sequencer: ProgramProcess? = nil
            defer { sequencer?.stop() }
            if let notes {
                // C and E at the loop's start, G an eighth of a second in, each held a quarter second: voices
                // start, hold, release and are retriggered while the counter counts.
                sequencer = try ProgramProcess("jack_midiseq", ["\(client)-notes", "24000", "0", "60", "12000",
                                                                "0", "64", "12000", "6000", "67", "12000"])
                #expect(try waitUntil(seconds: 5) { try jackPorts().contains("\(client)-notes:out") })
                #expect(try runCommand("jack_connect", ["\(client)-notes:out", "\(client):\(notes)"]).status == 0)
            }
            var follower: ControlClient? = nil
            if !streams.isEmpty {
                follower = try ControlClient(path: ControlServer.defaultPath(client: client))
                for (id, stream) in streams.enumerated() { try follower?.sendRaw(Array("{\"id\":\(id),\"method\":\"\(stream)\"}\n".utf8)) }
                #expect(try waitUntil(seconds: 3) { (try follower?.readLine()).map { String(decoding: $0, as: UTF8.self).contains("\"meters\":[") } ?? false },
                        "a meters line came")
            }
            usleep(1_500_000)
            #expect(engine.stop() == 0)
            _ = follower
            return try #require(Self.parseProbe(engine.stderr), "no rt-probe line in:\n\(engine.stderr)")
        }

        @Test("a release build makes zero heap allocations and zero retains on the audio thread while a graph plays",
              arguments: [("graphs/demo.json", "tone-gain.in"), ("graphs/headunit.json", "speakers.in_1"),
                          ("graphs/studio.json", "filter.in"), ("graphs/effects.json", "lowpass.input"),
                          // A program app's end, fed from outside as a program feeds it.
                          ("graphs/programs.json", "music.play_1"),
                          // Plugin delay compensation's delay lines: on the direct path, and on the
                          // outside signal entering the mixer, delayed to meet the limiter's path.
                          ("graphs/latency.json", "mix.in_1")])
        func releaseBuildIsClean(graph: String, input: String) throws {
            let counts = try playAndCount(binary: Repository.releaseBinary, client: "t-rt", graph: graph, connect: input)
            #expect(counts.cycles > 100, "only \(counts.cycles) cycles ran")
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }

        @Test("notes playing too: the poly-synth's voices and the delay of graphs/studio.json make no allocation and no retain (release build)")
        func notesPlayingAreClean() throws {
            let counts = try playAndCount(binary: Repository.releaseBinary, client: "t-rt-notes", graph: "graphs/studio.json",
                                          connect: "filter.in", notes: "synth.midi_in")
            #expect(counts.cycles > 100, "only \(counts.cycles) cycles ran")
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }

        @Test("isolated apps too: handing each cycle to child processes makes no allocation and no retain (release build)",
              arguments: [("graphs/demo.json", "tone-gain.in"), ("graphs/effects.json", "lowpass.input")])
        func isolatedAppsAreClean(graph: String, input: String) throws {
            let counts = try playAndCount(binary: Repository.releaseBinary, client: "t-rt-isolated", graph: graph, connect: input,
                                          arguments: ["--isolation", "process"])
            #expect(counts.cycles > 100, "only \(counts.cycles) cycles ran")
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }

        @Test("split cycles too: the audio thread and the worker thread render every cycle together with no allocation and no retain on either (release build)",
              arguments: [("graphs/demo.json", "tone-gain.in"), ("graphs/studio.json", "filter.in"), ("graphs/latency.json", "mix.in_1")])
        func splitCyclesAreClean(graph: String, input: String) throws {
            let counts = try playAndCount(binary: Repository.releaseBinary, client: "t-rt-split", graph: graph, connect: input,
                                          arguments: ["--threads", "2", "--split", "always"])
            #expect(counts.cycles > 100, "only \(counts.cycles) cycles ran")
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }

        @Test("metering too, while a dashboard follows the meters and top: no allocation and no retain (release build)",
              arguments: [[], ["--threads", "2", "--split", "always"]])
        func meteringIsClean(arguments: [String]) throws {
            let counts = try playAndCount(binary: Repository.releaseBinary, client: "t-rt-meters", graph: "graphs/headunit.json",
                                          connect: "speakers.in_1", following: ["meters", "top"], arguments: arguments)
            #expect(counts.cycles > 100, "only \(counts.cycles) cycles ran")
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }

        @Test("the counter does count on the audio thread (a debug build retains there)")
        func counterSeesDebugRetains() throws {
            let counts = try playAndCount(binary: Repository.debugBinary, client: "t-rt-debug")
            #expect(counts.cycles > 100)
            #expect(counts.retains > 0, "the probe saw nothing; it would not catch a real retain either")
        }

        @Test("offline rendering of the same plans, with their timelines, is clean too, on one thread and split across two (release build)",
              arguments: ["demo", "headunit", "studio", "effects", "programs"], [false, true])
        func offlineRenderIsClean(name: String, split: Bool) throws {
            let library = try CachedCBuild.realtimeCounter()
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var arguments = ["render", Repository.path("graphs/\(name).json"), "-o", directory.appendingPathComponent("x.wav").path, "-d", "2"]
                + (split ? ["--threads", "2", "--split", "always"] : ["--threads", "1"])
            if FileManager.default.fileExists(atPath: Repository.path("graphs/\(name).timeline.json")) {
                arguments += ["--timeline", Repository.path("graphs/\(name).timeline.json")]
            }
            let result = try runCommand(Repository.releaseBinary, arguments,
                                        environment: ["IAA_RT_PROBE": "1", "LD_PRELOAD": library])
            #expect(result.status == 0, "\(result.stderr)")
            let counts = try #require(Self.parseProbe(result.stderr), "no rt-probe line in:\n\(result.stderr)")
            #expect(counts.cycles >= 375)
            #expect(counts.mallocs == 0)
            #expect(counts.retains == 0)
        }
    }
}
