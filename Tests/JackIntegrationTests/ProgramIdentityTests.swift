import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// Which process is a program app's (docs/programs.md, "Who may be an app"): a JACK client of
    /// the engine's own server only, found however busy the machine is, and an admitted app's
    /// session spoken for by its own program only. Real processes: `mpv`, and python JACK clients
    /// (`python3-jack-client`) that can also speak the control protocol.
    @Suite("Program identity: this server's clients, their own sessions", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ProgramIdentityTests {
        typealias Running = ControlPlaneTests.Running

        /// A JACK client that registers one output and stays: `NAME SERVER`, then optionally
        /// `--sockets N` (Unix socket pairs opened first, so /proc/net/unix is long) and
        /// `--attach SOCKET` (once the engine has bound it to app NAME, it asks `program.attach`
        /// for that app and prints the reply).
        static let client = #"""
            import jack, json, socket, sys, time
            name, server = sys.argv[1], sys.argv[2]
            args = sys.argv[3:]
            spare = [socket.socketpair() for _ in range(int(args[args.index("--sockets") + 1]) if "--sockets" in args else 0)]
            c = jack.Client(name, servername=server, no_start_server=True)
            c.outports.register("out_0")
            c.activate()
            if "--attach" in args:
                s = socket.socket(socket.AF_UNIX)
                s.connect(args[args.index("--attach") + 1])
                lines = s.makefile()
                def call(method, **params):
                    s.sendall(json.dumps({"id": 1, "method": method, "params": params}).encode() + b"\n")
                    return json.loads(lines.readline())
                # Attach once the engine has bound this JACK client to its admitted app.
                for _ in range(200):
                    apps = call("status")["result"]["apps"]
                    if any(a["id"] == name and a["program"]["clients"] for a in apps): break
                    time.sleep(0.05)
                print(json.dumps(call("program.attach", app=name)), flush=True)
            time.sleep(120)
            """#

        struct Folder {
            let url: URL
            let script: String
            let output: String

            init() throws {
                url = try JackHarness.temporaryDirectory()
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
                script = url.appendingPathComponent("client.py").path
                output = url.appendingPathComponent("client.out").path
                try ProgramIdentityTests.client.write(toFile: script, atomically: true, encoding: .utf8)
            }

            func remove() { try? FileManager.default.removeItem(at: url) }
        }

        /// A python JACK client on `server`.
        func python(_ folder: Folder, _ name: String, server: String, _ extra: [String] = []) throws -> ProgramProcess {
            try ProgramProcess("/usr/bin/python3", [folder.script, name, server] + extra)
        }

        func graph(_ folder: Folder, apps: String, admit: String? = nil) throws -> String {
            let programs = admit.map { #", "programs": { "admit": \#($0) }"# } ?? ""
            let text = """
                { "format": "iaa-graph/1", "name": "identity",
                  "apps": [ \(apps), { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ]\(programs) }
                """
            let path = folder.url.appendingPathComponent("identity.json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// A graph with a `tone` app that admits programs named `clients`, at most `limit`, into `mix:in_1`.
        func admissionGraph(_ folder: Folder, clients: String, limit: Int) throws -> String {
            try graph(folder, apps: #"{ "id": "tone", "plugin": "builtin:oscillator" }"#, admit: """
                { "jackClient": "\(clients)", "outputs": 1, "limit": \(limit),
                  "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"],
                  "to": "mix:in_1" }
                """)
        }

        func app(_ running: Running, _ id: String) throws -> ControlJSON? {
            try running.result("status")["apps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
        }

        @Test("a client named like the app on this server is refused by its own executable while a real mpv of that name plays on another server; a real mpv on this server is the app, with its own pid")
        func identityIsThisServers() throws {
            let folder = try Folder()
            defer { folder.remove() }
            let tag = "tid\(UInt16.random(in: 0...9_999))"
            let other = PrivateJackServer(prefix: "iaa-restart")
            try other.start()
            defer { other.stop() }
            let server = try #require(JackHarness.server)
            let path = try graph(folder, apps: """
                { "id": "music", "program": { "jackClient": "\(tag)*", "executable": "/usr/bin/mpv", "outputs": 1 },
                  "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"] }
                """)
            let running = try Running(graph: path, client: "t-pid")
            defer { running.stop() }
            let tone = folder.url.appendingPathComponent("tone.wav").path
            #expect(try runCommand("sox", ["-n", "-r", "48000", "-c", "1", tone, "synth", "2", "sine", "440"]).status == 0)
            // env execs mpv: the pid is mpv's.
            func mpv(_ name: String, on server: String) throws -> ProgramProcess {
                try ProgramProcess("/usr/bin/env", ["JACK_DEFAULT_SERVER=\(server)", "/usr/bin/mpv", "--no-config", "--no-video", "--no-terminal",
                                                    "--ao=jack", "--jack-name=\(name)", "--jack-autostart=no", "--jack-connect=no",
                                                    "--loop=inf", tone])
            }
            // The real mpv, on the other server, first: it holds the notification socket path.
            let elsewhere = try mpv("\(tag)mpv", on: other.name)
            defer { elsewhere.stop() }
            #expect(waitUntil(seconds: 10) { other.lsp().contains("\(tag)mpv:") }, "mpv did not start on \(other.name)")
            let impostor = try python(folder, "\(tag)mpv", server: server)
            defer { impostor.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "music")?["program"]?["refused"]?.arrayValue?.isEmpty == false },
                    "the impostor was not refused: \(running.engine.stderr)")
            let refusal = try app(running, "music")?["program"]?["refused"]?.arrayValue?.first
            #expect(refusal?["pid"]?.intValue == Int(impostor.process.processIdentifier), "\(String(describing: refusal))")
            #expect(refusal?["reason"]?.stringValue?.contains("its executable is /usr/bin/python3") == true, "\(String(describing: refusal))")
            #expect(try app(running, "music")?["program"]?["clients"]?.arrayValue?.isEmpty == true)
            #expect(try jackConnections()["t-pid:music.play_1"]?.isEmpty != false)

            let real = try mpv("\(tag)here", on: server)
            defer { real.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "music")?["program"]?["clients"]?.arrayValue?.count == 1 },
                    "the real mpv was not bound: \(running.engine.stderr)")
            let client = try app(running, "music")?["program"]?["clients"]?.arrayValue?.first
            #expect(client?["name"]?.stringValue == "\(tag)here")
            #expect(client?["pid"]?.intValue == Int(real.process.processIdentifier))
        }

        @Test("a program's pid is found, in programAdmitted and status, while the machine has hundreds of other Unix sockets")
        func pidWithManySockets() throws {
            let folder = try Folder()
            defer { folder.remove() }
            let path = try admissionGraph(folder, clients: "t-ps-*", limit: 2)
            let running = try Running(graph: path, client: "t-ps")
            defer { running.stop() }
            // 400 pairs: /proc/net/unix grows by about 45 KB, most of it before this client's line.
            let busy = try python(folder, "t-ps-busy", server: try #require(JackHarness.server), ["--sockets", "400"])
            defer { busy.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "t-ps-busy") != nil }, "not admitted: \(running.engine.stderr)")
            let pid = Int(busy.process.processIdentifier)
            #expect(running.engine.stderr.contains(#""app":"t-ps-busy","name":"programAdmitted","client":"t-ps-busy","pid":\#(pid)"#),
                    "\(running.engine.stderr)")
            #expect(try app(running, "t-ps-busy")?["program"]?["clients"]?.arrayValue?.first?["pid"]?.intValue == pid)
        }

        @Test("an admitted app's session is spoken for by its own program only: another process of the same user is refused, the program itself attaches")
        func admittedAttachIsTheProgramsOnly() throws {
            let folder = try Folder()
            defer { folder.remove() }
            let path = try admissionGraph(folder, clients: "t-ao-*", limit: 2)
            let running = try Running(graph: path, client: "t-ao")
            defer { running.stop() }
            let server = try #require(JackHarness.server)
            let player = try python(folder, "t-ao-player", server: server)
            defer { player.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "t-ao-player") != nil }, "not admitted: \(running.engine.stderr)")
            let stranger = try ControlClient(path: running.socket)
            guard case .failure(let refused) = try stranger.call("program.attach", params: ["app": "t-ao-player"]) else {
                Issue.record("another process attached to an admitted app")
                return
            }
            #expect((refused.code, refused.field) == ("notOwner", "app"))
            #expect(refused.message.contains("pid \(player.process.processIdentifier)"), "\(refused.message)")
            #expect(try app(running, "t-ao-player")?["program"]?["attached"] == .null)
            #expect(try app(running, "t-ao-player")?["session"]?["active"]?.boolValue == true)

            // The program itself: its JACK client and its session connection in one process.
            let own = try ProgramProcess("/bin/sh", ["-c", "exec /usr/bin/python3 \"$0\" t-ao-self \"$1\" --attach \"$2\" > \"$3\"",
                                                     folder.script, server, running.socket, folder.output])
            defer { own.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "t-ao-self")?["program"]?["attached"]?.intValue == Int(own.process.processIdentifier) },
                    "the program could not attach to its own app: \((try? String(contentsOfFile: folder.output, encoding: .utf8)) ?? "") \(running.engine.stderr)")
        }

        @Test("a client refused for the limit is told which apps are in, those admitted in the same pass included")
        func limitReasonNamesTheAdmitted() throws {
            let folder = try Folder()
            defer { folder.remove() }
            let path = try admissionGraph(folder, clients: "t-al-*", limit: 1)
            let running = try Running(graph: path, client: "t-al")
            defer { running.stop() }
            let server = try #require(JackHarness.server)
            let first = try python(folder, "t-al-a", server: server)
            defer { first.stop() }
            #expect(try waitUntil(seconds: 10) { try app(running, "t-al-a") != nil })
            let second = try python(folder, "t-al-b", server: server)
            defer { second.stop() }
            let third = try python(folder, "t-al-c", server: server)
            defer { third.stop() }
            func refused() throws -> [ControlJSON] { try running.result("status")["programs"]?["refused"]?.arrayValue ?? [] }
            #expect(try waitUntil(seconds: 10) { try refused().count == 2 }, "\(running.engine.stderr)")
            // The first leaves: one of the two waiting is admitted, and the other's reason names it.
            first.stop()
            #expect(try waitUntil(seconds: 10) { try app(running, "t-al-b") != nil || app(running, "t-al-c") != nil })
            let admitted = try app(running, "t-al-b") != nil ? "t-al-b" : "t-al-c"
            #expect(try waitUntil(seconds: 5) { try refused().count == 1 })
            let reason = try refused().first?["reason"]?.stringValue ?? ""
            #expect(reason.contains("and 1 are in (\(admitted))"), "\(reason)")
        }
    }
}
