import AudioGraph
import RenderCore
@testable import Engine
import Foundation
import GraphFormat
import Synchronization
import Testing

/// ``EngineConnections`` alone, on a ``StandInHost``: no engine core. What the core does with a
/// notice (events, sessions, kept state) is the live core's tests'.
@Suite("The engine's JACK connections, on a stand-in host")
struct EngineConnectionsTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "wiring", "apps": [ { "id": "g", "plugin": "builtin:gain" } ],
          "jack": { "connections": [ { "from": "metro:out", "to": "g:in" }, { "from": "g:out", "to": "@playback" } ] } }
        """

    @Test("the rules are made where their ports exist, a missing one warns with the closest port, and the route is our outputs reaching outside")
    func makesRules() throws {
        let host = try StandInHost(Self.graph)
        host.server.addClient("metre", outputs: ["out"])
        let connections = EngineConnections(host: host, clientName: "iaa", queue: DispatchQueue(label: "test"))
        let warnings = connections.make(host.graph.externalConnections)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("metro:out") == true && warnings.first?.contains("metre:out") == true, "\(warnings)")
        #expect(host.server.isConnected("iaa:g.out", "system:playback_1"))
        #expect(connections.routeAvailable)
        #expect(connections.rulePairs() == [["iaa:g.out", "system:playback_1"], ["iaa:g.out", "system:playback_2"]])
    }

    @Test("a notification is ours once per request, a refused request is forgotten, and the route changes with the last output outside")
    func notices() throws {
        let host = try StandInHost(Self.graph)
        let connections = EngineConnections(host: host, clientName: "iaa", queue: DispatchQueue(label: "test"))
        _ = connections.make(host.graph.externalConnections)
        // The rules' own connections were asked for: their notifications are ours.
        #expect(connections.notified("iaa:g.out", "system:playback_1", connected: true).ours)
        #expect(!connections.notified("iaa:g.out", "system:playback_1", connected: true).ours, "one notification per request")

        // JACK refuses to break a connection there is not: no notification will come for it.
        #expect(!connections.disconnect("iaa:g.out", "system:capture_1"))
        #expect(!connections.notified("iaa:g.out", "system:capture_1", connected: false).ours)

        // Unplugged by hand, one output after the other: the route goes with the last.
        #expect(host.server.disconnect("iaa:g.out", "system:playback_1"))
        #expect(connections.notified("iaa:g.out", "system:playback_1", connected: false).route == nil)
        #expect(host.server.disconnect("iaa:g.out", "system:playback_2"))
        let lost = connections.notified("iaa:g.out", "system:playback_2", connected: false)
        #expect(!lost.ours && lost.route == false && !connections.routeAvailable)
        // Held as removed by hand: another pass over the rules leaves them be.
        connections.keepRules()
        #expect(!host.server.isConnected("iaa:g.out", "system:playback_2"))
        // `iaa connect` of a held pair makes it a rule's connection again, and ours.
        connections.willConnect(PortPair("iaa:g.out", "system:playback_2"))
        _ = host.server.connect("iaa:g.out", "system:playback_2")
        let back = connections.notified("iaa:g.out", "system:playback_2", connected: true)
        #expect(back.ours && back.route == true)
        connections.keepRules()
        #expect(!host.server.isConnected("iaa:g.out", "system:playback_1"), "the other held pair stays removed")
    }

    @Test("the program at a rule's outside end appears: its pair held since it was unplugged is made again")
    func appearedReleases() throws {
        let host = try StandInHost(Self.graph)
        host.server.addClient("metro", outputs: ["out"])
        let connections = EngineConnections(host: host, clientName: "iaa", queue: DispatchQueue(label: "test"))
        _ = connections.make(host.graph.externalConnections)
        #expect(host.server.disconnect("metro:out", "iaa:g.in"))
        _ = connections.notified("metro:out", "iaa:g.in", connected: false)
        connections.keepRules()
        #expect(!host.server.isConnected("metro:out", "iaa:g.in"))
        connections.appeared(["metro:out"])
        #expect(host.server.isConnected("metro:out", "iaa:g.in"))
    }

    @Test("a burst of registrations is one pass on the queue with every name, in order")
    func registrationsCoalesce() throws {
        let host = try StandInHost(Self.graph)
        let queue = DispatchQueue(label: "test")
        let connections = EngineConnections(host: host, clientName: "iaa", queue: queue)
        let passes = Mutex<[[String]]>([])
        queue.suspend()
        for name in ["metro", "metro:out", "metro:in"] {
            connections.registered(name) { names in passes.withLock { $0.append(names) } }
        }
        queue.resume()
        queue.sync {}
        #expect(passes.withLock { $0 } == [["metro", "metro:out", "metro:in"]])
        connections.registered("late") { names in passes.withLock { $0.append(names) } }
        queue.sync {}
        #expect(passes.withLock { $0 }.last == ["late"])
    }
}
