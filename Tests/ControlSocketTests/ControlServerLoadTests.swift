#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Foundation
import Synchronization
import Testing
import TestKit

@Suite("Control server: many and bad clients", .serialized)
struct ControlServerLoadTests {
    @Test("20 clients × 1,000 pipelined requests: every reply arrives, in order per client, one handler call at a time")
    func manyClients() throws {
        let server = try TestServer()
        let failures = Mutex<[String]>([])
        let path = server.path
        runThreads(20) { clientIndex in
            do {
                let client = try ControlClient(path: path, timeout: .seconds(30))
                var batch: [UInt8] = []
                for n in 0..<1_000 {
                    batch += Array("{\"id\":\(n),\"method\":\"echo\",\"params\":{\"c\":\(clientIndex),\"n\":\(n)}}\n".utf8)
                }
                try client.sendRaw(batch)
                for n in 0..<1_000 {
                    let reply = json(try client.readLine())
                    guard reply?["id"]?.intValue == n, reply?["result"]?["n"]?.intValue == n,
                          reply?["result"]?["c"]?.intValue == clientIndex else {
                        failures.withLock { $0.append("client \(clientIndex) reply \(n): \(reply?.text ?? "none")") }
                        return
                    }
                }
            } catch {
                failures.withLock { $0.append("client \(clientIndex): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let calls = server.probe.calls.load(ordering: .relaxed)
        #expect(calls == 20_000)
        let overlapping = server.probe.overlapping.load(ordering: .relaxed)
        #expect(!overlapping)
    }

    @Test("clients that vanish mid-line or before reading leak nothing, and the server keeps serving")
    func vanishingClients() throws {
        let server = try TestServer()
        _ = try server.client().call("echo")
        // The server's own sockets: counting the process's descriptors also counted whatever
        // tests running beside this one had open at that moment.
        let before = socketsBound(to: server.path)
        #expect(before >= 1)
        for index in 0..<200 {
            let fd = rawConnect(server.path)
            #expect(fd >= 0)
            switch index % 4 {
            case 0: rawSend(fd, #"{"id":1,"method":"ec"#)
            case 1: rawSend(fd, "{\"id\":1,\"method\":\"sleep\",\"params\":{\"ms\":1}}\n{\"id\":2,\"method\":\"echo\"}\n")
            case 2: rawSend(fd, String(repeating: "z", count: 300_000))
            default: break
            }
            close(fd)
        }
        #expect(try server.client().call("echo", params: ["alive": true]).get() == ["alive": true])
        #expect(waitUntil(seconds: 5) { socketsBound(to: server.path) <= before })
    }

    @Test("a client that never reads its replies blocks neither the engine nor other clients")
    func stalledClient() throws {
        let server = try TestServer()
        let stalled = rawConnect(server.path)
        let tally = Tally()
        // Ends the writer: set before the server stops, whose closing of the connection then fails
        // the writer's blocked send. The writer closes its own socket, so no descriptor is reused
        // under it.
        defer { tally.inOrder.store(false, ordering: .sequentiallyConsistent) }
        // 5,000 requests for 20 kB replies: 100 MB it will never read. The writer thread stalls
        // once the server stops reading it, which is the point.
        let writer = Thread {
            for n in 0..<5_000 where tally.inOrder.load(ordering: .sequentiallyConsistent) {
                rawSend(stalled, "{\"id\":\(n),\"method\":\"big\",\"params\":{\"bytes\":20000}}\n")
            }
            close(stalled)
        }
        writer.start()
        usleep(200_000)
        let client = try server.client()
        let start = ContinuousClock.now
        for n in 0..<200 { #expect(try client.call("echo", params: ["n": .number(Double(n))]).get()["n"]?.intValue == n) }
        #expect(ContinuousClock.now - start < .seconds(5))
        // The server read only what its per-client limits allow, not the 5,000 requests.
        let calls = server.probe.calls.load(ordering: .relaxed)
        #expect(calls < 1_000)
    }

    @Test("a stream subscriber that stops reading is dropped; one that reads gets every line")
    func stalledSubscriber() throws {
        let server = try TestServer()
        let stalled = rawConnect(server.path)
        defer { close(stalled) }
        rawSend(stalled, "{\"id\":1,\"method\":\"follow\",\"params\":{\"topic\":\"top\"}}\n")
        let tally = Tally()
        let path = server.path
        let reader = Thread {
            guard let client = try? ControlClient(path: path) else { return }
            _ = try? client.stream("follow", params: ["topic": "top"]) { line in
                let n = tally.count.add(1, ordering: .sequentiallyConsistent).newValue
                if json(Array(line.utf8))?["n"]?.intValue != n { tally.inOrder.store(false, ordering: .relaxed) }
                return n < 2_000
            }
        }
        reader.start()
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "top") == 2 })
        let padding = ControlJSON.string(String(repeating: "p", count: 5_000))
        for batch in 0..<20 {
            for n in (batch * 100 + 1)...(batch * 100 + 100) {
                server.server.publish(["n": .number(Double(n)), "pad": padding], topic: "top")
            }
            #expect(waitUntil(seconds: 5) { tally.count.load(ordering: .sequentiallyConsistent) >= batch * 100 + 100 })
        }
        let count = tally.count.load(ordering: .sequentiallyConsistent)
        #expect(count == 2_000)
        let inOrder = tally.inOrder.load(ordering: .relaxed)
        #expect(inOrder)
        // 10 MB published; the stalled subscriber's buffer passed 4 MiB and it was let go.
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "top") == 0 })
        #expect(server.probe.diagnostics.withLock { $0.contains { $0.contains("stopped reading") } })
    }

    @Test("10,000 garbage requests leave resident memory bounded")
    func garbageMemory() throws {
        let server = try TestServer()
        func flood(_ count: Int) throws {
            // Over 100 connections, so connection set-up and tear-down are measured too.
            for _ in 0..<100 {
                let client = try server.client()
                var batch: [UInt8] = []
                for n in 0..<(count / 100) { batch += Array("\(n) garbage {\"id\":\n".utf8) }
                try client.sendRaw(batch)
                for _ in 0..<(count / 100) { #expect(errorCode(try client.readLine()) == "parseError") }
            }
        }
        try flood(2_000)
        // Other suites share this process and its RSS, so a round may see their noise; a leak
        // would show in every round, so one quiet round out of three is the pass.
        var growths: [Int] = []
        for _ in 0..<3 {
            let before = residentBytes()
            try flood(10_000)
            growths.append(residentBytes() - before)
            if growths.last ?? 0 < 2 << 20 { break }
        }
        #expect(growths.contains { $0 < 2 << 20 }, "resident memory grew by \(growths) bytes per 10,000 garbage requests")
        #expect(try server.client().call("echo").get() == [:])
    }
}

/// Shared counters for a reader thread.
private final class Tally: Sendable {
    let count = Atomic<Int>(0)
    let inOrder = Atomic<Bool>(true)
}
