import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// Program apps with real processes (docs/programs.md): `jack_simple_client` as the music
    /// player (a 0.2-amplitude sine on two ports that connects itself to `system:playback_*`), and
    /// the session-library example `Examples/Programs/nav-prompt.c` as the navigation voice.
    @Suite("Program apps: outside programs routed through their sessions", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ProgramAppTests {
        typealias Running = ControlPlaneTests.Running

        /// jack_simple_client's two ports (0.2-amplitude sines of different pitch) summed into
        /// `play_1`: RMS √(2 · 0.2²/2) = 0.2.
        static let unityRMS: Float = 0.2

        /// A graph with `music` (program `PREFIX-music*`), `nav` (program `PREFIX-nav*`, the session
        /// library's), a plain `tone` app, and a mixer; `musicBlock` replaces music's program block.
        func graph(_ prefix: String, musicBlock: String? = nil, navBlock: String? = nil) throws -> (path: String, folder: URL) {
            let folder = try JackHarness.temporaryDirectory()
            let music = musicBlock ?? #"{ "jackClient": "\#(prefix)-music*", "outputs": 1 }"#
            let nav = navBlock ?? #"{ "jackClient": "\#(prefix)-nav*", "outputs": 1 }"#
            let text = """
                { "format": "iaa-graph/1", "name": "programs",
                  "apps": [
                    { "id": "music", "program": \(music),
                      "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"] },
                    { "id": "nav", "program": \(nav),
                      "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] }, "backgroundModes": ["audio"] },
                    { "id": "tone", "plugin": "builtin:oscillator", "session": { "category": "ambient" } },
                    { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 3 } }
                  ],
                  "connections": [ { "from": "music:out_1", "to": "mix:in_1" }, { "from": "nav:out_1", "to": "mix:in_2" },
                                   { "from": "tone:out", "to": "mix:in_3" } ],
                  "jack": { "expose": ["mix:out", "music:out_1"] },
                  "policy": { "duckLevel": "-12dB" } }
                """
            let path = folder.appendingPathComponent("programs.json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return (path, folder)
        }

        func record(_ port: String) throws -> [Float] {
            try ControlPlaneTests().record(port)
        }

        func program(_ running: Running, _ app: String) throws -> ControlJSON? {
            try running.result("status")["apps"]?.arrayValue?.first { $0["id"]?.stringValue == app }?["program"]
        }

        func connected(_ port: String, to other: String) throws -> Bool {
            try jackConnections()[port]?.contains(other) == true
        }

        /// Builds the nav-prompt example against the library `tools/test` built, into `folder`.
        func buildNavPrompt(in folder: URL) throws -> String {
            let binary = folder.appendingPathComponent("nav-prompt").path
            let library = Repository.path(".build/debug")
            let result = try runCommand("cc", ["-O2", "-o", binary, Repository.path("Examples/Programs/nav-prompt.c"),
                                               "-I", Repository.path("Sources/CIAASession/include"), "-L", library,
                                               "-Wl,-rpath," + library, "-liaa-session", "-ljack", "-lsndfile"])
            #expect(result.status == 0, "cc: \(result.stderr)")
            return binary
        }

        /// A 660 Hz prompt of `seconds`, mono, 48 kHz.
        func prompt(in folder: URL, seconds: Int) throws -> String {
            let path = folder.appendingPathComponent("prompt.wav").path
            let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 1)
            let samples = (0..<(48_000 * seconds)).map { Float(0.5 * sin(2 * Double.pi * 660 * Double($0) / 48_000)) }
            try writer.write([samples])
            try writer.close()
            return path
        }

        @Test("a program is routed through its app, its bypass connections are undone, and its audio is ducked by the policy's amount; when the prompt program dies while active, the others are restored")
        func routedDuckedAndDying() throws {
            let (path, folder) = try graph("t-pd")
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-pd")
            defer { running.stop() }
            let music = try ProgramProcess("jack_simple_client", ["t-pd-music"])
            defer { music.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-pd:music.play_1", to: "t-pd-music:output2") })
            // jack_simple_client connects itself to the speakers; the engine undoes it.
            #expect(try waitUntil(seconds: 3) { try jackConnections()["t-pd-music:output1"] == ["t-pd:music.play_1"] },
                    "jack_simple_client's own connections to the speakers were not undone")
            let status = try program(running, "music")
            #expect(status?["running"]?.boolValue == true)
            #expect(status?["clients"]?.arrayValue?.first?["pid"]?.intValue == Int(music.process.processIdentifier))
            // By hand, later: undone too.
            _ = try runCommand("jack_connect", ["t-pd-music:output2", "system:playback_2"])
            #expect(try waitUntil(seconds: 3) { try !connected("t-pd-music:output2", to: "system:playback_2") })

            let unity = SignalAnalysis.rms(try record("t-pd:music.out_1"))
            #expect(abs(unity - Self.unityRMS) < 0.01, "music at unity: RMS \(unity)")

            let nav = try ProgramProcess(try buildNavPrompt(in: folder),
                                         ["-a", "nav", "-n", "t-pd-nav", "-s", running.socket, try prompt(in: folder, seconds: 20)])
            defer { nav.stop() }
            #expect(try waitUntil(seconds: 5) { try running.result("status")["apps"]?.arrayValue?[0]["session"]?["ducked"]?.boolValue == true })
            #expect(try program(running, "nav")?["attached"]?.intValue == Int(nav.process.processIdentifier))
            let ducked = SignalAnalysis.decibels(SignalAnalysis.rms(try record("t-pd:music.out_1")) / Self.unityRMS)
            #expect(abs(ducked + 12) < 0.3, "music while nav speaks: \(ducked) dB")

            nav.stop()
            #expect(try waitUntil(seconds: 5) { try running.result("status")["apps"]?.arrayValue?[1]["session"]?["active"]?.boolValue == false },
                    "nav's session did not end with its program")
            // Its JACK client goes when JACK notices the process gone, which can come after the socket closed.
            #expect(try waitUntil(seconds: 5) { try program(running, "nav")?["running"]?.boolValue == false },
                    "nav's program still running after it exited")
            let restored = SignalAnalysis.rms(try record("t-pd:music.out_1"))
            #expect(abs(restored - Self.unityRMS) < 0.01, "music after nav died: RMS \(restored)")
        }

        @Test("an interruption silences a program app exactly; after the program restarts it is routed again")
        func interruptionAndRestart() throws {
            let (path, folder) = try graph("t-pr")
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-pr")
            defer { running.stop() }
            let music = try ProgramProcess("jack_simple_client", ["t-pr-music"])
            defer { music.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-pr:music.play_1", to: "t-pr-music:output1") })
            _ = try running.result("interrupt", ["type": "begin"])
            #expect(SignalAnalysis.isExactlySilent(try record("t-pr:music.out_1")), "an interrupted program app is heard")
            _ = try running.result("interrupt", ["type": "end"])
            #expect(abs(SignalAnalysis.rms(try record("t-pr:music.out_1")) - Self.unityRMS) < 0.01)

            music.stop()
            #expect(try waitUntil(seconds: 5) { try program(running, "music")?["running"]?.boolValue == false })
            // Nothing else changed: the session is as it was, the graph's ports are all there.
            #expect(try running.result("status")["apps"]?.arrayValue?[0]["session"]?["active"]?.boolValue == true)
            let again = try ProgramProcess("jack_simple_client", ["t-pr-music"])
            defer { again.stop() }
            #expect(try waitUntil(seconds: 5) { try connected("t-pr:music.play_1", to: "t-pr-music:output1") },
                    "the restarted program was not routed again")
            #expect(try program(running, "music")?["clients"]?.arrayValue?.first?["pid"]?.intValue == Int(again.process.processIdentifier))
            #expect(abs(SignalAnalysis.rms(try record("t-pr:music.out_1")) - Self.unityRMS) < 0.01)
        }

        @Test("a process that is not the app is refused, as a JACK client and on the socket; malformed requests change nothing")
        func refusals() throws {
            let (path, folder) = try graph("t-pf", musicBlock: #"{ "jackClient": "t-pf-music*", "executable": "/usr/bin/true" }"#,
                                           navBlock: #"{ "jackClient": "t-pf-nav*", "uid": \#(getuid() + 1) }"#)
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-pf")
            defer { running.stop() }
            let impostor = try ProgramProcess("jack_simple_client", ["t-pf-music"])
            defer { impostor.stop() }
            #expect(try waitUntil(seconds: 5) { try program(running, "music")?["refused"]?.arrayValue?.count == 1 })
            let refusal = try program(running, "music")?["refused"]?.arrayValue?.first
            #expect(refusal?["reason"]?.stringValue?.contains("/usr/bin/true") == true)
            #expect(try jackConnections()["t-pf:music.play_1"]?.isEmpty == true)

            // The socket: this test process is neither app's program.
            let client = try ControlClient(path: running.socket)
            guard case .failure(let notOwner) = try client.call("program.attach", params: ["app": "nav"]) else {
                Issue.record("a process of another uid attached to nav")
                return
            }
            #expect(notOwner.code == "notOwner")
            #expect(notOwner.message.contains("program.uid is \(getuid() + 1)"), "\(notOwner.message)")
            guard case .failure(let notProgram) = try client.call("program.attach", params: ["app": "tone"]),
                  case .failure(let unknown) = try client.call("program.attach", params: ["app": "radio"]),
                  case .failure(let missing) = try client.call("program.attach", params: [:]) else {
                Issue.record("an attach that should fail succeeded")
                return
            }
            #expect(notProgram.code == "notAProgram")
            #expect(unknown.code == "unknownApp")
            #expect((missing.code, missing.field) == ("invalidParams", "app"))
            let before = try running.result("status")["apps"]
            guard case .failure(let badCategory) = try client.call("session.setCategory", params: ["app": "music", "category": "loud"]) else {
                Issue.record("a bogus category was accepted")
                return
            }
            #expect((badCategory.code, badCategory.field) == ("invalidParams", "category"))
            #expect(try running.result("status")["apps"]?.text == before?.text)
        }

        @Test("an attached program acts only for its own app")
        func ownerOnly() throws {
            let (path, folder) = try graph("t-po", navBlock: #"{ "jackClient": "t-po-nav*" }"#)
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-po")
            defer { running.stop() }
            // This test process is nav's program now (the graph restricts nothing).
            let program = try ControlClient(path: running.socket)
            let attached = try program.call("program.attach", params: ["app": "nav"]).get()
            #expect(attached["pid"]?.intValue == Int(getpid()))
            guard case .failure(let other) = try program.call("session.deactivate", params: ["app": "music"]),
                  case .failure(let system) = try program.call("interrupt", params: ["type": "begin"]) else {
                Issue.record("an attached program acted beyond its app")
                return
            }
            #expect((other.code, other.field) == ("notOwner", "app"))
            #expect(system.code == "notOwner")
            #expect(try running.result("status")["interruption"]?.boolValue == false)
            #expect(try running.result("status")["apps"]?.arrayValue?[0]["session"]?["active"]?.boolValue == true)
            _ = try program.call("session.activate", params: ["app": "nav"]).get()
            let state = try program.call("session.get", params: ["app": "nav"]).get()
            #expect(state["session"]?["active"]?.boolValue == true)
            #expect(state["session"]?["otherAudioPlaying"]?.boolValue == true)
            guard case .failure(let second) = try ControlClient(path: running.socket).call("program.attach", params: ["app": "nav"]) else {
                Issue.record("two programs attached to one app")
                return
            }
            #expect(second.code == "appInUse")
        }
    }
}
