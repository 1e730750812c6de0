import ControlSocket
import Links

/// One policy across machines (docs/links.md): as a satellite, the engine's mirrored apps are
/// decided for by a primary (``SatelliteLink``); as a primary, each attached app's decided gain
/// goes out on its stream (``ProgramApps/announceDecisions()``).
extension EngineCore {
    /// Starts joining the primary at `primary` (see ``SatelliteLink/join``). Called once, once
    /// the engine is live.
    func join(primary: PrimaryAddress, localSocket: String, sshConfig: String?) {
        checkOnQueue()
        let sessions = SatelliteLink.Sessions(
            follow: { [weak self] app, gain in self?.sessions.followPrimary(app, gain: gain) },
            leave: { [weak self] in self?.sessions.leavePrimary() },
            isActive: { [weak self] app in self?.sessions.policy.state(of: app)?.active ?? false })
        satellite = SatelliteLink.join(primary, apps: graph.apps.filter { $0.session != nil }.map(\.id), localSocket: localSocket,
                                       sshConfig: sshConfig, starter: links.starter, queue: queue, clock: clock, publisher: publisher,
                                       sessions: sessions)
    }

    func leavePrimary() {
        checkOnQueue()
        satellite?.leave()
        satellite = nil
    }
}
