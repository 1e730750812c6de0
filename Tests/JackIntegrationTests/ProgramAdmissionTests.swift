import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// Programs the graph does not name (docs/programs.md, `programs.admit`), with real
    /// processes: `jack_simple_client` (two 0.2-amplitude sines that connect themselves to the
    /// speakers) as a player no app names, and this test process as a session-library program.
    @Suite("Admitting programs the graph does not name", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ProgramAdmissionTests {
        typealias Running = ControlPlaneTests.Running

        /// jack_simple_client's two ports summed into the admitted app's one `play_1`: RMS 0.2.
        static let unityRMS: Float = 0.2

        /// `tone` (playing, mixable) and `nav` (voicePrompt with duckOthers, inactive) are the
        /// graph's own apps, into `mix`; admitted programs are heard through `progs`, the engine
        /// output measured. `admit` is the `programs.admit` block, or nil for none.
        func graph(admit: String?) throws -> (path: String, folder: URL) {
            let folder = try JackHarness.temporaryDirectory()
            let programs = admit.map { #", "programs": { "admit": \#($0) }"# } ?? ""
            let text = """
                { "format": "iaa-graph/1", "name": "admission",
                  "apps": [
                    { "id": "tone", "plugin": "builtin:oscillator",
                      "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"] },
                    { "id": "nav", "plugin": "builtin:oscillator", "params": { "frequency": 660 },
                      "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] }, "backgroundModes": ["audio"] },
                    { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } },
                    { "id": "progs", "plugin": "builtin:mixer", "params": { "inputs": 1 } }
                  ],
                  "connections": [ { "from": "tone:out", "to": "mix:in_1" }, { "from": "nav:out", "to": "mix:in_2" } ],
                  "jack": { "expose": ["mix:out", "progs:out"] },
                  "policy": { "duckLevel": "-12dB" }\(programs) }
                """
            let path = folder.appendingPathComponent("admission.json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return (path, folder)
        }

        /// The admission block for clients `pattern`; `extra` adds restrictions.
        static func admit(_ pattern: String, _ extra: String = "") -> String {
            #"""
            { "jackClient": "\#(pattern)", "outputs": 1\#(extra), "limit": 2,
              "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"],
              "to": "progs:in_1" }
            """#
        }

        func apps(_ running: Running) throws -> [ControlJSON] {
            try running.result("status")["apps"]?.arrayValue ?? []
        }

        func app(_ running: Running, _ id: String) throws -> ControlJSON? {
            try apps(running).first { $0["id"]?.stringValue == id }
        }

        /// The sessions of the graph's own apps as they were set and acted on, to compare before
        /// and after (not `otherAudioPlaying` and the silencing hint, which follow what others play).
        func namedSessions(_ running: Running) throws -> [String] {
            let keys = ["category", "mode", "options", "active", "playing", "recording", "foreground", "suspended", "interrupted"]
            return try apps(running).filter { ["tone", "nav"].contains($0["id"]?.stringValue) }.map { app in
                keys.map { "\($0)=\(app["session"]?[$0]?.text ?? "?")" }.joined(separator: " ")
            }
        }

        /// Moves the graph's own apps away from how the file starts them (tone stops its audio,
        /// nav comes to the foreground), so that sessions reset by an admission would show.
        func actOnNamedApps(_ running: Running) throws {
            _ = try running.result("session.stopAudio", ["app": "tone"])
            _ = try running.result("app.foreground", ["app": "nav"])
        }

        func record(_ port: String) throws -> [Float] {
            try ControlPlaneTests().record(port)
        }

        @Test("without programs.admit, a program no app names is refused with an error that says how to allow it, and nothing changes")
        func refusedWithoutTheBlock() throws {
            let (path, folder) = try graph(admit: nil)
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-an")
            defer { running.stop() }
            let before = try running.result("status")
            let player = try ProgramProcess("jack_simple_client", ["t-an-player"])
            defer { player.stop() }
            // The player connects itself to the speakers; a client the engine does not take as a
            // program is left alone, so those connections stay.
            #expect(try waitUntil(seconds: 5) { try jackConnections()["t-an-player:output1"]?.contains("system:playback_1") == true })
            usleep(1_000_000)
            #expect(try jackConnections()["t-an-player:output1"] == ["system:playback_1"])
            let client = try ControlClient(path: running.socket)
            guard case .failure(let refused) = try client.call("program.attach", params: ["app": "radio"]) else {
                Issue.record("a program the graph does not name attached")
                return
            }
            #expect((refused.code, refused.field) == ("unknownApp", "app"))
            #expect(refused.message.contains(#""programs": {"admit""#), "\(refused.message)")
            let after = try running.result("status")
            #expect(after["apps"]?.text == before["apps"]?.text)
            #expect(after["programs"]?.text == "null")
            #expect(!running.engine.stderr.contains("programAdmitted"))
        }

        @Test("with programs.admit, a program no app names is admitted and routed; a duckOthers session ducks it by the policy's amount; the others' sessions do not change; it is removed when it exits")
        func admittedDuckedRemoved() throws {
            let (path, folder) = try graph(admit: Self.admit("t-aa-*"))
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-aa")
            defer { running.stop() }
            try actOnNamedApps(running)
            let sessionsBefore = try namedSessions(running)
            let player = try ProgramProcess("jack_simple_client", ["t-aa-player"])
            defer { player.stop() }
            #expect(try waitUntil(seconds: 5) { try jackConnections()["t-aa:t-aa-player.play_1"]?.contains("t-aa-player:output2") == true },
                    "the admitted player was not routed: \(running.engine.stderr)")
            let admitted = try #require(try app(running, "t-aa-player"))
            #expect(admitted["program"]?["admitted"]?.boolValue == true)
            #expect(admitted["program"]?["clients"]?.arrayValue?.first?["pid"]?.intValue == Int(player.process.processIdentifier))
            #expect(admitted["session"]?["active"]?.boolValue == true)
            #expect(try running.result("status")["programs"]?["admitted"]?.arrayValue?.compactMap(\.stringValue) == ["t-aa-player"])
            #expect(running.engine.stderr.contains(#""app":"t-aa-player","name":"programAdmitted""#), "\(running.engine.stderr)")
            // Its own connections to the speakers are undone, as a named program app's.
            #expect(try waitUntil(seconds: 3) { try jackConnections()["t-aa-player:output1"] == ["t-aa:t-aa-player.play_1"] })
            #expect(try namedSessions(running) == sessionsBefore, "admitting a program changed another app's session")

            let unity = SignalAnalysis.rms(try record("t-aa:progs.out"))
            #expect(abs(unity - Self.unityRMS) < 0.01, "admitted player at unity: RMS \(unity)")
            _ = try running.result("session.activate", ["app": "nav"])
            #expect(try app(running, "t-aa-player")?["session"]?["ducked"]?.boolValue == true)
            let ducked = SignalAnalysis.decibels(SignalAnalysis.rms(try record("t-aa:progs.out")) / Self.unityRMS)
            #expect(abs(ducked + 12) < 0.3, "admitted player while nav speaks: \(ducked) dB")
            _ = try running.result("session.stopAudio", ["app": "nav"])
            _ = try running.result("session.deactivate", ["app": "nav"])
            let restored = SignalAnalysis.rms(try record("t-aa:progs.out"))
            #expect(abs(restored - Self.unityRMS) < 0.01, "admitted player after nav: RMS \(restored)")
            let sessionsWithPlayer = try namedSessions(running)

            player.stop()
            #expect(try waitUntil(seconds: 5) { try app(running, "t-aa-player") == nil }, "the admitted app stayed after its program exited")
            #expect(running.engine.stderr.contains(#""app":"t-aa-player","name":"programRemoved""#))
            #expect(try waitUntil(seconds: 3) { try !jackPorts().contains { $0.hasPrefix("t-aa:t-aa-player.") } }, "its ports stayed")
            #expect(try namedSessions(running) == sessionsWithPlayer, "removing the admitted app changed another app's session")
            #expect(SignalAnalysis.isExactlySilent(try record("t-aa:progs.out")))
        }

        @Test("a program that fails the block's restriction is refused, as a JACK client and on the socket, and nothing is added")
        func restrictionRefuses() throws {
            let (path, folder) = try graph(admit: Self.admit("t-ar-*", #", "executable": "/usr/bin/true""#))
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-ar")
            defer { running.stop() }
            let before = try running.result("status")["apps"]
            let player = try ProgramProcess("jack_simple_client", ["t-ar-player"])
            defer { player.stop() }
            #expect(try waitUntil(seconds: 5) { try running.result("status")["programs"]?["refused"]?.arrayValue?.count == 1 })
            let refusal = try running.result("status")["programs"]?["refused"]?.arrayValue?.first
            #expect(refusal?["name"]?.stringValue == "t-ar-player")
            #expect(refusal?["pid"]?.intValue == Int(player.process.processIdentifier))
            #expect(refusal?["reason"]?.stringValue?.contains("programs.admit.executable is /usr/bin/true") == true, "\(String(describing: refusal))")
            #expect(running.engine.stderr.contains(#""app":null,"name":"programRefused""#))
            #expect(try running.result("status")["apps"]?.text == before?.text)
            #expect(try jackConnections()["t-ar-player:output1"]?.contains { $0.hasPrefix("t-ar:") } == false)

            let client = try ControlClient(path: running.socket)
            guard case .failure(let notThisBinary) = try client.call("program.attach", params: ["app": "t-ar-radio"]),
                  case .failure(let notThisName) = try client.call("program.attach", params: ["app": "radio"]),
                  case .failure(let notAnID) = try client.call("program.attach", params: ["app": "t-ar radio"]) else {
                Issue.record("a refused program was admitted")
                return
            }
            #expect((notThisBinary.code, notThisBinary.field) == ("notAdmitted", "app"))
            #expect(notThisBinary.message.contains("/usr/bin/true"), "\(notThisBinary.message)")
            #expect(notThisName.code == "notAdmitted")
            #expect(notThisName.message.contains(#""t-ar-*""#), "\(notThisName.message)")
            #expect(notAnID.code == "notAdmitted")
            #expect(try running.result("status")["apps"]?.text == before?.text)
        }

        @Test("a session-library program is admitted by program.attach, speaks for its session, and its app goes when it disconnects; the limit refuses more")
        func admittedByAttach() throws {
            let (path, folder) = try graph(admit: Self.admit("t-at-*"))
            defer { try? FileManager.default.removeItem(at: folder) }
            let running = try Running(graph: path, client: "t-at")
            defer { running.stop() }
            try actOnNamedApps(running)
            let sessionsBefore = try namedSessions(running)
            var radio: ControlClient? = try ControlClient(path: running.socket)
            let attached = try #require(radio).call("program.attach", params: ["app": "t-at-radio"]).get()
            #expect(attached["pid"]?.intValue == Int(getpid()))
            #expect(attached["session"]?["active"]?.boolValue == true)
            #expect(try app(running, "t-at-radio")?["program"]?["admitted"]?.boolValue == true)
            #expect(try app(running, "t-at-radio")?["program"]?["attached"]?.intValue == Int(getpid()))
            // It acts for its own session, with the same requests a named program app uses.
            _ = try #require(radio).call("session.stopAudio", params: ["app": "t-at-radio"]).get()
            _ = try #require(radio).call("session.deactivate", params: ["app": "t-at-radio"]).get()
            #expect(try app(running, "t-at-radio")?["session"]?["active"]?.boolValue == false)
            #expect(try namedSessions(running) == sessionsBefore)
            // The limit is 2: a second program is admitted, a third refused.
            let second = try ControlClient(path: running.socket)
            _ = try second.call("program.attach", params: ["app": "t-at-other"]).get()
            guard case .failure(let full) = try ControlClient(path: running.socket).call("program.attach", params: ["app": "t-at-third"]) else {
                Issue.record("the admission limit was not kept")
                return
            }
            #expect(full.code == "notAdmitted")
            #expect(full.message.contains("at most 2"), "\(full.message)")

            radio = nil
            #expect(try waitUntil(seconds: 5) { try app(running, "t-at-radio") == nil }, "the app stayed after its program disconnected")
            #expect(try app(running, "t-at-other") != nil)
            #expect(try namedSessions(running) == sessionsBefore)
        }
    }
}
