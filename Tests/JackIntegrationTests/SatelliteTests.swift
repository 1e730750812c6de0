import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// One policy across machines (docs/links.md): a satellite engine joined to a primary, each
    /// on a JACK server of its own, over the primary's control socket.
    @Suite("A satellite engine decided for by its primary", .serialized)
    struct SatelliteTests {
        typealias Side = LinkTests.Side

        static let primaryGraph = """
            { "format": "iaa-graph/1", "name": "head",
              "apps": [
                { "id": "music", "plugin": "builtin:oscillator", "params": { "frequency": 1000, "amplitude": 0.5 },
                  "session": { "category": "playback", "options": ["mixWithOthers"], "active": true },
                  "backgroundModes": ["audio"], "state": "background" },
                { "id": "nav", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 },
                  "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] },
                  "backgroundModes": ["audio"], "state": "background" },
                { "id": "rearMusic", "program": { "outputs": 0 },
                  "session": { "category": "playback", "options": ["mixWithOthers"] }, "backgroundModes": ["audio"], "state": "background" },
                { "id": "rearNav", "program": { "outputs": 0 },
                  "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] },
                  "backgroundModes": ["audio"], "state": "background" } ],
              "jack": { "connections": [ { "from": "music:out", "to": "@playback" } ] } }
            """

        static let satelliteGraph = """
            { "format": "iaa-graph/1", "name": "rear",
              "apps": [
                { "id": "rearMusic", "plugin": "builtin:oscillator", "params": { "frequency": 1000, "amplitude": 0.5 },
                  "session": { "category": "playback", "options": ["mixWithOthers"], "active": true },
                  "backgroundModes": ["audio"], "state": "background" },
                { "id": "rearNav", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 },
                  "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] },
                  "backgroundModes": ["audio"], "state": "background" } ],
              "jack": { "connections": [ { "from": "rearMusic:out", "to": "@playback" } ] } }
            """

        /// Full level of a 0.5 sine, and 12 dB under it.
        static let unity = 0.5 / 2.0.squareRoot(), ducked = 0.5 / 2.0.squareRoot() / 4

        func level(_ side: Side, _ port: String) throws -> Double {
            try #require(Double(try side.python(LinkTests.level(of: port))))
        }

        /// Polls `side`'s status until `app`'s gain is `gain` (0.25 stands for the duck level, 0.251), or 5 s pass.
        func awaitGain(_ side: Side, _ app: String, _ gain: Double) throws -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                let status = try ControlClient(path: side.socket).call("status", params: [:]).get()
                let found = status["apps"]?.arrayValue?.first { $0["id"]?.stringValue == app }?["gain"]?.doubleValue
                if let found, abs(found - gain) < 0.01 { return true }
                usleep(20_000)
            }
            return false
        }

        func satelliteState(_ side: Side, within seconds: Double = 10, until state: String) throws -> ControlJSON? {
            let deadline = Date().addingTimeInterval(seconds)
            var last: ControlJSON?
            while Date() < deadline {
                last = try? ControlClient(path: side.socket).call("status", params: [:]).get()["satellite"]
                if last?["state"]?.stringValue == state { return last }
                usleep(50_000)
            }
            return last
        }

        func act(_ side: Side, _ method: String, _ app: String) throws -> Result<ControlJSON, ControlError> {
            try ControlClient(path: side.socket).call(method, params: ["app": .string(app)])
        }

        /// Records `port` (on the satellite's server) while a request activates `app` on the
        /// primary; prints the milliseconds from sending it to the first block under half level.
        static func decisionDelay(port: String, primary: String, app: String) -> String {
            """
            import jack, json, numpy, socket, time
            c = jack.Client("decision", no_start_server=True); into = c.inports.register("in"); blocks = []
            @c.set_process_callback
            def process(frames): blocks.append((c.last_frame_time, into.get_array().copy()))
            c.activate(); c.connect("\(port)", into); time.sleep(0.3)
            s = socket.socket(socket.AF_UNIX); s.connect("\(primary)")
            sent = c.frame_time
            s.sendall((json.dumps({"id": 1, "method": "session.activate", "params": {"app": "\(app)"}}) + "\\n").encode())
            s.recv(65536); time.sleep(0.5); c.deactivate()
            for t, block in blocks:
                if t >= sent and numpy.sqrt(numpy.mean(block * block)) < 0.2:
                    print(round((t - sent) * 1000 / c.samplerate, 1)); break
            else: print("never")
            """
        }

        @Test("joined: a duckOthers app on the satellite ducks the primary's music and the reverse, at each engine's output; the primary gone: the satellite decides alone, and joins again")
        func onePolicy() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var head = try Side("sh", graph: Self.primaryGraph, in: directory)
            defer { head.stop() }
            let rear = try Side("sr", graph: Self.satelliteGraph, in: directory, arguments: ["--join", head.socket])
            defer { rear.stop() }
            let joined = try satelliteState(rear, until: "joined")
            try #require(joined?["state"]?.stringValue == "joined", "\(String(describing: joined))\n\(rear.engine.stderr)")
            // The primary heard that rearMusic plays on the satellite.
            let primaryRearMusic = try ControlClient(path: head.socket).call("status", params: [:]).get()["apps"]?.arrayValue?
                .first { $0["id"]?.stringValue == "rearMusic" }?["session"]?["active"]?.boolValue
            #expect(primaryRearMusic == true)
            #expect(abs(try level(head, "sh:music.out") - Self.unity) < 0.005)
            #expect(abs(try level(rear, "sr:rearMusic.out") - Self.unity) < 0.005)

            // The satellite's prompt: asked on the satellite, decided by the primary, heard on both.
            _ = try act(rear, "session.activate", "rearNav").get()
            #expect(try awaitGain(head, "music", 0.25))
            #expect(abs(try level(head, "sh:music.out") - Self.ducked) < 0.003, "the primary's music under the satellite's prompt")
            #expect(try awaitGain(rear, "rearMusic", 0.25))
            #expect(abs(try level(rear, "sr:rearMusic.out") - Self.ducked) < 0.003, "the satellite's music under its own prompt")
            _ = try act(rear, "session.stopAudio", "rearNav").get()
            _ = try act(rear, "session.deactivate", "rearNav").get()
            #expect(try awaitGain(head, "music", 1) && awaitGain(rear, "rearMusic", 1))

            // The primary's prompt ducks the satellite's music at the satellite's output: timed
            // from the request leaving for the primary to the satellite's music half way down.
            let delay = try rear.python(Self.decisionDelay(port: "sr:rearMusic.out", primary: head.socket, app: "nav"))
            print("satellite: the primary's decision heard at the satellite's output after \(delay) ms")
            #expect(try awaitGain(rear, "rearMusic", 0.25))
            #expect(abs(try level(rear, "sr:rearMusic.out") - Self.ducked) < 0.003, "the satellite's music under the primary's prompt")
            _ = try act(head, "session.stopAudio", "nav").get()
            _ = try act(head, "session.deactivate", "nav").get()
            #expect(try awaitGain(rear, "rearMusic", 1))

            // The primary gone: the satellite says so and decides alone.
            head.engine.stop()
            let fallback = try satelliteState(rear, until: "fallback")
            #expect(fallback?["state"]?.stringValue == "fallback", "\(String(describing: fallback))")
            #expect(fallback?["reason"]?.stringValue?.contains("deciding with this engine's own policy") == true)
            _ = try act(rear, "session.activate", "rearNav").get()
            #expect(try awaitGain(rear, "rearMusic", 0.25), "the satellite's own policy ducks its music")
            _ = try act(rear, "session.stopAudio", "rearNav").get()
            _ = try act(rear, "session.deactivate", "rearNav").get()
            #expect(try awaitGain(rear, "rearMusic", 1))

            // The primary back: joined again, and deciding again.
            head.stop()
            head = try Side("sh", graph: Self.primaryGraph, in: directory)
            let again = try satelliteState(rear, until: "joined")
            #expect(again?["state"]?.stringValue == "joined" && again?["joins"]?.intValue == 2, "\(String(describing: again))")
            _ = try act(rear, "session.activate", "rearNav").get()
            #expect(try awaitGain(head, "music", 0.25), "the primary decides again")
            #expect(rear.engine.stderr.contains(#""name":"satellite","state":"fallback""#))
        }

        @Test("a satellite whose app the primary does not name is refused with the reason, and decides alone")
        func unknownApp() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let head = try Side("su", graph: Self.primaryGraph.replacingOccurrences(of: "\"rearNav\"", with: "\"otherNav\""), in: directory)
            defer { head.stop() }
            let rear = try Side("sv", graph: Self.satelliteGraph, in: directory, arguments: ["--join", head.socket])
            defer { rear.stop() }
            let state = try satelliteState(rear, until: "fallback")
            #expect(state?["reason"]?.stringValue?.contains("the primary refused to let this engine speak for app \"rearNav\"") == true,
                    "\(String(describing: state))")
        }
    }
}
