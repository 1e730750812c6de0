import AudioGraph
import AudioSession
import ControlSocket
import JackBackend

/// The engine as a JACK client: the graph's connection rules made, JACK's notifications
/// (connections, buffer size, registrations) taken on the control queue, and a server that went
/// away and came back.
extension EngineCore {
    /// Makes the graph's JACK connection rules true now; warns about each rule whose port is
    /// missing (with the closest live port names) and each connection JACK refused. Missing ports
    /// leave their rule pending: it is made when the port appears.
    /// Rule connections removed by hand are made again too, unless `releasingHeld` is false (a
    /// start that resumed kept state holds what was removed before).
    func connectExternals(_ connections: [ExternalConnection], releasingHeld: Bool = true) -> [String] {
        if releasingHeld { rules.book.releaseAll() }
        var warnings = rules.pendingWarnings(connections, on: ground)
        for outcome in rules.make(connections, on: ground, ledger: &self.connections, at: now) {
            if case .failed = outcome.result { warnings.append("\(outcome)") }
        }
        routeAvailable = outputsReachOutside()
        return warnings
    }

    /// Makes every connection rule true again (a port appeared, a refused one is due).
    func keepRules() {
        rules.keep(on: ground, ledger: &connections, at: now)
    }

    /// Ports or clients appeared (`names`: full port names and client names): the rule
    /// connections removed by hand at those ends are made again with the rest, and programs
    /// that registered ports are bound and wired.
    func portsAppeared(_ names: [String]) {
        checkOnQueue()
        rules.book.release(appeared: names, ours: clientName + ":")
        keepRules()
        programs.route()
    }

    /// A JACK connection to one of our ports changed, by us or by anyone (`jack_connect`, a
    /// patchbay): an event, and a route change when our outputs lost or regained their last one.
    func connectionChanged(source: String, destination: String, connected: Bool) {
        checkOnQueue()
        let ours = connections.notified([source, destination], connected: connected)
        if !ours { keeping?.keepOutsideConnection(source, destination, connected: connected) }
        if connected { rules.book.unhold([source, destination]) }
        if !connected, !ours { rules.removedByHand(source, destination, on: ground) }
        if connected, !ours { programs.connectionMade(source, destination) }
        publisher.announce(.connection(ConnectionChange(from: source, to: destination, connected: connected, by: ours ? .iaa : .outside)))
        let available = outputsReachOutside()
        guard available != routeAvailable else { return }
        routeAvailable = available
        publisher.publish(applySession(.route(available: available), at: now).events)
    }

    /// Whether any of our audio outputs is connected outside the engine: Apple's "route".
    private func outputsReachOutside() -> Bool {
        backend.livePorts().contains { !$0.isInput && !$0.connections.isEmpty && $0.type.contains("audio") }
    }

    /// JACK's buffer size changed: every active output app hears `routeConfigurationChange`,
    /// and the graph is recompiled for the new size (nodes are prepared anew).
    func bufferSizeChanged(to frames: Int) {
        checkOnQueue()
        guard frames != bufferSize else { return }
        bufferSize = frames
        let events = sessions.policy.states.filter { $0.active && $0.category.hasOutput }
            .map { SessionEvent(app: $0.id, kind: .routeChange(reason: .routeConfigurationChange), time: now) }
        publisher.publish(events)
        guard frames > builder.instances.maximumFrames else { return }
        builder = PlanBuilder(sampleRate: backend.sampleRate, maximumFrames: frames, gainRampSeconds: graph.policy.rampSeconds)
        installNodeFactory(for: graph)
        _ = try? install(graph, sameSessions: true)
    }

