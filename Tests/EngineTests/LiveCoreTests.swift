import ControlSocket
@testable import Engine
import Foundation
import GraphFormat
import Testing
import TestKit

/// The live engine's logic on an in-memory server: connection rules, program apps and their
/// identity, admission, a server that dies and comes back, and the replies, in process and
/// without JACK. What only a real server can show (libjack's behaviour, real programs, sound at
/// the sound card) stays in the JACK integration tests.
@Suite("The live core on an in-memory server")
struct LiveCoreTests {
    @Test("a value set stays when a connection makes a new plan of the graph (it used to go back to the file's)")
    func setValueOutlivesReplans() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "set", "apps": [ { "id": "tone", "plugin": "builtin:oscillator" },
              { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
              "connections": [ { "from": "tone:out", "to": "mix:in_1" } ] }
            """)
        _ = try live.result("set", ["app": "tone", "param": "frequency", "value": 300])
        _ = try live.result("connect", ["from": "tone:out", "to": "mix:in_2"])
        _ = try live.result("disconnect", ["from": "tone:out", "to": "mix:in_2"])
        // The disconnection's plan goes in after the fade.
        let plan = live.core.queue.sync { live.core.backend.currentPlan.map(ObjectIdentifier.init) }
        #expect(waitUntil(seconds: 2) { live.core.queue.sync { live.core.backend.currentPlan.map(ObjectIdentifier.init) } != plan })
        let frequency = try live.result("get", ["app": "tone", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]
        #expect(frequency?.doubleValue == 300)
        #expect(live.core.queue.sync { live.core.graph.apps[0].parameters[0] } == 300)
    }

    @Test("during a call every app it interrupted says interrupted, in status and top, the one in the background (suspended too) as the one in front")
    func interruptedBeforeSuspended() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "call",
              "apps": [ { "id": "music", "plugin": "builtin:oscillator", "session": { "category": "playback" },
                          "backgroundModes": ["audio"], "state": "background" },
                        { "id": "game", "plugin": "builtin:noise", "session": { "category": "soloAmbient" }, "state": "foreground" } ] }
            """)
        _ = try live.result("session.activate", ["app": "music"])
        _ = try live.result("session.activate", ["app": "game"])
        _ = try live.result("interrupt", ["type": "begin"])
        let apps = try live.result("status")["apps"]?.arrayValue ?? []
        let sessions = Dictionary(uniqueKeysWithValues: apps.compactMap { app in app["id"]?.stringValue.map { ($0, app["session"]) } })
        #expect(sessions["music"]??["interrupted"]?.boolValue == true && sessions["game"]??["interrupted"]?.boolValue == true)
        // What made the two read differently: the app in the background is suspended as well.
        #expect(sessions["music"]??["suspended"]?.boolValue == true, "\(apps)")
        live.core.queue.sync { live.core.watch.publishTop() }
        let top = try #require(live.lines("top").last.flatMap(TopUpdate.init(json:)))
        #expect(top.apps.map(\.state) == [.interrupted, .interrupted], "\(top.apps)")
    }

    @Test("a rule's pair connected and removed again by requests before JACK's first notification stays removed: the late notification of the connection does not make it a rule again")
    func lateNotificationKeepsTheRemoval() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "held", "apps": [ { "id": "g", "plugin": "builtin:gain" } ],
              "jack": { "connections": [ { "from": "g:out", "to": "system:playback_1" } ] } }
            """)
        let pair = ["iaa:g.out", "system:playback_1"]
        _ = try live.result("disconnect", ["from": "iaa:g.out", "to": "system:playback_1"])
        #expect(live.core.queue.sync { live.core.connections.rules.book.held.contains(pair) })
        // As fast as the engine acknowledges: both requests answered before the server's
        // notifications are taken on the queue, as with jackd under a client that does not wait.
        live.core.queue.sync {
            for method in ["connect", "disconnect"] {
                _ = live.core.handle(ControlRequest(id: 1, method: method, params: ["from": "iaa:g.out", "to": "system:playback_1"],
                                                    peer: ControlPeer(uid: getuid(), pid: 1), connection: 1))
            }
        }
        live.settle()
        #expect(live.core.queue.sync { live.core.connections.rules.book.held.contains(pair) }, "the removal by request was forgotten")
        #expect(!(try live.result("status")["jackConnections"]?.arrayValue ?? []).contains { $0["from"]?.stringValue == "iaa:g.out" && $0["to"]?.stringValue == "system:playback_1" })
    }

    @Test("a rule waits for its program, is made when it starts, stays removed when unplugged, and is made again when the program restarts")
    func rules() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "rules", "apps": [ { "id": "g", "plugin": "builtin:gain" } ],
              "jack": { "connections": [ { "from": "metro:out", "to": "g:in" }, { "from": "g:out", "to": "@playback" } ] } }
            """)
        func rule(_ index: Int) throws -> ControlJSON? { try live.status()["rules"]?.arrayValue?[index] }
        #expect(try rule(0)?["state"]?.stringValue == "pending")
        #expect(try rule(0)?["waitingFor"]?.stringValue == "metro:out")
        #expect(try rule(1)?["state"]?.stringValue == "made")
        #expect(live.backend.isConnected("iaa:g.out", "system:playback_1"))

        live.backend.addClient("metro", outputs: ["out"])
        live.settle()
        #expect(live.backend.isConnected("metro:out", "iaa:g.in"))
        #expect(try rule(0)?["state"]?.stringValue == "made")
        let made = try live.status()["jackConnections"]?.arrayValue?.first { $0["from"]?.stringValue == "metro:out" }
        #expect(made?["rule"]?.stringValue == "metro:out -> g:in")

        // Unplugged by hand: stays so, even on the next pass over the rules.
        #expect(live.backend.disconnect("metro:out", "iaa:g.in"))
        live.settle()
        live.core.queue.sync { live.core.connections.keepRules() }
        #expect(!live.backend.isConnected("metro:out", "iaa:g.in"))
        #expect(try rule(0)?["state"]?.stringValue == "removed")

        // The program restarts: the rule is made again.
        live.backend.removeClient("metro")
        live.settle()
        #expect(try rule(0)?["state"]?.stringValue == "pending")
        live.backend.addClient("metro", outputs: ["out"])
        live.settle()
        #expect(live.backend.isConnected("metro:out", "iaa:g.in"))
        #expect(try rule(0)?["state"]?.stringValue == "made")
    }

    static let programGraph = """
        { "format": "iaa-graph/1", "name": "programs",
          "apps": [
            { "id": "music", "program": { "jackClient": "zz*", "executable": "/usr/bin/mpv", "outputs": 2 },
              "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"] },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
          "connections": [ { "from": "music:out_1", "to": "mix:in_1" }, { "from": "music:out_2", "to": "mix:in_2" } ] }
        """

    @Test("a program app takes the client whose process is its executable, routes it, undoes its bypass, and forgets it when it leaves")
    func programIdentityAndRoute() throws {
        let live = try LiveCore(Self.programGraph)
        live.backend.addClient("zzpy", outputs: ["out_0", "out_1"], process: LiveCore.process(700, "/usr/bin/python3.11"))
        live.settle()
        let refused = try live.app("music")?["program"]?["refused"]?.arrayValue?.first
        #expect(refused?["name"]?.stringValue == "zzpy")
        #expect(refused?["pid"]?.intValue == 700)
        #expect(refused?["reason"]?.stringValue?.contains("its executable is /usr/bin/python3.11") == true)
        #expect(live.events("programRefused").count == 1)

        live.backend.addClient("zzmpv", outputs: ["out_0", "out_1"], process: LiveCore.process(701, "/usr/bin/mpv"))
        live.settle()
        #expect(live.backend.isConnected("zzmpv:out_0", "iaa:music.play_1"))
        #expect(live.backend.isConnected("zzmpv:out_1", "iaa:music.play_2"))
        #expect(!live.backend.isConnected("zzpy:out_0", "iaa:music.play_1"))
        let client = try live.app("music")?["program"]?["clients"]?.arrayValue?.first
        #expect(client?["pid"]?.intValue == 701)
        #expect(live.events("programRouted").first?["pid"]?.intValue == 701)

        // mpv connects itself to the speakers: undone, said so.
        _ = live.backend.connect("zzmpv:out_0", "system:playback_1")
        live.settle()
        #expect(!live.backend.isConnected("zzmpv:out_0", "system:playback_1"))
        #expect(live.events("programBypassUndone").first?["to"]?.stringValue == "system:playback_1")

        live.backend.removeClient("zzmpv")
        live.settle()
        #expect(try live.app("music")?["program"]?["running"]?.boolValue == false)
        #expect(live.events("programExited").first?["client"]?.stringValue == "zzmpv")
        // The app stays (it is the graph's), not running, its session as it was.
        #expect(try live.app("music")?["session"]?["active"]?.boolValue == true)
    }

    @Test("a program that registers its ports one at a time ends routed as if it had registered them together: the mono fan-out of its first port is undone")
    func programPortsOneAtATime() throws {
        let live = try LiveCore(Self.programGraph)
        let mpv = LiveCore.process(702, "/usr/bin/mpv")
        live.backend.addClient("zzmpv", outputs: ["out_0"], process: mpv)
        live.settle()
        // One output for the app's two: it feeds both, as a mono program should.
        #expect(live.backend.isConnected("zzmpv:out_0", "iaa:music.play_1"))
        #expect(live.backend.isConnected("zzmpv:out_0", "iaa:music.play_2"))
        live.backend.addClient("zzmpv", outputs: ["out_1"], process: mpv)
        live.settle()
        #expect(live.backend.connections(of: "iaa:music.play_1") == ["zzmpv:out_0"])
        #expect(live.backend.connections(of: "iaa:music.play_2") == ["zzmpv:out_1"])
        let client = try live.app("music")?["program"]?["clients"]?.arrayValue?.first
        #expect(client?["ports"]?.arrayValue?.count == 2, "\(String(describing: client))")
    }

    @Test("a client whose process cannot be told is refused where the app names an executable")
    func unknownProcessRefused() throws {
        let live = try LiveCore(Self.programGraph)
        live.backend.addClient("zzghost", outputs: ["out_0"])
        live.settle()
        let refused = try live.app("music")?["program"]?["refused"]?.arrayValue?.first
        #expect(refused?["pid"] == .null)
        #expect(refused?["reason"]?.stringValue?.contains("its process cannot be found") == true)
    }

    static func admissionGraph(limit: Int) -> String {
        """
        { "format": "iaa-graph/1", "name": "admission",
          "apps": [ { "id": "speakers", "plugin": "builtin:mixer", "params": { "inputs": 1 } } ],
          "programs": { "admit": { "jackClient": "p-*", "outputs": 1, "limit": \(limit),
            "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"],
            "to": "speakers:in_1" } } }
        """
    }

    @Test("programs the graph does not name are admitted up to the limit; when one leaves, a waiting one is admitted and the other's reason names it")
    func admissionLimit() throws {
        let live = try LiveCore(Self.admissionGraph(limit: 1))
        live.backend.addClient("p-a", outputs: ["out"], process: LiveCore.process(801, "/usr/bin/mpv"))
        live.settle()
        #expect(try live.app("p-a")?["program"]?["admitted"]?.boolValue == true)
        #expect(live.backend.isConnected("p-a:out", "iaa:p-a.play_1"))
        #expect(live.events("programAdmitted").first?["pid"]?.intValue == 801)
        live.backend.addClient("p-b", outputs: ["out"], process: LiveCore.process(802, "/usr/bin/mpv"))
        live.backend.addClient("p-c", outputs: ["out"], process: LiveCore.process(803, "/usr/bin/mpv"))
        live.settle()
        func refused() throws -> [ControlJSON] { try live.status()["programs"]?["refused"]?.arrayValue ?? [] }
        #expect(try refused().count == 2)
        #expect(try refused().first?["reason"]?.stringValue?.contains("and 1 are in (p-a)") == true)

        live.backend.removeClient("p-a")
        live.settle()
        #expect(try live.app("p-a") == nil)
        #expect(live.events("programRemoved").first?["app"]?.stringValue == "p-a")
        let admitted = try live.app("p-b") != nil ? "p-b" : "p-c"
        #expect(try live.app(admitted) != nil)
        #expect(try refused().count == 1)
        #expect(try refused().first?["reason"]?.stringValue?.contains("and 1 are in (\(admitted))") == true)
    }

    @Test("program.attach from a connection whose process ran another program when it connected (it exec'd the app's program since) is refused; from the program's own connection it binds")
    func attachChecksTheProgramThatConnected() throws {
        let own = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "who",
              "apps": [ { "id": "player", "program": { "executable": "\(own)", "outputs": 0 }, "session": { "category": "playback" } } ] }
            """)
        func attach(connectedAs executable: String, connection: UInt64) -> ControlReply {
            live.core.queue.sync {
                live.core.handle(ControlRequest(id: 1, method: "program.attach", params: ["app": "player"],
                                                peer: ControlPeer(uid: getuid(), pid: getpid(), executable: executable), connection: connection))
            }
        }
        guard case .error(let refused) = attach(connectedAs: "/usr/bin/python3.11", connection: 7) else {
            Issue.record("a process that connected as python3 attached as \(own)")
            return
        }
        #expect(refused.code == "notOwner" && refused.message.contains("connected running /usr/bin/python3.11"), "\(refused.message)")
        #expect(try live.app("player")?["program"]?["attached"] == .null)
        guard case .stream = attach(connectedAs: own, connection: 8) else {
            Issue.record("the program's own connection did not attach")
            return
        }
        #expect(try live.app("player")?["program"]?["attached"]?.intValue == Int(getpid()))
    }

    @Test("an admitted app is attached by its own program only; a stranger's attach changes nothing")
    func admittedAttach() throws {
        let live = try LiveCore(Self.admissionGraph(limit: 2))
        live.backend.addClient("p-player", outputs: ["out"], process: LiveCore.process(901, "/usr/bin/mpv"))
        live.settle()
        let stranger = live.refusal("program.attach", ["app": "p-player"], pid: 999, connection: 7)
        #expect(stranger?.code == "notOwner")
        #expect(stranger?.message.contains("pid 901") == true)
        #expect(try live.app("p-player")?["program"]?["attached"] == .null)
        let own = try live.result("program.attach", ["app": "p-player"], pid: 901, connection: 8)
        #expect(own["pid"]?.intValue == 901)
        #expect(try live.app("p-player")?["program"]?["attached"]?.intValue == 901)
    }

    @Test("the server dies and comes back: apps hear mediaServicesWereLost then Reset, and the same ports and connections return")
    func serverRestart() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "restart",
              "apps": [ { "id": "tone", "plugin": "builtin:oscillator", "session": { "category": "playback", "active": true } },
                        { "id": "g", "plugin": "builtin:gain" } ],
              "jack": { "connections": [ { "from": "tone:out", "to": "@playback" } ] } }
            """)
        // Made by hand, as jack_connect would: restored too.
        #expect(live.backend.connect("system:capture_1", "iaa:g.in").result == .connected)
        live.settle()
        let before = live.backend.allConnections.map { $0.joined(separator: " -> ") }.sorted()
        live.backend.shutDownServer()
        live.core.queue.sync { live.core.serverLost() }
        #expect(live.events("mediaServicesWereLost").count == 1)

        let again = MemoryBackend(clientName: "iaa")
        try live.core.queue.sync { try live.core.serverBack(again) }
        live.settle()
        #expect(again.allConnections.map { $0.joined(separator: " -> ") }.sorted() == before)
        #expect(live.events("mediaServicesWereReset").count == 1)
        #expect(again.allPortNames().contains("iaa:tone.out"))
    }

    @Test("replies: status carries the transport's bar and beat; set, get and an unknown method answer as the protocol says")
    func replies() throws {
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "r", "apps": [ { "id": "tone", "plugin": "builtin:oscillator", "session": {} } ] }
            """)
        let transport = try #require(try live.status()["transport"])
        #expect(transport["bar"]?.intValue == 1 && transport["beat"]?.intValue == 1 && transport["tempo"]?.doubleValue == 120)
        _ = try live.result("set", ["app": "tone", "param": "frequency", "value": "330"])
        let value = try live.result("get", ["app": "tone", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]?.doubleValue
        #expect(value == 330)
        #expect(live.refusal("no.such.method")?.code == "unknownMethod")
        // A session action's reply reads back as the protocol's Outcome, sessions keyed by app.
        let outcome = try #require(ActionOutcome(json: try live.result("session.setCategory", ["app": "tone", "category": "playback"])))
        #expect(outcome.sessions.map(\.app) == ["tone"])
        #expect(outcome.sessions.first?.session["category"]?.stringValue == "playback")
        #expect(live.refusal("set", ["app": "tone", "param": "frequency", "value": 1e9])?.code == "parameterOutOfRange")
    }

    @Test("dump --graph of a running graph with a routed program validates and holds no program route")
    func dumpWithProgram() throws {
        let live = try LiveCore(Self.programGraph)
        live.backend.addClient("zzmpv", outputs: ["out_0", "out_1"], process: LiveCore.process(701, "/usr/bin/mpv"))
        live.settle()
        let file = try #require(try live.result("dump", ["graph": true])["file"]?.stringValue)
        let loaded = GraphFile.load(text: file, file: "now.json", registry: GraphLoading.registry)
        #expect(loaded.errors.isEmpty, "\(loaded.errors.map(\.formatted))")
        #expect(!file.contains("play_"), "\(file)")
    }
}
