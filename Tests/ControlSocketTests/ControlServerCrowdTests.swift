#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Foundation
import Testing
import TestKit

/// Many clients that take places or memory and do nothing with them, as someone on the machine
/// who wanted to lock everyone else out would: each costs a bounded time and the engine a bounded
/// memory, and a client that does its work is served throughout.
@Suite("The control socket against crowds of idle clients")
struct ControlServerCrowdTests {
    /// Whether the server has closed `fd` within `seconds` (a read sees the end, or the reset).
    static func closedByServer(_ fd: Int32, within seconds: Double) -> Bool {
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        return waitUntil(seconds: seconds) {
            let count = recv(fd, &buffer, buffer.count, 0)
            return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    /// A server of `places` connections, every one of them taken by a raw client.
    static func full(_ places: Int) throws -> (server: TestServer, clients: [Int32]) {
        var limits = ControlServer.Limits()
        limits.maximumConnections = places
        let server = try TestServer(limits: limits)
        return (server, (0..<places).map { _ in rawConnect(server.path) })
    }

    @Test("every place taken by clients that sent nothing: a new client gets the oldest one's place and is answered")
    func idleClientsMakeRoom() throws {
        let (server, idle) = try Self.full(8)
        defer { for fd in idle { close(fd) } }
        #expect(idle.allSatisfy { $0 >= 0 })
        for round in 0..<3 {
            let reply = try server.client().call("echo", params: ["round": .number(Double(round))])
            #expect(reply == .success(["round": .number(Double(round))]))
        }
        #expect(waitUntil(seconds: 2) { server.probe.diagnostics.withLock { $0.contains { $0.contains("to make room for a new client") } } })
        #expect(Self.closedByServer(idle[0], within: 2))
    }

    @Test("every place taken by clients that are served (stream followers): a new client is refused with tooManyConnections")
    func busyClientsAreKept() throws {
        let (server, followers) = try Self.full(4)
        defer { for fd in followers { close(fd) } }
        for fd in followers { rawSend(fd, #"{"id":1,"method":"follow","params":{"topic":"top"}}"# + "\n") }
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "top") == 4 })
        #expect(throws: ControlError.self) { try server.client().call("echo", params: [:]).get() }
        #expect(server.server.subscriberCount(topic: "top") == 4)
    }

    @Test("a request line that takes longer than its time to arrive (a byte at a time) is disconnected; a silent client keeps its place while places are free, and a prompt one is served")
    func lineTimeout() throws {
        var limits = ControlServer.Limits()
        limits.lineTimeout = .milliseconds(300)
        let server = try TestServer(limits: limits)
        let silent = rawConnect(server.path)
        defer { close(silent) }
        let trickle = rawConnect(server.path)
        defer { close(trickle) }
        var closed = false
        for byte in #"{"id":1,"method":"echo","params":{}}"#.map(String.init) {
            rawSend(trickle, byte)
            if Self.closedByServer(trickle, within: 0.1) { closed = true; break }
        }
        #expect(closed, "the trickling writer was still connected after its whole line")
        #expect(waitUntil(seconds: 2) { server.probe.diagnostics.withLock { $0.contains { $0.contains("to send one request line") } } })
        // Connected early, asking later, as a pool of connections does: still served.
        #expect(!Self.closedByServer(silent, within: 0.5))
        rawSend(silent, #"{"id":7,"method":"echo","params":{"late":1}}"# + "\n")
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(silent, &buffer, buffer.count, 0)
        #expect(count > 0 && json(Array(buffer[..<max(count, 0)]).split(separator: 10).first.map(Array.init))?["result"]?["late"]?.intValue == 1)
    }

    @Test("followers that never read cost the engine the budget for laggards, not each its 4 MiB: they are disconnected before any reaches its own limit, and a client that asks is answered")
    func laggardsShareOneBudget() throws {
        var limits = ControlServer.Limits()
        limits.maximumLaggingOutputBytes = 2 << 20
        let server = try TestServer(limits: limits)
        let stalled = (0..<10).map { _ in rawConnect(server.path) }
        defer { for fd in stalled { close(fd) } }
        for fd in stalled { rawSend(fd, #"{"id":1,"method":"follow","params":{"topic":"top"}}"# + "\n") }
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "top") == 10 })
        let padding = ControlJSON.string(String(repeating: "p", count: 5_000))
        // 600 lines of 5 kB: 3 MB for each follower, under its own 4 MiB, and 30 MB for the ten.
        for n in 1...600 { server.server.publish(["n": .number(Double(n)), "pad": padding], topic: "top") }
        #expect(waitUntil(seconds: 10) { server.server.subscriberCount(topic: "top") == 0 })
        #expect(waitUntil(seconds: 2) { server.probe.diagnostics.withLock { $0.contains { $0.contains("every client that fell behind is spent") } } })
        #expect(try server.client().call("echo", params: ["after": 1]).get() == ["after": 1])
    }
}
