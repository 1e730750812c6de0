import AudioGraph
import ControlSocket
import Links

/// Links between machines (docs/links.md): each link end of the graph is a program app whose
/// program, a zita-njbridge process, the engine starts and keeps running (``BridgeProcess``).
/// The bridge's events come here, where ``LinkMonitor`` turns them into the link's state, which
/// `status` shows and `linkState` events announce. The bridge's JACK client is bound to its app
/// like any program's, once it is the process this engine started.
extension EngineCore {
    /// A link end the engine runs a bridge for.
    struct RunningLink {
        let bridge: any Bridge
        var monitor: LinkMonitor
        /// Tells this bridge's events from those of one it replaced, still on their way.
        let token: Token
    }

    final class Token: Sendable {}

    /// Starts a bridge program (path, arguments) that reports what happens to it.
    typealias BridgeStarter = @Sendable (String, [String], @escaping @Sendable (BridgeEvent) -> Void) -> any Bridge

    /// Starts a bridge for each link end of the graph that has none, stops those of ends the
    /// graph no longer has (or has changed), and leaves the rest running.
    func followLinks() {
        checkOnQueue()
        let wanted = Dictionary(graph.apps.compactMap { app in app.link.map { (app.id, $0) } }, uniquingKeysWith: { first, _ in first })
        for (id, running) in links where wanted[id] != running.monitor.link {
            running.bridge.stop()
            links[id] = nil
        }
        for (id, link) in wanted.sorted(by: { $0.key < $1.key }) where links[id] == nil {
            startBridge(for: id, link)
        }
    }

    private func startBridge(for app: String, _ link: LinkEnd) {
        let executable = JackServerLauncher.executable(link.executableName) ?? link.executableName
        let arguments = link.arguments(client: LinkEnd.bridgeClient(of: app), server: serverName)
        let token = Token()
        let bridge = bridgeStarter(executable, arguments) { [weak self] event in
            self?.queue.async { [weak self] in
                guard let self, self.links[app]?.token === token else { return }
                self.linkEvent(app, event)
            }
        }
        links[app] = RunningLink(bridge: bridge, monitor: LinkMonitor(link: link, at: now), token: token)
    }

    /// Stops every bridge (the engine is stopping).
    func stopLinks() {
        checkOnQueue()
        for running in links.values { running.bridge.stop() }
        links = [:]
    }

    /// The JACK server is back: bridges waiting out a pause after failing to reach it start now.
    func retryLinks() {
        for running in links.values { running.bridge.retryNow() }
    }

    func linkEvent(_ app: String, _ event: BridgeEvent) {
        checkOnQueue()
        guard let change = links[app]?.monitor.note(event, at: now) else { return }
        publisher.announce(.event(.linkState(app: app, state: change.to, previous: change.from, reason: change.reason)))
    }

    /// Whether a JACK client that matches a link app's bridge name is the bridge.
    enum BridgeCheck {
        case isBridge
        /// The bridge's start has not been seen yet: asked again on the next pass.
        case notYet
        case refused(String)
    }

    /// Whether the process `pid` (nil: not found) is the bridge this engine started for `app`.
    func checkBridge(of app: String, pid: Int32?) -> BridgeCheck {
        guard let expected = links[app]?.monitor.pid else { return .notYet }
        return pid == expected ? .isBridge : .refused("it is not the bridge this engine started for the link (pid \(expected))")
    }

    /// The bridge's JACK client was bound to its app, or left.
    func linkBound(_ app: String, _ bound: Bool) {
        guard links[app] != nil else { return }
        linkEvent(app, .bound(bound))
    }

    /// `status`'s `link` member of an app: nil for any other app.
    func linkStatus(_ app: App) -> AppStatus.Link? {
        guard let link = app.link else { return nil }
        let monitor = links[app.id]?.monitor
        var status = AppStatus.Link(direction: link.direction.rawValue, address: link.address, channels: link.channels,
                                    bridge: link.executableName, client: LinkEnd.bridgeClient(of: app.id))
        status.state = monitor?.state ?? .starting
        status.since = monitor?.since
        status.pid = monitor?.pid.map(Int.init)
        status.latency = link.latency(sampleRate: backend.sampleRate)
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
