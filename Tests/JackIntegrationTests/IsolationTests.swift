import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// An isolated app's child crashes, aborts, hangs, writes NaN or sleeps in process, or crashes
    /// while its node is created: that app goes silent, every other app plays on unchanged, and
    /// the child is restarted or left off as configured. docs/isolation.md.
    @Suite("Isolated apps: a misbehaving plugin harms nobody else", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct IsolationTests {
        /// `libbad.so` and graph files in a private folder.
        static func folder() throws -> URL {
            let directory = try JackHarness.temporaryDirectory()
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            try MisbehavingPlugin.build(in: directory)
            return directory
        }

        static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// Child processes started from `directory`'s plugin that are still alive.
        static func children(of directory: URL) -> [String] {
            let listing = (try? runCommand("pgrep", ["-a", "-f", "isolated-node .*\(directory.path)"]).stdout) ?? ""
            return listing.split(separator: "\n").map(String.init)
        }

        @Test("offline: the other apps' output is identical, sample for sample, to a graph without the bad app",
              arguments: [("./libbad.so#bad", 1), ("./libbad.so#bad", 2), ("./libbad.so#bad", 3), ("./libbad.so#bad", 4),
                          ("./libbad.so#crash-create", 0)])
        func offlineOutputIsUnchanged(plugin: String, mode: Int) throws {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let without = try Self.write(MisbehavingPlugin.graph(bad: nil), "without.json", in: directory)
            let with = try Self.write(MisbehavingPlugin.graph(bad: plugin, mode: mode), "with.json", in: directory)
            let expected = directory.appendingPathComponent("without.wav").path
            let rendered = directory.appendingPathComponent("with.wav").path
            #expect(try runCommand(Repository.binary, ["render", without, "-o", expected, "-d", "0.5"]).status == 0)
            let result = try runCommand(Repository.binary, ["render", with, "-o", rendered, "-d", "0.5"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("app \"bad\" is silent"), "no fault reported:\n\(result.stderr)")
            let want = try SoundFileReader(path: expected).readAll()
            let got = try SoundFileReader(path: rendered).readAll()
            #expect(want == got, "the good app's output changed with a bad app beside it (mode \(mode))")
            #expect(SignalAnalysis.peak(got[0]) > 0.4)
            #expect(Self.children(of: directory).isEmpty, "children left behind: \(Self.children(of: directory))")
        }

        @Test("offline: an isolated plugin renders exactly what it renders in process")
        func isolatedRendersTheSame() throws {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let graph = try Self.write(MisbehavingPlugin.graph(bad: "./libbad.so#bad").replacingOccurrences(
                of: "\"from\": \"good:out\"", with: "\"from\": \"bad:out\""), "graph.json", in: directory)
            var takes: [[[Float]]] = []
            for isolation in ["none", "process"] {
                let out = directory.appendingPathComponent("\(isolation).wav").path
                let result = try runCommand(Repository.binary, ["render", graph, "-o", out, "-d", "0.5", "--isolation", isolation])
                #expect(result.status == 0, "\(result.stderr)")
                takes.append(try SoundFileReader(path: out).readAll())
            }
            #expect(takes[0] == takes[1])
            #expect(abs(SignalAnalysis.peak(takes[1][0]) - 0.25) < 0.01)
        }

        @Test("offline: the example graphs (built-in nodes, LV2 and LADSPA plugins, MIDI from timelines) and the C example plugin render identically with every app isolated",
              arguments: ["graphs/effects.json", "graphs/studio.json", "graphs/headunit.json", "Examples/Plugins/tremolo-c/graph.json"])
        func examplesRenderTheSameIsolated(graph: String) throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var path = Repository.path(graph)
            if graph.contains("tremolo-c") {
                #expect(try runCommand("/bin/sh", [Repository.path("Examples/Plugins/tremolo-c/build.sh"), directory.path]).status == 0)
                path = try Self.write(try String(contentsOfFile: path, encoding: .utf8), "graph.json", in: directory)
            }
            var arguments = ["render", path, "-d", "1"]
            let timeline = path.replacingOccurrences(of: ".json", with: ".timeline.json")
            if FileManager.default.fileExists(atPath: timeline) { arguments += ["--timeline", timeline] }
            var takes: [[[Float]]] = []
            for isolation in ["none", "process"] {
                let out = directory.appendingPathComponent("\(isolation).wav").path
                let result = try runCommand(Repository.binary, arguments + ["-o", out, "--isolation", isolation])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!result.stderr.contains("is silent"), "\(result.stderr)")
                takes.append(try SoundFileReader(path: out).readAll())
            }
            #expect(takes[0] == takes[1], "\(graph) sounds different isolated")
            #expect(SignalAnalysis.peak(takes[1].flatMap { $0 }) > 0.01, "\(graph) rendered silence")
        }

        /// For an engine a test makes crash: Swift's backtracer would spend two seconds of CPU
        /// symbolicating the engine after the line the test reads.
        static let noBacktrace = ["SWIFT_BACKTRACE": "enable=no"]

        /// The engine with the bad app isolated; `maxCrashes` faults within a minute leave it off.
        struct Running {
            let directory: URL
            let socket: String
            let engine: EngineProcess
            let client: ControlClient

            init(client name: String, maxCrashes: Int, default choice: String = "auto", arguments: [String] = [],
                 badFirst: Bool = false, busyGood: Bool = false, environment: [String: String] = [:]) throws {
                directory = try IsolationTests.folder()
                let isolation = "\"isolation\": { \"maxCrashes\": \(maxCrashes), \"default\": \"\(choice)\" }"
                let graph = try IsolationTests.write(MisbehavingPlugin.graph(bad: "./libbad.so#bad", isolation: isolation,
                                                                             badFirst: badFirst, busyGood: busyGood),
                                                     "live.json", in: directory)
                socket = directory.appendingPathComponent("\(name).sock").path
                engine = try EngineProcess(graph: graph, client: name, environment: environment, arguments: ["--socket", socket] + arguments)
                client = try ControlClient(path: socket)
            }

            func bad() throws -> ControlJSON? {
                try client.call("status", params: [:]).get()["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "bad" }
            }

            func ourXruns() throws -> Double {
                try client.call("status", params: [:]).get()["jack"]?["ourXruns"]?.doubleValue ?? -1
            }

            func setMode(_ mode: Int) throws {
                _ = try client.call("set", params: ["app": "bad", "param": "mode", "value": .number(Double(mode))]).get()
            }

            func stop() {
                engine.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        @Test("live: each fault silences only the bad app, is named in an event and status, and the child restarts; the good app plays on with no xrun of ours")
        func liveFaultsAreContained() throws {
            let running = try Running(client: "t-isolation", maxCrashes: 100)
            defer { running.stop() }
            #expect(try running.bad()?["isolation"]?["state"]?.stringValue == "running")
            #expect(try running.bad()?["isolation"]?["restrictions"]?.arrayValue?.count ?? 0 >= 1)
            let events = followEvents(socket: running.socket, limit: 500, timeout: .seconds(30))
            let xrunsBefore = try running.ourXruns()
            // The good app, recorded while every fault happens.
            let take = running.directory.appendingPathComponent("good.wav").path
            let recording = DispatchSemaphore(value: 0)
            Thread {
                _ = try? runCommand("jack_rec", ["-f", take, "-d", "9", "t-isolation:good.out"])
                recording.signal()
            }.start()
            usleep(300_000)
            let expected: [(mode: Int, kind: String, signal: String?)] = [
                (1, "crashed", "SIGSEGV"), (2, "crashed", "SIGABRT"), (3, "hung", nil), (4, "nonFinite", nil), (5, "hung", nil),
            ]
            for (index, fault) in expected.enumerated() {
                try running.setMode(fault.mode)
                // Caught while the supervisor waits out its backoff (0.1 s, doubling), before a restart.
                let seen = waitUntil(seconds: 3) {
                    let status = try? running.bad()?["isolation"]
                    return status?["state"]?.stringValue == "restarting" && status?["fault"]?["kind"]?.stringValue == fault.kind
                }
                #expect(seen, "mode \(fault.mode): no \(fault.kind) fault in status:\n\(running.engine.stderr)")
                try running.setMode(0)
                #expect(waitUntil(seconds: 4) { (try? running.bad()?["isolation"]?["state"]?.stringValue) == "running" },
                        "mode \(fault.mode): the child was not restarted:\n\(running.engine.stderr)")
                let status = try running.bad()
                #expect(status?["isolation"]?["fault"]?["signal"]?.stringValue == fault.signal)
                // A child restarted (after 0.1 s) before the mode was set back misbehaves once more.
                #expect(status?["isolation"]?["restarts"]?.doubleValue ?? 0 >= Double(index + 1))
            }
            recording.wait()
            let samples = try SoundFileReader(path: take).readAll()[0]
            // Every 10 ms of the good app's take holds the tone at its level: it never stopped.
            let window = 480
            let quiet = stride(from: window, to: samples.count - window, by: window).filter { start in
                SignalAnalysis.peak(Array(samples[start..<(start + window)])) < 0.45
            }
            #expect(samples.count > 48_000 * 8 && quiet.isEmpty, "the good app went quiet in \(quiet.count) windows")
            #expect(try running.ourXruns() == xrunsBefore, "the faults caused xruns of ours")
            let faults = events.all.filter { $0.contains("\"isolatedFault\"") }
            // One event per fault, in order; a fault told twice in a row is a child restarted
            // before the test set its mode back (its backoff is 0.1 s; a busy machine is slower).
            let labels = expected.map { "\($0.kind) \($0.signal ?? "")" }
            let seen = faults.compactMap { line in
                expected.first { line.contains("\"fault\":\"\($0.kind)\"") && line.contains("\"signal\":\"\($0.signal ?? "")") == ($0.signal != nil) }
                    .map { "\($0.kind) \($0.signal ?? "")" }
            }
            let told = seen.enumerated().filter { $0.offset == 0 || seen[$0.offset - 1] != $0.element }.map(\.element)
            #expect(told == labels && seen.count == faults.count, "fault events: \(faults)")
            #expect(faults.first?.contains("\"signal\":\"SIGSEGV\"") == true)
            #expect(events.all.filter { $0.contains("\"isolatedStarted\"") }.count >= expected.count)
            // The figure: from the fault to the restarted child playing, beyond the backoff.
            let times = events.all.compactMap { line -> (String, Double, Double)? in
                guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let event = object["event"] as? [String: Any], let name = event["name"] as? String,
                      let time = object["t"] as? Double else { return nil }
                return (name, time, event["restartIn"] as? Double ?? 0)
            }
            for (index, entry) in times.enumerated() where entry.0 == "isolatedFault" {
                if let next = times[(index + 1)...].first(where: { $0.0 == "isolatedStarted" }) {
                    print("isolation: fault to playing again \(Int(((next.1 - entry.1) * 1000).rounded())) ms (backoff \(Int(entry.2 * 1000)) ms)")
                }
            }
            // Each restart is a new process; the old ones are gone, reaped.
            #expect(IsolationTests.children(of: running.directory).count == 1)
        }

        @Test("live: a child that loops holds the other isolated apps on its CPU back, but only it is killed; they play again")
        func hungChildSparesItsNeighbours() throws {
            // Every app isolated: tone, good and bad are children on the audio thread's CPU at one
            // priority, so the looping one keeps the others from running until it is killed.
            // bad before good: the looping child runs first, and good waits behind it.
            let running = try Running(client: "t-isolation-wave", maxCrashes: 100, default: "process", badFirst: true)
            defer { running.stop() }
            func isolation(_ app: String) throws -> ControlJSON? {
                try running.client.call("status", params: [:]).get()["apps"]?.arrayValue?
                    .first { $0["id"]?.stringValue == app }?["isolation"]
            }
            #expect(try isolation("good")?["state"]?.stringValue == "running")
            let events = followEvents(socket: running.socket, limit: 200, timeout: .seconds(10))
            try running.setMode(3)
            #expect(waitUntil(seconds: 3) { (try? running.bad()?["isolation"]?["fault"]?["kind"]?.stringValue) == "hung" },
                    "the looping child was not found hung:\n\(running.engine.stderr)")
            try running.setMode(0)
            #expect(waitUntil(seconds: 4) { (try? running.bad()?["isolation"]?["state"]?.stringValue) == "running" })
            for app in ["tone", "good"] {
                let status = try isolation(app)
                #expect(status?["state"]?.stringValue == "running" && status?["restarts"]?.doubleValue == 0,
                        "\(app) was taken for the hung one: \(String(describing: status))")
            }
            let faults = events.all.filter { $0.contains("\"isolatedFault\"") }
            #expect(faults.count == 1 && faults.first?.contains("\"app\":\"bad\"") == true, "fault events: \(faults)")
            // And they play: the good app's output is the tone, halved by nothing (gain 1).
            usleep(100_000)
            let take = running.directory.appendingPathComponent("after.wav").path
            _ = try runCommand("jack_rec", ["-f", take, "-d", "1", "t-isolation-wave:good.out"])  // whole seconds
            let samples = try SoundFileReader(path: take).readAll()[0]
            #expect(SignalAnalysis.peak(samples) > 0.45, "the good app is silent after the hang")
        }

        @Test("live: a plugin that keeps crashing stays off until iaa enable starts it again")
        func keepsCrashingStaysOff() throws {
            let running = try Running(client: "t-isolation-off", maxCrashes: 2)
            defer { running.stop() }
            try running.setMode(1)
            #expect(waitUntil(seconds: 5) { (try? running.bad()?["isolation"]?["state"]?.stringValue) == "off" },
                    "never off:\n\(running.engine.stderr)")
            let off = try running.bad()
            #expect(off?["muted"]?.boolValue == true)
            // The text status says so too, in place of the app's state, with the way back.
            let tree = try runCommand(Repository.binary, ["status", "--socket", running.socket]).stdout
            let row = tree.split(separator: "\n").first { $0.contains(" bad ") } ?? ""
            #expect(row.contains("off (crashed)") && row.contains("SIGSEGV") && row.contains("iaa enable bad") && !row.contains("active"),
                    "\(tree)")
            #expect(off?["isolation"]?["note"]?.stringValue?.contains("iaa enable bad") == true)
            usleep(500_000)
            #expect(try running.bad()?["isolation"]?["state"]?.stringValue == "off", "it restarted by itself")
            #expect(IsolationTests.children(of: running.directory).isEmpty)
            try running.setMode(0)
            let enabled = try runCommand(Repository.binary, ["enable", "bad", "--socket", running.socket])
            #expect(enabled.stdout.contains("enabled bad"), "\(enabled.stdout)\(enabled.stderr)")
            #expect(waitUntil(seconds: 3) { (try? running.bad()?["isolation"]?["state"]?.stringValue) == "running" })
            #expect(try running.bad()?["muted"]?.boolValue == false)
        }

        @Test("in process, a plugin that loops forever: status and an event name it, the audio thread is stalled, and JACK's xruns count as ours")
        func inProcessHangIsNamed() throws {
            let running = try Running(client: "t-isolation-stall", maxCrashes: 3, default: "none")
            defer { running.stop() }
            #expect(try running.bad()?["isolation"] == .null, "the bad app should run in the engine's process")
            let events = followEvents(socket: running.socket, limit: 50, timeout: .seconds(6))
            try running.setMode(3)
            let stalled = waitUntil(seconds: 4) {
                (try? running.client.call("status", params: [:]).get()["jack"]?["stalled"]?["app"]?.stringValue) == "bad"
            }
            #expect(stalled, "no stall in status:\n\(running.engine.stderr)")
            // JACK reports the xrun on its notification thread, a moment after the stall is seen.
            #expect(waitUntil(seconds: 3) {
                ((try? running.client.call("status", params: [:]).get())?["jack"]?["ourXruns"]?.doubleValue ?? 0) > 0
            }, "the stall's xruns are not ours")
            let status = try running.client.call("status", params: [:]).get()
            let bad = status["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "bad" }
            #expect(bad?["fault"]?["kind"]?.stringValue == "hang" && bad?["fault"]?["action"]?.stringValue == "stalled")
            let tree = try runCommand(Repository.binary, ["status", "--socket", running.socket]).stdout
            #expect(tree.contains("STALLED") && tree.contains("app \"bad\"'s process call has not returned") && tree.contains("isolation"),
                    "\(tree)")
            #expect(waitUntil(seconds: 3) { events.all.contains { $0.contains("\"audioStalled\"") && $0.contains("\"app\":\"bad\"") } },
                    "no audioStalled event: \(events.all)")
        }

        @Test("a healthy child kept off its CPU by another real-time thread is late, not hung: it is not killed, and plays on")
        func starvedChildIsNotHung() throws {
            let running = try Running(client: "t-isolation-starved", maxCrashes: 100, default: "process")
            defer { running.stop() }
            func isolation() throws -> ControlJSON? {
                try running.client.call("status", params: [:]).get()["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "good" }?["isolation"]
            }
            let child = try #require(try isolation()?["pid"]?.intValue)
            let events = followEvents(socket: running.socket, limit: 200, timeout: .seconds(6))
            let late = try isolation()?["lateCycles"]?.intValue ?? 0
            try Starvation.holdOff(child: child, seconds: 0.6)
            usleep(300_000)
            let after = try isolation()
            #expect((after?["lateCycles"]?.intValue ?? 0) > late, "the child was not kept off its CPU: \(String(describing: after))")
            #expect(after?["state"]?.stringValue == "running" && after?["restarts"]?.intValue == 0,
                    "a child kept off its CPU was taken for hung: \(String(describing: after))\n\(running.engine.stderr)")
            #expect(!events.all.contains { $0.contains("\"isolatedFault\"") && $0.contains("\"app\":\"good\"") }, "\(events.all)")
            // The silent cycles are told: isolatedLate lines, each adding its cycles to the count.
            func told() -> [(cycles: Int, lateCycles: Int)] {
                events.all.compactMap { line in
                    guard let json = try? ControlJSONParser.parse(line),
                          case .event(.isolatedLate("good", let cycles, let total))? = EventsLine(json: json)?.content else { return nil }
                    return (cycles, total)
                }
            }
            let seen = after?["lateCycles"]?.intValue ?? 0
            #expect(waitUntil(seconds: 2) { (told().last?.lateCycles ?? 0) >= seen }, "isolatedLate lines: \(told()), status \(seen)")
            let lines = told()
            #expect(lines.allSatisfy { $0.cycles > 0 } && zip(lines, lines.dropFirst()).allSatisfy { $1.lateCycles == $0.lateCycles + $1.cycles },
                    "each isolatedLate line adds its cycles to the last: \(lines)")
            let take = running.directory.appendingPathComponent("starved.wav").path
            _ = try runCommand("jack_rec", ["-f", take, "-d", "1", "t-isolation-starved:good.out"])
            #expect(SignalAnalysis.peak(try SoundFileReader(path: take).readAll()[0]) > 0.45, "the good app is silent after the starvation")
        }

        @Test("in process, a plugin that segfaults ends the engine as before, and the engine names it on its way out")
        func inProcessCrashIsNamed() throws {
            let running = try Running(client: "t-isolation-crash", maxCrashes: 3, default: "none",
                                      environment: IsolationTests.noBacktrace)
            defer { running.stop() }
            // The next cycle ends the process, which may come before the reply to this request
            // leaves: a closed connection here is the crash arriving early, not a failure.
            _ = try? running.setMode(1)
            #expect(waitUntil(seconds: 10) { !running.engine.process.isRunning }, "the engine outlived a segfault in process")
            #expect(running.engine.process.terminationReason == .uncaughtSignal, "\(running.engine.process.terminationStatus)")
            #expect(running.engine.stderr.contains("app \"bad\" crashed the engine with SIGSEGV in its process call"),
                    "\(running.engine.stderr)")
        }

        @Test("a cycle made late by a slow isolated child is the engine's xrun, not the system's")
        func slowChildIsOurs() throws {
            // Synchronous, so that JACK waits for the late cycle instead of reporting an xrun while it
            // runs (which counts as ours whatever made it late): the engine's own measure, its CPU
            // time plus its wait for the child, is what tells. No crash here, so the lane's database is safe.
            let server = PrivateJackServer(prefix: "t-isolation-late", options: ["-S"])
            try server.start()
            defer { server.stop() }
            // A wait of up to a whole period lets the sleeping child (50 ms) hold every cycle past it.
            let running = try Running(client: "t-isolation-late", maxCrashes: 100, arguments: ["--deadline", "100"],
                                      environment: ["JACK_DEFAULT_SERVER": server.name])
            defer { running.stop() }
            let before = try running.client.call("status", params: [:]).get()["jack"]
            try running.setMode(5)
            #expect(waitUntil(seconds: 3) { (try? running.ourXruns()) ?? 0 > (before?["ourXruns"]?.doubleValue ?? 0) },
                    "no xrun of ours:\n\(running.engine.stderr)")
            try running.setMode(0)
            let after = try running.client.call("status", params: [:]).get()["jack"]
            let ours = (after?["ourXruns"]?.doubleValue ?? 0) - (before?["ourXruns"]?.doubleValue ?? 0)
            let preempted = (after?["preemptedCycles"]?.doubleValue ?? 0) - (before?["preemptedCycles"]?.doubleValue ?? 0)
            #expect(ours > preempted, "late cycles were blamed on the system: ours \(ours), preempted \(preempted)")
        }

        @Test("the engine killed with SIGKILL takes its children along: no process, no zombie, no shared-memory file left")
        func engineKillLeavesNothing() throws {
            let shmBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? [])
            let running = try Running(client: "t-isolation-kill", maxCrashes: 3)
            defer { running.stop() }
            let child = try #require(running.bad()?["isolation"]?["pid"]?.doubleValue).rounded()
            kill(running.engine.process.processIdentifier, SIGKILL)
            running.engine.process.waitUntilExit()
            #expect(waitUntil(seconds: 3) { kill(pid_t(child), 0) != 0 }, "child \(Int(child)) outlived the engine")
            #expect(IsolationTests.children(of: running.directory).isEmpty)
            let shmAfter = Set((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? [])
            #expect(shmAfter.subtracting(shmBefore).filter { $0.contains("iaa") }.isEmpty)
        }
    }
}
