import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// What the engine acknowledges survives `kill -9` (docs/state.md): restarted as the systemd
    /// unit restarts it (same graph file, same client, same state folder), it is as it was.
    @Suite("Kept state across kills of the engine", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct KeptStateTests {
        /// An engine's folder: its graph file (a copy, so a test may edit it), its state folder
        /// and its socket, kept across the engine's restarts.
        final class Place {
            let folder: String
            let client: String
            var graph: String { folder + "/headunit.json" }
            var state: String { folder + "/state" }
            var socket: String { folder + "/\(client).sock" }

            init(client: String) throws {
                folder = try makeTemporaryDirectory("kept")
                self.client = client
                try FileManager.default.copyItem(atPath: Repository.path("graphs/headunit.json"), toPath: graph)
            }

            func start(_ arguments: [String] = []) throws -> EngineProcess {
                try EngineProcess(graph: graph, client: client, environment: ["XDG_STATE_HOME": state],
                                  arguments: ["--socket", socket] + arguments)
            }

            func call(_ method: String, _ params: ControlJSON = [:]) throws -> Result<ControlJSON, ControlError> {
                try ControlClient(path: socket).call(method, params: params)
            }

            func result(_ method: String, _ params: ControlJSON = [:]) throws -> ControlJSON {
                try call(method, params).get()
            }

            /// SIGKILL, then until JACK has dropped the client (the next engine takes its name).
            func kill(_ engine: EngineProcess) throws {
                Foundation.kill(engine.process.processIdentifier, SIGKILL)
                engine.process.waitUntilExit()
                #expect(try waitUntil(seconds: 5) { try !jackPorts().contains { $0.hasPrefix(client + ":") } })
            }

            func connections(of port: String) throws -> [String] {
                let lines = try jackPorts(["-c", port])
                return lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            }

            deinit { try? FileManager.default.removeItem(atPath: folder) }
        }

        @Test("parameters, sessions, connections inside and to JACK, by request and by jack_connect: all back after kill -9, and dump reads the same")
        func everyKindComesBack() throws {
            let place = try Place(client: "t-kept")
            let first = try place.start()
            defer { first.stop() }
            let c = place.client
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 300])
            _ = try place.result("app.foreground", ["app": "nav"])
            _ = try place.result("session.activate", ["app": "nav"])
            _ = try place.result("disconnect", ["from": "game:out", "to": "speakers:in_4"])
            _ = try place.result("connect", ["from": .string("\(c):game.out"), "to": "system:playback_2"])
            #expect(try runCommand("jack_connect", ["\(c):phone.out", "system:playback_1"]).status == 0)
            #expect(try runCommand("jack_disconnect", ["\(c):speakers.out", "system:playback_1"]).status == 0)
            // The two made with JACK's tools are kept when the engine hears of them.
            #expect(try waitUntil(seconds: 3) {
                (try place.result("status")["state"]?["lastChange"]?.intValue ?? 0) >= 7
            })
            let before = try place.result("dump", ["graph": true])["file"]?.stringValue
            try place.kill(first)

            let second = try place.start()
            defer { second.stop() }
            let after = try place.result("dump", ["graph": true])["file"]?.stringValue
            // The same file, but for the order of the JACK connections: those made by hand are
            // written in port order before, and as the journal kept them after.
            let lines = { (text: String?) in text?.split(separator: "\n").map { $0.hasSuffix(",") ? $0.dropLast() : $0 }.sorted() }
            #expect(lines(after) == lines(before), "\(after ?? "")\n\(before ?? "")")
            let state = try place.result("status")["state"]
            #expect(state?["start"]?["outcome"]?.stringValue == "resumed", "\(state?.text ?? "")")
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 300)
            let nav = try place.result("session.get", ["app": "nav"])
            #expect(nav["session"]?["active"]?.boolValue == true, "\(nav.text)")
            #expect(try place.connections(of: "\(c):game.out") == ["system:playback_2"])
            #expect(try place.connections(of: "\(c):phone.out").contains("system:playback_1"))
            // The rule's pair removed by hand stays removed; the rule's other pair stands.
            #expect(try place.connections(of: "\(c):speakers.out") == ["system:playback_2"])
            #expect(second.stderr.contains("kept state: resumed"))
            #expect(second.stderr.contains(#"{"app":"music","name":"mediaServicesWereReset"}"#), "\(second.stderr)")
        }

        /// docs/state.md, "A restart is a reset of media services".
        @Test("an interruption does not survive a restart: the apps it interrupted come back inactive, hear mediaServicesWereReset, and its end resumes nothing")
        func interruptionEndsWithTheEngine() throws {
            let place = try Place(client: "t-kept-int")
            let first = try place.start()
            _ = try place.result("interrupt", ["type": "begin", "reason": "call"])
            let interrupted = try place.result("session.get", ["app": "music"])["session"]
            #expect(interrupted?["interrupted"]?.boolValue == true && interrupted?["active"]?.boolValue == false)
            try place.kill(first)

            let second = try place.start()
            defer { second.stop() }
            let music = try place.result("session.get", ["app": "music"])["session"]
            #expect(music?["active"]?.boolValue == false, "\(music?.text ?? "")")
            #expect(music?["interrupted"]?.boolValue == false, "\(music?.text ?? "")")
            #expect(try place.result("status")["interruption"]?.boolValue == false)
            #expect(second.stderr.contains(#"{"app":"music","name":"mediaServicesWereReset"}"#), "\(second.stderr)")
            _ = try place.result("interrupt", ["type": "end", "reason": "call"])
            #expect(try place.result("session.get", ["app": "music"])["session"]?["active"]?.boolValue == false)
        }

        @Test("an applied graph is back after kill -9; an edited graph file wins, saying what the kept state had")
        func applyThenEditedFile() throws {
            let place = try Place(client: "t-kept-apply")
            let first = try place.start()
            defer { first.stop() }
            var text = try String(contentsOfFile: place.graph, encoding: .utf8)
            text = text.replacingOccurrences(of: #""apps": ["#, with: #""apps": [ { "id": "extra", "role": "app", "plugin": "builtin:oscillator" },"#)
            _ = try place.result("apply", ["text": .string(text)])
            _ = try place.result("set", ["app": "extra", "param": "frequency", "value": 1234])
            try place.kill(first)

            let second = try place.start()
            let extra = try place.result("get", ["app": "extra", "param": "frequency"])
            #expect(extra["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 1234)
            try place.kill(second)

            // The file on disk is edited: it runs, and the start says what it drops.
            let edited = try String(contentsOfFile: place.graph, encoding: .utf8).replacingOccurrences(of: "\"name\"", with: "\"name\" ")
            try edited.write(toFile: place.graph, atomically: true, encoding: .utf8)
            let third = try place.start()
            defer { third.stop() }
            #expect(throws: ControlError.self) { try place.result("get", ["app": "extra"]) }
            let start = try place.result("status")["state"]?["start"]
            #expect(start?["outcome"]?.stringValue == "fileChanged")
            #expect(start?["dropped"]?.arrayValue?.contains(.string("app extra")) == true, "\(start?.text ?? "")")
            #expect(third.stderr.contains("the graph file changed since the state was kept"))
            // From here the edited file is the one the state grows from.
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 330])
            try place.kill(third)
            let fourth = try place.start()
            defer { fourth.stop() }
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 330)
        }

        @Test("two graph files under one client name keep their own state; a start that fails on JACK says nothing of dropping and changes nothing")
        func eachGraphItsOwnState() throws {
            let place = try Place(client: "t-kept-two")
            let other = place.folder + "/demo.json"
            try FileManager.default.copyItem(atPath: Repository.path("graphs/demo.json"), toPath: other)
            let startOther = {
                try EngineProcess(graph: other, client: place.client, environment: ["XDG_STATE_HOME": place.state],
                                  arguments: ["--socket", place.socket])
            }
            let first = try place.start()
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 700])
            first.stop()
            let demo = try startOther()
            #expect(!demo.stderr.contains("dropped"), "\(demo.stderr)")
            _ = try place.result("set", ["app": "tone", "param": "frequency", "value": 500])
            // A second engine under the same client name: JACK refuses it, and it says nothing
            // about the kept state it never used.
            let refused = try runCommand(Repository.binary, ["run", place.graph, "-n", place.client, "--socket", place.folder + "/other.sock"],
                                         environment: ["XDG_STATE_HOME": place.state], timeout: 30)
            #expect(refused.status != 0)
            #expect(!refused.stderr.contains("kept state"), "\(refused.stderr)")
            demo.stop()
            let again = try place.start()
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 700)
            #expect(again.stderr.contains("kept state: resumed"), "\(again.stderr)")
            #expect(!again.stderr.contains("dropped"), "\(again.stderr)")
            again.stop()
            let demoAgain = try startOther()
            defer { demoAgain.stop() }
            #expect(try place.result("get", ["app": "tone", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 500)
        }

        @Test("--fresh starts from the file; --no-state keeps nothing")
        func freshAndNoState() throws {
            let place = try Place(client: "t-kept-fresh")
            let first = try place.start()
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 300])
            try place.kill(first)
            let fresh = try place.start(["--fresh"])
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 220)
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 310])
            fresh.stop()
            let none = try place.start(["--no-state"])
            #expect(try place.result("status")["state"]?["kept"]?.boolValue == false)
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 220)
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 320])
            try place.kill(none)
            // A clean stop wrote a snapshot with 310; --no-state changed none of it.
            let again = try place.start()
            defer { again.stop() }
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 310)
        }

        /// The state folder on a tiny filesystem of its own (CI runs as root), filled up. A change
        /// whose record fits the space SQLite's log already holds is kept, as it should be; once
        /// the log must grow, changes are refused with `notDurable` and change nothing. `apply`
        /// needs a new snapshot file, so it is refused at once, and undone.
        @Test("a full state folder: apply, then set, connect and a session action are refused with notDurable and change nothing")
        func fullDiskRefuses() throws {
            let place = try Place(client: "t-kept-full")
            try FileManager.default.createDirectory(atPath: place.state, withIntermediateDirectories: true)
            let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", place.state])
            try #require(mount.status == 0, "mounting a tmpfs needs root: \(mount.output)")
            defer { _ = try? runCommand("/bin/umount", ["-l", place.state]) }
            let engine = try place.start()
            defer { engine.stop() }
            let filler = place.state + "/filler"
            _ = try runCommand("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k", "count=1000"])
            let dumped = try place.result("dump", ["graph": true])["file"]?.stringValue
            let text = try String(contentsOfFile: place.graph, encoding: .utf8)
            let apply = try place.call("apply", ["text": .string(text.replacingOccurrences(
                of: #""apps": ["#, with: #""apps": [ { "id": "extra", "role": "app", "plugin": "builtin:oscillator" },"#))])
            guard case .failure(let applyError) = apply else {
                Issue.record("apply was acknowledged on a full disk")
                return
            }
            #expect(applyError.code == "notDurable" && applyError.message.contains("not applied"), "\(applyError.message)")
            #expect(try place.result("dump", ["graph": true])["file"]?.stringValue == dumped)

            var acknowledged = 220.0, refusal: ControlError?
            for value in stride(from: 300.0, to: 3300.0, by: 1) {
                switch try place.call("set", ["app": "music", "param": "frequency", "value": .number(value)]) {
                case .success: acknowledged = value
                case .failure(let error): refusal = error
                }
                if refusal != nil { break }
            }
            let error = try #require(refusal, "3,000 changes were kept on a full 1 MB filesystem")
            #expect(error.code == "notDurable", "\(error.code) \(error.message)")
            #expect(error.message.contains(place.state) && error.message.contains("--no-state"), "\(error.message)")
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == acknowledged)
            let stillRefused: [(String, ControlJSON)] = [
                ("connect", ["from": "t-kept-full:game.out", "to": "system:playback_2"]),
                ("app.foreground", ["app": "nav"]),
            ]
            let before = try place.result("dump", ["graph": true])["file"]?.stringValue
            for (method, params) in stillRefused {
                guard case .failure(let error) = try place.call(method, params) else {
                    Issue.record("\(method) was acknowledged on a full disk")
                    continue
                }
                #expect(error.code == "notDurable", "\(method): \(error.code) \(error.message)")
            }
            #expect(try place.result("dump", ["graph": true])["file"]?.stringValue == before)
            #expect(try place.result("status")["state"]?["refusing"]?.stringValue != nil)
            // Space again: kept again, and what was acknowledged is what a restart finds.
            unlink(filler)
            _ = try place.result("set", ["app": "music", "param": "frequency", "value": 299])
            #expect(try place.result("status")["state"]?["refusing"] == .null)
            try place.kill(engine)
            let again = try place.start()
            defer { again.stop() }
            #expect(try place.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue == 299)
        }
    }
}
