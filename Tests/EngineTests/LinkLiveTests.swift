import AudioGraph
import ControlSocket
@testable import Engine
import Foundation
import GraphFormat
import Links
import Synchronization
import Testing

/// Link ends in the live core, on the in-memory server, with stand-in bridges the test speaks
/// for: which bridge is started, which JACK client is bound, what status, events and dump say.
@Suite("Link ends in the live engine")
struct LinkLiveTests {
    /// Bridges the engine asked for, each reporting what the test tells it to.
    final class StandIns: Sendable {
        final class StandIn: Bridge {
            let executable: String
            let arguments: [String]
            let report: @Sendable (BridgeEvent) -> Void
            let stopped = Atomic<Bool>(false)

            init(_ executable: String, _ arguments: [String], _ report: @escaping @Sendable (BridgeEvent) -> Void) {
                self.executable = executable
                self.arguments = arguments
                self.report = report
            }

            func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }
            func retryNow() {}
            let restarts = Atomic<Int>(0)
            func restart() { restarts.add(1, ordering: .sequentiallyConsistent) }
            var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }
        }

        let started = Mutex<[StandIn]>([])
        var starter: LinkSupervisor.Starter {
            { [self] executable, arguments, report in
                let standIn = StandIn(executable, arguments, report)
                started.withLock { $0.append(standIn) }
                return standIn
            }
        }
        var all: [StandIn] { started.withLock { $0 } }
    }

    static func graph(port: Int = 30100) -> String {
        """
        { "format": "iaa-graph/1", "name": "rear",
          "apps": [ { "id": "fromHead", "link": { "receive": "0.0.0.0:\(port)", "channels": 2, "buffer": 20 } },
                    { "id": "toHead", "link": { "send": "10.0.0.1:30200", "channels": 1 } },
                    { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
          "connections": [ { "from": "fromHead:out_1", "to": "mix:in_1" }, { "from": "fromHead:out_2", "to": "mix:in_2" },
                           { "from": "mix:out", "to": "toHead:in_1" } ] }
        """
    }

    static let zita = "/usr/bin/zita-n2j"

    @Test("@playback is the machine's playback ports, not a link bridge's, though zita-j2n registers its inputs as physical: the rule and a request leave the bridge alone")
    func playbackIsNotALink() throws {
        let bridges = StandIns()
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "head",
              "apps": [ { "id": "tone", "plugin": "builtin:oscillator" }, { "id": "toRear", "link": { "send": "10.0.0.2:30100", "channels": 1 } } ],
              "connections": [ { "from": "tone:out", "to": "toRear:in_1" } ],
              "jack": { "connections": [ { "from": "tone:out", "to": "@playback" } ] } }
            """, client: "head", bridges: bridges.starter)
        live.backend.addClient("toRear-link", outputs: [], inputs: ["in_1"], process: LiveCore.process(903, "/usr/bin/zita-j2n"), physical: true)
        _ = live.tick { true }
        let fromTone = { live.backend.allConnections.filter { $0.first == "head:tone.out" }.map { $0[1] }.sorted() }
        #expect(fromTone() == ["system:playback_1", "system:playback_2"])
        _ = try live.result("disconnect", ["from": "tone:out", "to": "@playback"])
        _ = try live.result("connect", ["from": "tone:out", "to": "@playback"])
        #expect(fromTone() == ["system:playback_1", "system:playback_2"])
        let rule = try live.result("status")["rules"]?.arrayValue?.first
        #expect(rule?["state"]?.stringValue == "made", "\(rule?.text ?? "no rule")")
    }

    @Test("a receiving end with \"from\" restarts its bridge when it hears another sender, says whom it refused, and keeps the one it names; dump writes \"from\" back")
    func refusesOtherSenders() throws {
        let bridges = StandIns()
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "rear",
              "apps": [ { "id": "fromHead", "link": { "receive": "0.0.0.0:30100", "channels": 2, "from": "10.0.0.1" } } ] }
            """, client: "rear", bridges: bridges.starter)
        let receive = try #require(bridges.all.first)
        receive.report(.started(pid: 901))
        for line in ["Waiting for info packet...", "From 10.0.0.66 : 2 chan, 48000 Hz"] { receive.report(.line(BridgeSignal(line: Substring(line)))) }
        live.settle()
        #expect(receive.restarts.load(ordering: .sequentiallyConsistent) == 1)
        let link = try live.app("fromHead")?["link"]
        #expect(link?["state"]?.stringValue == "restarting")
        let reasons = live.events("linkState").compactMap { $0["reason"]?.stringValue }
        #expect(reasons.contains { $0.contains("sender 10.0.0.66 refused") && $0.contains("from 10.0.0.1 only") }, "\(reasons)")
        // Started again, it hears the sender the link names: no restart, it locks.
        receive.report(.exited("ended by the engine to be started again"))
        receive.report(.started(pid: 902))
        for line in ["From 10.0.0.1 : 2 chan, 48000 Hz", "Syncing...", "Receiving."] { receive.report(.line(BridgeSignal(line: Substring(line)))) }
        live.settle()
        #expect(receive.restarts.load(ordering: .sequentiallyConsistent) == 1)
        #expect(try live.app("fromHead")?["link"]?["state"]?.stringValue == "running")
        let file = try #require(try live.result("dump", ["graph": true])["file"]?.stringValue)
        let dumped = try ControlJSONParser.parse(file)
        #expect(dumped["apps"]?.arrayValue?.first?["link"]?["from"]?.stringValue == "10.0.0.1", "\(file)")
    }

    @Test("a bridge locking to a sender for longer than the limit is started again, and says why")
    func stuckLockingRestarts() throws {
        let bridges = StandIns()
        let live = try LiveCore("""
            { "format": "iaa-graph/1", "name": "rear",
              "apps": [ { "id": "fromHead", "link": { "receive": "0.0.0.0:30100", "channels": 2 } } ] }
            """, client: "rear", bridges: bridges.starter)
        live.core.queue.sync { live.core.links.lockingLimit = 0.2 }
        let receive = try #require(bridges.all.first)
        receive.report(.started(pid: 901))
        for line in ["From 10.0.0.9 : 2 chan, 65152 Hz", "Syncing..."] { receive.report(.line(BridgeSignal(line: Substring(line)))) }
        live.settle()
        #expect(try live.app("fromHead")?["link"]?["state"]?.stringValue == "locking")
        #expect(live.tick { receive.restarts.load(ordering: .sequentiallyConsistent) == 1 }, "the bridge stuck locking was not restarted")
        let reasons = live.events("linkState").compactMap { $0["reason"]?.stringValue }
        #expect(reasons.contains { $0.contains("locking to sender 10.0.0.9 (65152 Hz) for more than") }, "\(reasons)")
    }

    @Test("each end's bridge is started with its arguments; only the process started is bound; its lines make the state status and events show")
    func bindsTheBridgeItStarted() throws {
        let bridges = StandIns()
        let live = try LiveCore(Self.graph(), client: "rear", bridges: bridges.starter)
        let started = bridges.all
        try #require(started.count == 2)
        let receive = try #require(started.first { $0.arguments.contains("--buff") })
        #expect(receive.executable.hasSuffix("zita-n2j"))
        #expect(receive.arguments == ["--jname", "fromHead-link", "--chan", "1-2", "--buff", "20", "--info", "0.0.0.0", "30100"])
        #expect(try live.app("fromHead")?["link"]?["state"]?.stringValue == "starting")
        #expect(try live.app("fromHead")?["link"]?["latency"]?.intValue == 960, "20 ms at 48 kHz")
        // A client with the bridge's name before the bridge is known to have started: neither
        // bound nor refused, so that the bridge, once started, is bound.
        live.backend.addClient("fromHead-link", outputs: ["out_1", "out_2"], process: LiveCore.process(901, Self.zita))
        live.settle()
        #expect(try live.app("fromHead")?["program"]?["clients"]?.arrayValue?.isEmpty == true)
        #expect(live.events("programRefused").isEmpty)
        receive.report(.started(pid: 901))
        live.settle()
        // The client waiting for its bridge to be known is looked at again on a tick.
        #expect(try live.tick { try live.app("fromHead")?["program"]?["clients"]?.arrayValue?.first?["pid"]?.intValue == 901 },
                "the bridge's client was not bound: \(String(describing: (try? live.app("fromHead"))??["program"]))")
        #expect(live.backend.allConnections.contains(["fromHead-link:out_2", "rear:fromHead.play_2"]))
        // Another process under the bridge's name is refused.
        live.backend.removeClient("fromHead-link")
        live.backend.addClient("fromHead-link", outputs: ["out_1", "out_2"], process: LiveCore.process(902, Self.zita))
        live.settle()
        let refused = try live.app("fromHead")?["program"]?["refused"]?.arrayValue?.first
        #expect(refused?["reason"]?.stringValue == "it is not the bridge this engine started for the link (pid 901)")
        // The bridge's own words make the state.
        for line in ["Waiting for info packet...", "From 10.0.0.1 : 2 chan, 48000 Hz", "Syncing...", "Receiving."] {
            receive.report(.line(BridgeSignal(line: Substring(line))))
        }
        live.settle()
        let link = try live.app("fromHead")?["link"]
        #expect(link?["state"]?.stringValue == "running")
        #expect(link?["sender"]?["address"]?.stringValue == "10.0.0.1")
        #expect(link?["pid"]?.intValue == 901)
        let states = live.events("linkState").filter { $0["app"]?.stringValue == "fromHead" }.map { $0["state"]?.stringValue ?? "" }
        #expect(states == ["waiting", "locking", "running"])
    }

    @Test("a changed link gets a new bridge and the old one is stopped (its late words ignored); dump writes the link blocks back and they load")
    func applyAndDump() throws {
        let bridges = StandIns()
        let live = try LiveCore(Self.graph(), client: "rear", bridges: bridges.starter)
        let old = try #require(bridges.all.first { $0.arguments.contains("--buff") })
        _ = try live.result("apply", ["text": .string(Self.graph(port: 30104)), "file": "rear.json"])
        #expect(old.isStopped)
        let all = bridges.all
        #expect(all.count == 3, "the sending end, unchanged, keeps its bridge")
        let new = try #require(all.last)
        #expect(new.arguments.suffix(2) == ["0.0.0.0", "30104"])
        old.report(.started(pid: 77))
        live.settle()
        #expect(try live.app("fromHead")?["link"]?["pid"] == .null, "a stopped bridge's report counts for nothing")
        let dumped = try #require(try live.result("dump", ["graph": true])["file"]?.stringValue)
        let loaded = GraphFile.load(text: dumped, file: "now.json", registry: GraphLoading.registry)
        #expect(loaded.errors.isEmpty, "\(loaded.errors.map(\.formatted))")
        #expect(loaded.graph?.apps.compactMap(\.link) == [
            LinkEnd(direction: .receive, host: "0.0.0.0", port: 30104, channels: 2, bufferMilliseconds: 20),
            LinkEnd(direction: .send, host: "10.0.0.1", port: 30200, channels: 1),
        ])
    }
}
