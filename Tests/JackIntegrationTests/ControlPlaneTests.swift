import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// The control socket of a running engine: every kind of request, live changes heard in the
    /// output, the event stream, and many clients at once.
    @Suite("The control plane of a running engine", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ControlPlaneTests {
        /// An engine with its own socket in a temporary folder, and a client to it.
        struct Running {
            let engine: EngineProcess
            let socket: String
            let directory: URL

            /// `graph` is relative to the package root, or absolute; `arguments` go to `iaa run`.
            init(graph: String, client: String, arguments: [String] = [], binary: String = Repository.binary) throws {
                directory = try JackHarness.temporaryDirectory()
                // The socket's folder must be private (0700).
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
                socket = directory.appendingPathComponent("\(client).sock").path
                engine = try EngineProcess(graph: graph.hasPrefix("/") ? graph : Repository.path(graph), client: client,
                                           binary: binary, arguments: ["--socket", socket] + arguments)
            }

            func call(_ method: String, _ params: ControlJSON = [:]) throws -> Result<ControlJSON, ControlError> {
                try ControlClient(path: socket).call(method, params: params)
            }

            func result(_ method: String, _ params: ControlJSON = [:]) throws -> ControlJSON {
                try call(method, params).get()
            }

            func stop() {
                engine.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        func record(_ port: String, seconds: Int = 1) throws -> [Float] {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("r.wav").path
            #expect(try runCommand("jack_rec", ["-f", file, "-d", String(seconds), port]).status == 0)
            return Array(try SoundFileReader(path: file).readAll()[0].dropFirst(2_400))
        }

        @Test("status, ports and dump describe the running graph")
        func readVerbs() throws {
            let running = try Running(graph: "graphs/headunit.json", client: "t-ctl")
            defer { running.stop() }
            let status = try running.result("status")
            #expect(status["graph"]?.stringValue == "headunit")
            #expect(status["jack"]?["client"]?.stringValue == "t-ctl")
            #expect(status["apps"]?.arrayValue?.count == 5)
            let ports = try running.result("ports").arrayValue ?? []
            let speakers = ports.first { $0["name"]?.stringValue == "t-ctl:speakers.out" }
            #expect(speakers?["connections"]?.arrayValue?.compactMap(\.stringValue).sorted() == ["system:playback_1", "system:playback_2"])
            let dump = try running.result("dump")
            #expect(dump["connections"]?.arrayValue?.count == 4)
            #expect(dump["device"]?["silent"]?.boolValue == false)
        }

        @Test("session actions change what is heard, and a refused one changes nothing")
        func sessionActions() throws {
            let running = try Running(graph: "graphs/headunit.json", client: "t-ses")
            defer { running.stop() }
            let outcome = try running.result("session.activate", ["app": "nav"])
            #expect(outcome["sessions"]?["music"]?["ducked"]?.boolValue == true)
            usleep(100_000)
            let music = try record("t-ses:music.out")
            let ducked = SignalAnalysis.decibels(SignalAnalysis.rms(music) / Float(0.5 / 2.0.squareRoot()))
            #expect(abs(ducked - -12) < 0.5, "music at \(ducked) dB while the prompt plays")
            // The call interrupts everything; a non-mixable activation during it is refused.
            _ = try running.result("session.activate", ["app": "phone"])
            let before = try running.result("dump")
            guard case .failure(let error) = try running.call("session.activate", ["app": "music"]) else {
                Issue.record("activating music during the call was accepted"); return
            }
            #expect(error.code == "cannotInterruptOthers" || error.code == "insufficientPriority")
            #expect(error.message.hasPrefix("('!"))
            #expect(try running.result("dump") == before)
        }

        @Test("set changes a parameter without a click, and get reads it back")
        func setAndGet() throws {
            let running = try Running(graph: "graphs/demo.json", client: "t-set")
            defer { running.stop() }
            _ = try running.result("set", ["app": "tone", "param": "frequency", "value": "1000"])
            let value = try running.result("get", ["app": "tone", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue
            #expect(value == 1000)
            usleep(100_000)
            let tone = try record("t-set:tone.out")
            #expect(abs((SignalAnalysis.estimateFrequency(samples: tone, sampleRate: 48_000) ?? 0) - 1000) < 1)
            guard case .failure(let error) = try running.call("set", ["app": "tone", "param": "frequency", "value": 99_999]) else {
                Issue.record("an out-of-range value was accepted"); return
            }
            #expect(error.code == "parameterOutOfRange")
        }

        @Test("connect and disconnect between apps and with JACK ports, with errors that say why")
        func connections() throws {
            let running = try Running(graph: "graphs/demo.json", client: "t-con")
            defer { running.stop() }
            _ = try running.result("connect", ["from": "t-con:tone.out", "to": "system:playback_1"])
            #expect(try jackConnections()["t-con:tone.out"] == ["system:playback_1"])
            _ = try running.result("disconnect", ["from": "tone:out", "to": "system:playback_1"])
            #expect(try jackConnections()["t-con:tone.out"] == [])
            // Internal: the noise is heard at the mixer a second time through its in_2... replace it.
            _ = try running.result("disconnect", ["from": "noise-gain:out", "to": "mix:in_2"])
            // Its plan goes in after the gain fade: a take that began before it is taken again.
            var mix = try record("t-con:mix.out")
            for _ in 1..<3 where SignalAnalysis.goertzelMagnitude(samples: mix, frequency: 440, sampleRate: 48_000) <= 0.2 {
                mix = try record("t-con:mix.out")
            }
            #expect(SignalAnalysis.goertzelMagnitude(samples: mix, frequency: 440, sampleRate: 48_000) > 0.2)
            // Without the noise, the mix is the tone alone: its zero crossings say 440 Hz.
            #expect(abs((SignalAnalysis.estimateFrequency(samples: mix, sampleRate: 48_000) ?? 0) - 440) < 1)
            guard case .failure(let error) = try running.call("connect", ["from": "mix:out", "to": "tone-gain:in"]) else {
                Issue.record("a cycle was accepted"); return
            }
            #expect(error.code == "cycle")
        }

        @Test("apply of a changed graph keeps the running oscillator's phase: no discontinuity")
        func applyKeepsState() throws {
            let running = try Running(graph: "graphs/demo.json", client: "t-apply")
            defer { running.stop() }
            var text = try String(contentsOfFile: Repository.path("graphs/demo.json"), encoding: .utf8)
            text = text.replacingOccurrences(of: "\"gain\": \"25%\"", with: "\"gain\": \"10%\"")
            let dry = try running.result("apply", ["text": .string(text), "file": "demo.json", "dryRun": true])
            #expect(dry["diff"]?["appsChanged"]?.arrayValue?.compactMap(\.stringValue) == ["noise-gain"])
            #expect(dry["applied"]?.boolValue == false)
            // Recorded while the graph is swapped underneath it; a take with a gap that is not the
            // engine's is taken again, the gain set back and forth, up to three times.
            let sineStep = Float(2 * Double.pi * 440 / 48_000 * 0.5)
            let back = text.replacingOccurrences(of: "\"gain\": \"10%\"", with: "\"gain\": \"25%\"")
            for attempt in 1...3 {
                let take = try GuardedTake.record("t-apply:tone.out", seconds: 2,
                                                  gaps: { try running.result("status")["jack"]?["xruns"]?.intValue ?? 0 }) {
                    let applied = try running.result("apply", ["text": .string(attempt % 2 == 1 ? text : back), "file": "demo.json"])
                    #expect(applied["applied"]?.boolValue == true)
                }
                let step = take.largestStep
                guard step.size > sineStep * 1.01 else { break }
                guard let gap = take.gap, attempt < 3 else {
                    Issue.record("the tone jumped when the graph was applied: \(step); take \(attempt): \(take.gapSaid)")
                    break
                }
                print("apply: take \(attempt) may have a gap (\(gap)); taken again")
            }
            let invalid = try running.call("apply", ["text": "{\"format\": \"iaa-graph/1\"}", "file": "bad.json"])
            guard case .failure(let error) = invalid else { Issue.record("an invalid graph was applied"); return }
            #expect(error.code == "invalidGraph")
            #expect(error.message.contains("bad.json:1:1: error[missingKey]"))
        }

        @Test("apply breaks the JACK connections the new graph drops and makes the ones it adds")
        func applyRewiresJack() throws {
            let running = try Running(graph: "graphs/demo.json", client: "t-rewire")
            defer { running.stop() }
            func mixOut() throws -> [String] { try jackConnections()["t-rewire:mix.out"] ?? [] }
            #expect(try mixOut().sorted() == ["system:playback_1", "system:playback_2"])
            let demo = try String(contentsOfFile: Repository.path("graphs/demo.json"), encoding: .utf8)
            let moved = demo.replacingOccurrences(of: #"{ "from": "mix:out", "to": "@playback" }"#,
                                                  with: #"{ "from": "tone:out", "to": "system:playback_1" }"#)
            let applied = try running.result("apply", ["text": .string(moved), "file": "moved.json"])
            #expect(applied["diff"]?["jackConnectionsRemoved"]?.arrayValue?.count == 1)
            let left = try mixOut()
            #expect(left.isEmpty, "the dropped connection is still there: \(left)")
            #expect(try jackConnections()["t-rewire:tone.out"] == ["system:playback_1"])
            _ = try running.result("apply", ["text": .string(demo), "file": "demo.json"])
            #expect(try mixOut().sorted() == ["system:playback_1", "system:playback_2"])
            #expect(try jackConnections()["t-rewire:tone.out"]?.isEmpty == true)
        }

        @Test("jack.expose: only the chosen ports are JACK ports, and connecting a hidden one says how to expose it")
        func exposedPortsOnly() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            var demo = try String(contentsOfFile: Repository.path("graphs/demo.json"), encoding: .utf8)
            demo = demo.replacingOccurrences(of: #""client": "iaa","#, with: #""client": "iaa", "expose": ["tone-gain:in"],"#)
            let graphFile = directory.appendingPathComponent("exposed.json").path
            try demo.write(toFile: graphFile, atomically: true, encoding: .utf8)
            let socket = directory.appendingPathComponent("e.sock").path
            let engine = try EngineProcess(graph: graphFile, client: "t-expose", arguments: ["--socket", socket])
            defer { engine.stop() }
            // tone-gain:in by the pattern, mix:out because jack.connections wires it to @playback.
            // Polled: under a loaded test run jack_lsp can answer before the server has taken
            // every registration in.
            let expected = ["t-expose:mix.out", "t-expose:tone-gain.in"]
            var ports: [String] = []
            _ = try waitUntil(seconds: 5) {
                ports = try jackPorts().filter { $0.hasPrefix("t-expose:") }.sorted()
                return ports == expected
            }
            #expect(ports == expected)
            let client = try ControlClient(path: socket)
            guard case .failure(let error) = try client.call("connect", params: ["from": "tone:out", "to": "system:playback_1"]) else {
                Issue.record("a port that is not exposed was connected")
                return
            }
            #expect(error.code == "notExposed")
            #expect(error.message.contains("tone:out is not a JACK port") && error.message.contains("add \"tone:out\" there"), "\(error.message)")
            let dumped = try client.call("dump", params: ["graph": true]).get()["file"]?.stringValue ?? ""
            #expect(dumped.contains(#""expose": ["tone-gain:in"]"#), "\(dumped)")
        }

        @Test("the event stream reports session events and connections made from outside")
        func eventStream() throws {
            let running = try Running(graph: "graphs/headunit.json", client: "t-ev")
            defer { running.stop() }
            let lines = followEvents(socket: running.socket, limit: 50)
            _ = try running.result("session.activate", ["app": "phone"])
            #expect(try runCommand("jack_disconnect", ["t-ev:speakers.out", "system:playback_1"]).status == 0)
            #expect(try runCommand("jack_disconnect", ["t-ev:speakers.out", "system:playback_2"]).status == 0)
            _ = waitUntil(seconds: 5) {
                let seen = lines.all.joined(separator: "\n")
                return ["\"name\":\"interruption\"", "\"by\":\"outside\"", "oldDeviceUnavailable"].allSatisfy(seen.contains)
            }
            let seen = lines.all.joined(separator: "\n")
            #expect(seen.contains("\"name\":\"interruption\""), "\(seen)")
            #expect(seen.contains("\"by\":\"outside\""), "\(seen)")
            #expect(seen.contains("oldDeviceUnavailable"), "\(seen)")
        }

        @Test("20 clients sending 1,000 requests at once all get their replies, and iaa causes no xrun")
        func manyClients() throws {
            // The release engine, as it is run: a debug build spends most of this test writing
            // the thousand status and dump replies, which says nothing about the control plane.
            let running = try Running(graph: "graphs/headunit.json", client: "t-load", binary: Repository.releaseBinary)
            defer { running.stop() }
            let failures = Lines()
            let socket = running.socket
            DispatchQueue.concurrentPerform(iterations: 20) { client in
                guard let connection = try? ControlClient(path: socket) else { failures.append("connect \(client)"); return }
                for request in 0..<50 {
                    let method = ["status", "ports", "dump", "get"][request % 4]
                    let params: ControlJSON = method == "get" ? ["app": "music"] : [:]
                    guard case .success = (try? connection.call(method, params: params)) ?? .failure(ControlError(code: "x", message: "")) else {
                        failures.append("\(client)/\(request)"); return
                    }
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
            #expect(try running.result("status")["jack"]?["ourXruns"]?.doubleValue == 0)
            // Garbage and oversized requests get errors; the engine keeps serving.
            let raw = try ControlClient(path: running.socket)
            try raw.sendRaw(Array("not json\n".utf8))
            #expect(String(decoding: try raw.readLine() ?? [], as: UTF8.self).contains("parseError"))
            #expect(try running.result("status")["graph"]?.stringValue == "headunit")
        }

        @Test("dump --graph writes a graph file that validates and reproduces the engine")
        func exportReproduces() throws {
            let running = try Running(graph: "graphs/studio.json", client: "t-exp")
            defer { running.stop() }
            _ = try running.result("set", ["app": "filter", "param": "cutoff", "value": 900])
            let file = try running.result("dump", ["graph": true])["file"]?.stringValue ?? ""
            let keep = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: keep) }
            let path = keep.appendingPathComponent("exported.json").path
            try file.write(toFile: path, atomically: true, encoding: .utf8)
            let validated = try runCommand(Repository.binary, ["validate", path])
            #expect(validated.status == 0, "\(validated.stderr)")
            #expect(file.contains("\"cutoff\":900"))
            let portsBefore = try jackPorts().filter { $0.hasPrefix("t-exp:") }.sorted()
            running.stop()
            let again = try EngineProcess(graph: path, client: "t-exp")
            defer { again.stop() }
            #expect(try jackPorts().filter { $0.hasPrefix("t-exp:") }.sorted() == portsBefore)
        }

        @Test("an LV2 plugin's control outputs show in status; its state goes into dump --graph and loads back")
        func pluginStateAndOutputs() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let tone = directory.appendingPathComponent("tone.wav").path
            #expect(try runCommand("sox", ["-n", "-r", "48000", "-c", "1", tone, "synth", "0.5", "sine", "1000"]).status == 0)
            let state = "<urn:iaa:state> a pset:Preset ; lv2:appliesTo <http://lv2plug.in/plugins/eg-sampler> ;"
                + " state:state [ <http://lv2plug.in/plugins/eg-sampler#sample> <file://\(tone)> ] ."
            let graph = directory.appendingPathComponent("sampler.json").path
            try """
                { "format": "iaa-graph/1", "name": "lv2-state",
                  "apps": [ { "id": "sampler", "plugin": "lv2:http://lv2plug.in/plugins/eg-sampler", "pluginState": "\(state)" },
                            { "id": "lat", "plugin": "lv2:http://plugin.org.uk/swh-plugins/artificialLatency", "params": { "delay": 10 } } ],
                  "connections": [ { "from": "sampler:out", "to": "lat:input" } ] }
                """.write(toFile: graph, atomically: true, encoding: .utf8)
            let running = try Running(graph: graph, client: "t-lv2")
            defer { running.stop() }
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            #expect(apps.first { $0["id"]?.stringValue == "lat" }?["outputs"]?["latency"]?.doubleValue == 480)
            #expect(apps.first { $0["id"]?.stringValue == "sampler" }?["outputs"] == .null)
            let file = try running.result("dump", ["graph": true])["file"]?.stringValue ?? ""
            #expect(file.contains(#""pluginState":"#) && file.contains("file://\(tone)"), "\(file)")
            let exported = directory.appendingPathComponent("exported.json").path
            try file.write(toFile: exported, atomically: true, encoding: .utf8)
            let validated = try runCommand(Repository.binary, ["validate", exported])
            #expect(validated.status == 0, "\(validated.stderr)")
        }
    }
}

/// Follows a running engine's `events` topic on a thread of its own, keeping up to `limit` lines.
func followEvents(socket: String, limit: Int, timeout: Duration = .seconds(5)) -> Lines {
    let lines = Lines()
    let started = DispatchSemaphore(value: 0)
    Thread {
        defer { started.signal() }
        let client = try? ControlClient(path: socket, timeout: timeout)
        _ = try? client?.stream("events", onStart: { _ in started.signal() },
                                onLine: { line in lines.append(line); return lines.count < limit })
    }.start()
    // Once the engine has answered the subscription, what happens next is on the stream.
    _ = started.wait(timeout: .now() + .seconds(5))
    return lines
}

/// Lines collected from several threads.
final class Lines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    var count: Int { all.count }
}
