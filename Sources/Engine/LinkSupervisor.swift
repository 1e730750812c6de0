import AudioGraph
import ControlSocket
import Foundation
import Links

/// Links between machines (docs/links.md): each link end of the graph is a program app whose
/// program, a zita-njbridge process, the engine starts and keeps running (``BridgeProcess``).
/// This component owns the bridges: it starts one per link end, stops those the graph no longer
/// has, and turns what each reports into the link's state (``LinkMonitor``), which `status` shows
/// and `linkState` events announce. The bridge's JACK client is bound to its app like any
/// program's, once it is the process this component started (``check(_:pid:)``).
///
/// Confined to the engine's control queue, where the bridges' reports are handed over (its
/// entry points check so, which is what makes the `@unchecked Sendable` true).
final class LinkSupervisor: @unchecked Sendable {
    /// Starts a program (path, arguments) that reports what happens to it: a bridge, or the ssh
    /// tunnel of a satellite's control link. Tests hand in a stand-in.
    typealias Starter = @Sendable (String, [String], @escaping @Sendable (BridgeEvent) -> Void) -> any Bridge

    /// Whether a JACK client that matches a link app's bridge name is the bridge.
    enum Check {
        case isBridge
        /// The bridge's start has not been seen yet: asked again on the next pass.
        case notYet
        case refused(String)
    }

    /// A link end with its bridge.
    private struct Running {
        let bridge: any Bridge
        var monitor: LinkMonitor
        /// Tells this bridge's events from those of one it replaced, still on their way.
        let token: Token
    }

    private final class Token: Sendable {}

    var starter: Starter = { BridgeProcess(executable: $0, arguments: $1, report: $2) }
    private var links: [String: Running] = [:]
    private let queue: DispatchQueue
    private let clock: EngineClock
    private let publisher: EventPublisher
    /// The JACK server the bridges join (nil: the default one).
    private let serverName: String?

    init(queue: DispatchQueue, clock: EngineClock, publisher: EventPublisher, serverName: String?) {
        self.queue = queue
        self.clock = clock
        self.publisher = publisher
        self.serverName = serverName
    }

    /// Starts a bridge for each link end of `graph` that has none, stops those of ends the graph
    /// no longer has (or has changed), and leaves the rest running.
    func follow(_ graph: Graph) {
        onQueue()
        let wanted = Dictionary(graph.apps.compactMap { app in app.link.map { (app.id, $0) } }, uniquingKeysWith: { first, _ in first })
        for (id, running) in links where wanted[id] != running.monitor.link {
            running.bridge.stop()
            links[id] = nil
        }
        for (id, link) in wanted.sorted(by: { $0.key < $1.key }) where links[id] == nil {
            start(for: id, link)
        }
    }

    private func start(for app: String, _ link: LinkEnd) {
        let executable = JackServerLauncher.executable(link.executableName) ?? link.executableName
        let arguments = link.arguments(client: LinkEnd.bridgeClient(of: app), server: serverName)
        let token = Token()
        let bridge = starter(executable, arguments) { [weak self] event in
            self?.queue.async { [weak self] in
                guard let self, self.links[app]?.token === token else { return }
                self.note(event, of: app)
            }
        }
        links[app] = Running(bridge: bridge, monitor: LinkMonitor(link: link, at: clock.now), token: token)
    }

    /// Stops every bridge (the engine is stopping).
    func stopAll() {
        onQueue()
        for running in links.values { running.bridge.stop() }
        links = [:]
    }

    /// The JACK server is back: bridges waiting out a pause after failing to reach it start now.
    func retryAll() {
        onQueue()
        for running in links.values { running.bridge.retryNow() }
    }

    private func onQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    /// What a bridge reported: a change of its link's state is an event. A receiving bridge
    /// that heard a sender other than its link's `from` is ended to be started again: zita-n2j
    /// plays whoever reaches its port first, and cannot be told whom to take.
    private func note(_ event: BridgeEvent, of app: String) {
        onQueue()
        guard let change = links[app]?.monitor.note(event, at: clock.now) else { return }
        announce(app, change)
        guard let running = links[app], let from = running.monitor.link.from, let sender = running.monitor.sender,
              sender.address != from else { return }
        restart(app, "sender \(sender.address) refused: the link takes audio from \(from) only; the bridge starts again")
    }

    /// How long a receiving bridge may stay locking to a sender before it is started again: one
    /// that locked to a bogus sender (mutated packets claiming 65,152 Hz) stayed silent for good.
    var lockingLimit: Double = 20

    /// The control tick: a bridge locking for longer than ``lockingLimit`` is started again.
    func tick() {
        onQueue()
        for (app, running) in links where running.monitor.state == .locking && clock.now - running.monitor.since > lockingLimit {
            let sender = running.monitor.sender.map { " to sender \($0.address) (\($0.sampleRate) Hz)" } ?? ""
            restart(app, "locking\(sender) for more than \(Int(lockingLimit)) s without locking; the bridge starts again")
        }
    }

    private func restart(_ app: String, _ reason: String) {
        guard let change = links[app]?.monitor.restarting(at: clock.now, reason) else { return }
        announce(app, change)
        links[app]?.bridge.restart()
    }

    private func announce(_ app: String, _ change: LinkMonitor.Change) {
        publisher.announce(.event(.linkState(app: app, state: change.to, previous: change.from, reason: change.reason)))
    }

    /// Whether the process `pid` (nil: not found) is the bridge started for `app`.
    func check(_ app: String, pid: Int32?) -> Check {
        onQueue()
        guard let expected = links[app]?.monitor.pid else { return .notYet }
        return pid == expected ? .isBridge : .refused("it is not the bridge this engine started for the link (pid \(expected))")
    }

    /// The bridge's JACK client was bound to its app, or left.
    func bound(_ app: String, _ bound: Bool) {
        onQueue()
        guard links[app] != nil else { return }
        note(.bound(bound), of: app)
    }

    /// `status`'s `link` member of an app: nil for any other app.
    func status(of app: App, sampleRate: Double) -> AppStatus.Link? {
        onQueue()
        guard let link = app.link else { return nil }
        let monitor = links[app.id]?.monitor
        var status = AppStatus.Link(direction: link.direction.rawValue, address: link.address, channels: link.channels,
                                    bridge: link.executableName, client: LinkEnd.bridgeClient(of: app.id))
        status.state = monitor?.state ?? .starting
        status.since = monitor?.since
        status.pid = monitor?.pid.map(Int.init)
        status.latency = link.latency(sampleRate: sampleRate)
        status.lockedAfter = monitor?.lockedAfter
        status.restarts = monitor?.restarts ?? 0
        status.dropouts = monitor?.dropouts ?? 0
        status.underruns = monitor?.underruns ?? 0
        status.sender = monitor?.sender.map { AppStatus.Link.Sender(address: $0.address, channels: $0.channels, sampleRate: $0.sampleRate) }
        status.resampler = monitor?.statistics.map {
            AppStatus.Link.Resampler(error: $0.error, ratio: $0.ratio, fewestFrames: $0.fewestFrames)
        }
        status.lastExit = monitor?.lastExit
        status.lastMessage = monitor?.lastMessage
        return status
    }
}
