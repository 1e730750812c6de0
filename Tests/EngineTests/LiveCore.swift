import ControlSocket
@testable import Engine
import Foundation
import GraphFormat
import Links
import Synchronization
import Testing

/// The live engine's core on an in-memory JACK server (``MemoryBackend``): started as `iaa run`
/// starts it, driven by the requests the control socket would hand it and by programs coming and
/// going on the server, and read through its replies and the lines it publishes.
final class LiveCore: @unchecked Sendable {
    let backend: MemoryBackend
    let core: EngineCore
    /// Every line the engine published, with its topic, in order.
    private let published = Lines()

    private final class Lines: Sendable {
        let all = Mutex<[(topic: String, line: ControlJSON)]>([])
    }

    /// `bridges` starts the bridges of link ends (by default none is started: a stand-in that
    /// reports nothing).
    init(_ graphText: String, client: String = "iaa", backend: MemoryBackend? = nil,
         bridges: @escaping LinkSupervisor.Starter = { _, _, _ in SilentBridge() }) throws {
        let loaded = GraphFile.load(text: graphText, file: "graph.json", registry: GraphLoading.registry)
        guard let graph = loaded.graph, let description = loaded.description else {
            throw LiveCoreError(message: loaded.errors.map(\.formatted).joined(separator: "\n"))
        }
        let backend = backend ?? MemoryBackend(clientName: client)
        self.backend = backend
        core = try EngineCore(graph: graph, description: description, backend: backend, serverName: nil)
        let published = published
        core.queue.sync { core.publisher.tap = { topic, line in published.all.withLock { $0.append((topic, line)) } } }
        core.adopt(backend)
        core.links.starter = bridges
        _ = try core.goLive(startEvents: try core.startUp())
        settle()
    }

    /// Lets the engine's queue run what the server's notifications handed it, and what that
    /// work handed it in turn (a connection the engine makes is notified again).
    func settle() {
        for _ in 0..<6 { core.queue.sync {} }
    }

    /// Runs the control tick ten times a second, as the engine's timer does, until `done` holds
    /// or two seconds have passed; false then. What the tick retries only twice a second (a
    /// program client not yet known to be its app's, a refused rule) gets its turn.
    func tick(until done: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            core.queue.sync { core.tick() }
            settle()
            if try done() { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(100_000)
        }
    }

    /// A request as the control socket hands it over; `pid` is the peer's.
    func reply(_ method: String, _ params: ControlJSON = [:], pid: Int32 = 1, connection: UInt64 = 1) -> ControlReply {
        defer { settle() }
        return core.queue.sync {
            core.handle(ControlRequest(id: 1, method: method, params: params, peer: ControlPeer(uid: getuid(), pid: pid), connection: connection))
        }
    }

    /// The result of a request that must succeed.
    func result(_ method: String, _ params: ControlJSON = [:], pid: Int32 = 1, connection: UInt64 = 1) throws -> ControlJSON {
        switch reply(method, params, pid: pid, connection: connection) {
        case .result(let value): return value
        case .stream(_, let initial): return initial ?? .null
        case .error(let error): throw error
        }
    }

    /// The refusal of a request that must fail.
    func refusal(_ method: String, _ params: ControlJSON = [:], pid: Int32 = 1, connection: UInt64 = 1) -> ControlError? {
        guard case .error(let error) = reply(method, params, pid: pid, connection: connection) else { return nil }
        return error
    }

    func status() throws -> ControlJSON { try result("status") }

    func app(_ id: String) throws -> ControlJSON? {
        try status()["apps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// Every line published on `topic`, in order.
    func lines(_ topic: String) -> [ControlJSON] {
        published.all.withLock { lines in lines.filter { $0.topic == topic }.map(\.line) }
    }

    /// The `event` payloads published on the events stream named `name`, in order, each read
    /// back through the protocol's type (a line it cannot read is an issue of the test).
    func events(_ name: String) -> [ControlJSON] {
        lines("events").compactMap { line -> EngineEvent? in
            guard let read = EventsLine(json: line) else {
                Issue.record("the events stream carried a line EventsLine cannot read: \(line.text)")
                return nil
            }
            guard case .event(let event) = read.content else { return nil }
            return event
        }.filter { $0.name == name }.map(\.json)
    }

    /// The process a program app's client is, as /proc would tell it.
    static func process(_ pid: Int32, _ executable: String) -> ProcessIdentity {
        ProcessIdentity(pid: pid, uid: getuid(), executable: executable)
    }
}

/// A link's bridge that never starts a process nor reports anything.
final class SilentBridge: Bridge {
    func restart() {}
    func stop() {}
    func retryNow() {}
}

struct LiveCoreError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
