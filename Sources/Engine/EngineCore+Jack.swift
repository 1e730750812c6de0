import AudioSession
import ControlSocket
import JackBackend

/// The engine as a JACK client: the graph's connection rules made, JACK's notifications
/// (connections, buffer size, registrations) taken on the control queue, and a server that went
/// away and came back.
extension EngineCore {
    /// Ports or clients appeared (`names`: full port names and client names): the rule
    /// connections removed by hand at those ends are made again with the rest, and programs
    /// that registered ports are bound and wired.
    func portsAppeared(_ names: [String]) {
        checkOnQueue()
        connections.appeared(names)
        programs.route()
    }

    /// A JACK connection to one of our ports changed, by us or by anyone (`jack_connect`, a
    /// patchbay): an event, and a route change when our outputs lost or regained their last one.
    func connectionChanged(source: String, destination: String, connected: Bool) {
        checkOnQueue()
        let notice = connections.notified(source, destination, connected: connected)
        if !notice.ours {
            keeping?.keepOutsideConnection(source, destination, connected: connected)
            if connected { programs.connectionMade(source, destination) }
        }
        publisher.announce(.connection(ConnectionChange(from: source, to: destination, connected: connected, by: notice.ours ? .iaa : .outside)))
        if let available = notice.route { publisher.publish(applySession(.route(available: available), at: now).events) }
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
        renewBuilder(sampleRate: backend.sampleRate, maximumFrames: frames)
        _ = try? install(graph, sameSessions: true)
    }

    /// An engine going live on its backend (adopted, first plan installed by `startUp`): the
    /// transport's tempo served, cycles started, the graph's rules made, the first session
    /// events out, the links' bridges started and the programs present found. Returns the warnings to show. Not on `queue`.
    func goLive(startEvents: [SessionEvent]) throws -> [String] {
        serveTempo(on: backend)
        try backend.activate()
        isolated?.adopt(audioThread: backend.audioThread)
        return queue.sync {
            let warnings = connections.make(graph.externalConnections, releasingHeld: false)
            publisher.publish(startEvents)
            links.follow(graph)
            programs.route()
            return warnings
        }
    }

    /// Wires JACK's notifications for `backend` to this queue. Before the backend is activated.
    func adopt(_ backend: any LiveBackend) {
        cycles.apply(to: backend)
        backend.onConnectionChange = { [self] source, destination, connected in
            queue.async { self.connectionChanged(source: source, destination: destination, connected: connected) }
        }
        backend.onBufferSizeChange = { [self] frames in queue.async { self.bufferSizeChanged(to: frames) } }
        backend.onClientGone = { [self] name in queue.async { self.programs.clientGone(name) } }
        backend.onOutsideConnection = { [self] source, destination in
            queue.async { self.programs.connectionMade(source, destination) }
        }
        backend.onRegistration = { [self] name in
            connections.registered(name) { names in self.portsAppeared(names) }
        }
    }

    /// The graph's tempo served to JACK's transport: as its timebase master when the graph asks
    /// to be, else as the tempo nodes follow when no other client is master.
    private func serveTempo(on backend: any LiveBackend) {
        let transport = graph.transport
        guard transport.timebaseMaster else {
            backend.setDefaultTempo(transport.tempo, beatsPerBar: transport.beatsPerBar)
            return
        }
        if !backend.becomeTimebaseMaster(tempo: transport.tempo, beatsPerBar: transport.beatsPerBar) {
            StandardError.warning("another JACK client is timebase master; nodes follow its tempo")
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
            renewBuilder(sampleRate: newBackend.sampleRate, maximumFrames: newBackend.maximumFrames)
        }
        _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .rebind, on: newBackend, at: now)
        serveTempo(on: newBackend)
        try newBackend.activate()
        isolated?.adopt(audioThread: newBackend.audioThread)
        backend = newBackend
        bufferSize = newBackend.maximumFrames
        let remembered = connections.takeLive()
        for warning in connections.make(graph.externalConnections) { StandardError.warning(warning) }
        // The programs are clients of the new server too, when they come back: found afresh.
        programs.roster.clients = [:]
        programs.roster.refused = [:]
        links.retryAll()
        programs.route()
        for pair in remembered {
            if case .failed(let why) = connections.connect(pair[0], pair[1]).result {
                StandardError.warning("cannot restore \(pair[0]) -> \(pair[1]): \(why)")
            }
        }
        publisher.publish(graph.apps.filter { $0.session != nil }.map { SessionEvent(app: $0.id, kind: .mediaServicesWereReset, time: now) })
    }
}