    /// An engine going live on its backend (adopted, first plan installed by `startUp`): the
    /// transport's tempo served, cycles started, the graph's rules made, the first session
    /// events out, the links' bridges started and the programs present found. Returns the warnings to show. Not on `queue`.
    func goLive(startEvents: [SessionEvent]) throws -> [String] {
        if graph.transport.timebaseMaster {
            if !backend.becomeTimebaseMaster(tempo: graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar) {
                StandardError.warning("another JACK client is timebase master; nodes follow its tempo")
            }
        } else {
            backend.setDefaultTempo(graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        }
        try backend.activate()
        isolation?.settings.placement?.adopt(audioThread: backend.audioThread)
        return queue.sync {
            let warnings = connectExternals(graph.externalConnections, releasingHeld: false).map { "\($0)" }
            publisher.publish(startEvents)
            links.follow(graph)
            programs.route()
            return warnings
        }
    }

    /// Wires JACK's notifications for `backend` to this queue. Before the backend is activated.
    func adopt(_ backend: any LiveBackend) {
        backend.setDeadlineShare(deadlineShare)
        do {
            try backend.startCrew(threads: renderThreads, splitting: renderSplitting)
        } catch {
            StandardError.warning("cycles run on JACK's thread alone: \(error)")
        }
        backend.onConnectionChange = { [self] source, destination, connected in
            queue.async { self.connectionChanged(source: source, destination: destination, connected: connected) }
        }
        backend.onBufferSizeChange = { [self] frames in queue.async { self.bufferSizeChanged(to: frames) } }
        backend.onClientGone = { [self] name in queue.async { self.programs.clientGone(name) } }
        backend.onOutsideConnection = { [self] source, destination in
            queue.async { self.programs.connectionMade(source, destination) }
        }
        backend.onRegistration = { [self] name in
            appeared.withLock { $0.append(name) }
            guard !rulesDue.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async {
                self.rulesDue.store(false, ordering: .releasing)
                self.portsAppeared(self.appeared.withLock { names in
                    defer { names = [] }
                    return names
                })
            }
        }
    }

    /// The JACK server went away: every app hears `mediaServicesWereLost`. The dead client is
    /// abandoned, not closed: `jack_client_close` after a server's death can hang (a known libjack
    /// issue) while holding libjack's process-wide lock, which then blocks opening a new client.
    /// Graph and sessions are kept.
    func serverLost() {
        checkOnQueue()
        publisher.publish(graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereLost, time: now) })
        backend.abandon()
        abandoned.append(backend)
    }

    /// A server is back: the same ports are registered on `newBackend`, every connection there
    /// was is made again (the graph's and those made by hand), and apps hear `mediaServicesWereReset`.
    func serverBack(_ newBackend: any LiveBackend) throws {
        checkOnQueue()
        adopt(newBackend)
        if newBackend.sampleRate != builder.instances.sampleRate || newBackend.maximumFrames > builder.instances.maximumFrames {
            builder = PlanBuilder(sampleRate: newBackend.sampleRate, maximumFrames: newBackend.maximumFrames,
                                  gainRampSeconds: graph.policy.rampSeconds)
            installNodeFactory(for: graph)
        }
        _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .rebind, on: newBackend, at: now)
        newBackend.setDefaultTempo(graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        if graph.transport.timebaseMaster {
            newBackend.becomeTimebaseMaster(tempo: graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        }
        try newBackend.activate()
        isolation?.settings.placement?.adopt(audioThread: newBackend.audioThread)
        backend = newBackend
        bufferSize = newBackend.maximumFrames
        let remembered = connections.takeLive()
        for warning in connectExternals(graph.externalConnections) { StandardError.warning("\(warning)") }
        // The programs are clients of the new server too, when they come back: found afresh.
        programs.roster.clients = [:]
        programs.roster.refused = [:]
        links.retryAll()
        programs.route()
        for pair in remembered {
            noteOwnConnection(pair[0], pair[1], connecting: true)
            if case .failed(let why) = newBackend.connect(pair[0], pair[1]).result {
                StandardError.warning("cannot restore \(pair[0]) -> \(pair[1]): \(why)")
            }
        }
        publisher.publish(graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereReset, time: now) })
    }

    /// Remembers a connection the engine asked to make (`connecting`) or remove, so its
    /// notification is attributed to iaa.
    func noteOwnConnection(_ source: String, _ destination: String, connecting: Bool) {
        connections.asking([source, destination], connecting: connecting)
    }

    /// Forgets a request the engine made and JACK refused.
    func forgetOwnConnection(_ source: String, _ destination: String, connecting: Bool) {
        connections.refused([source, destination], connecting: connecting)
    }
}
