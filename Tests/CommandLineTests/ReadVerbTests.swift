import ControlSocket
import Foundation
import Testing
import TestKit

/// The read verbs against a canned engine: the text layouts people read, and `--json` as it came.
@Suite("iaa read verbs", .serialized)
struct ReadVerbTests {
    @Test("status prints the wpctl-style tree with header, sections, states, gains and faults")
    func statusTree() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["status"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == """
            iaa 'studio' [jack 'default' 48000 Hz / 256, dsp 3.1 %, xruns 2 (ours 0)]
             ├─ Hosts:
             │  *  1. daw    playAndRecord [mixWithOthers]            active   gain 1.00
             ├─ Nodes:
             │     2. synth  builtin:poly-synth auri/poly/demo → daw  bypassed (deadline)
             ├─ Apps:
             │     3. nav    playback/voicePrompt [duckOthers]        active   gain 1.00
             │     4. music  playback [mixWithOthers]                 ducked 0.25
             │     5. rear   builtin:program                          active   gain 1.00   link receive 0.0.0.0:30100 running (locked after 0.8 s), 1 restart, 1 dropout
             ├─ JACK:
             │     iaa:daw.out_1 -> system:playback_1  rule
             │     iaa:synth.out_1 -> jack_meter:in    outside
             │     nav:out -> mpv:in_0                 pending: waiting for mpv:in_0
             │     music:out -> @playback              removed by hand: made again when the JACK server restarts, by iaa connect, or on iaa apply
             │     music:out -> mpv:in_1               removed by hand: made again when its program restarts, by iaa connect, or on iaa apply
             ├─ Primary: joined ssh://head-unit/run/user/1000/iaa/head.sock (2 apps decided there)
             ├─ Transport: playing, 120 bpm, bar 3 beat 2
             └─ Interruptions: none

            """)
        #expect(engine.requests == [.init(method: "status", params: "{}")])
    }

    @Test("status names an LV2 plugin by its URI's last part, so the column of every app stays narrow")
    func statusShortensPluginURIs() throws {
        let directory = try makeTemporaryDirectory("lv2-status")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let apps = [CannedReplies.app("look", role: "app", plugin: "lv2:http://plugin.org.uk/swh-plugins/lookaheadLimiterConst",
                                      component: "aurx/look/lv2_"),
                    CannedReplies.app("mix", role: "app", plugin: "builtin:mixer")]
        let reply = StatusReply(graph: "align", jack: JackStatus(server: "default", client: "iaa"), apps: apps).json
        let server = try ControlServer(path: directory + "/engine.sock") { _ in .result(reply) }
        server.start()
        defer { server.stop() }
        let result = try IAACommand.run(["status", "--socket", directory + "/engine.sock"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains(" │     1. look  lv2:…/lookaheadLimiterConst aurx/look/lv2_  active   gain 1.00"), "\(result.stdout)")
        #expect(lines.contains(" │     2. mix   builtin:mixer                               active   gain 1.00"), "\(result.stdout)")
    }

    @Test("status --wait waits for an engine that starts listening after it, and gives up with exit 2 when none does")
    func statusWaits() throws {
        let directory = try makeTemporaryDirectory("wait")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/engine.sock"
        let waiting = try IAACommand.Running(["status", "--json", "--wait", "20", "--socket", path], environment: [:])
        // Still waiting, with nothing listening: it has tried at least once by now.
        #expect(!waitUntil(seconds: 0.5) { !waiting.process.isRunning }, "status --wait did not wait")
        let server = try ControlServer(path: path) { CannedEngine.answer($0) }
        server.start()
        defer { server.stop() }
        let result = try waiting.finish(timeout: .seconds(20))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try ControlJSONParser.parse(String(result.stdout.dropLast())) == CannedReplies.status)

        let start = ContinuousClock.now
        let none = try IAACommand.run(["status", "--wait", "0.3", "--socket", directory + "/none.sock"])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("iaa: no iaa engine is running on socket"), "\(none.stderr)")
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    @Test("status --json prints the engine's document unchanged, as one line")
    func statusJSON() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["status", "--json"])
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 1)
        #expect(try ControlJSONParser.parse(String(result.stdout.dropLast())) == CannedReplies.status)
    }

    @Test("ports -c -p -t -l use jack_lsp's layout: connections by 3 spaces, the rest by a tab")
    func portsLayout() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["ports", "-c", "-p", "-t", "-l"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == """
            iaa:synth.out_1
               system:playback_1
               iaa:daw.in_1
            \tport playback latency = [ 256 512 ] frames
            \tport capture latency = [ 64 64 ] frames
            \tproperties: output,
            \t32 bit float mono audio
            iaa:daw.in_1
               iaa:synth.out_1
            \tport playback latency = [ 320 576 ] frames
            \tport capture latency = [ 64 64 ] frames
            \tproperties: input,
            \t32 bit float mono audio
            iaa:synth.midi_in
            \tport playback latency = [ 0 0 ] frames
            \tport capture latency = [ 0 0 ] frames
            \tproperties: input,
            \t8 bit raw midi

            """)
    }

    @Test("ports lists only the names containing every FILTER, as jack_lsp does")
    func portsFilter() throws {
        let engine = try CannedEngine()
        #expect(try engine.iaa(["ports", "synth"]).stdoutLines == ["iaa:synth.out_1", "iaa:synth.midi_in"])
        #expect(try engine.iaa(["ports", "synth", "out"]).stdoutLines == ["iaa:synth.out_1"])
        let json = try engine.iaa(["ports", "--json", "daw"])
        #expect(try ControlJSONParser.parse(String(json.stdout.dropLast())).arrayValue?.count == 1)
    }

    @Test("get prints `name = value  (min…max, default d, unit)` per parameter and sends the param")
    func getLines() throws {
        let engine = try CannedEngine()
        let all = try engine.iaa(["get", "tone"])
        #expect(all.status == 0)
        #expect(all.stdoutLines == ["frequency = 440  (20…20000, default 440, Hz)", "gain = 0.5  (0…1, default 0.8)"])
        let one = try engine.iaa(["get", "tone", "gain"])
        #expect(one.stdoutLines == ["gain = 0.5  (0…1, default 0.8)"])
        #expect(engine.requests.map(\.params) == [#"{"app":"tone"}"#, #"{"app":"tone","param":"gain"}"#])
    }

    @Test("dump prints JSON; dump --graph prints the graph file's text")
    func dump() throws {
        let engine = try CannedEngine()
        let state = try engine.iaa(["dump"])
        #expect(try ControlJSONParser.parse(state.stdout) == CannedReplies.dump)
        let file = try engine.iaa(["dump", "--graph"])
        #expect(file.stdout == "{\n  \"format\": \"iaa-graph/1\"\n}\n")
        #expect(engine.requests.map(\.params) == ["{}", #"{"graph":true}"#])
    }

    @Test("graph --format dot prints the dot text")
    func graphDot() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["graph", "--format", "dot"])
        #expect(result.stdout == "digraph iaa {\n  tone -> daw;\n}\n")
        #expect(engine.requests == [.init(method: "graph", params: #"{"format":"dot"}"#)])
    }
}
