import AudioSession
import ControlSocket
import Foundation
import Links

/// The forwarding side of a satellite's control link (``PrimaryLink``): what this component
/// needs of it, so that its tests can stand in for the primary.
protocol PrimaryChannel: AnyObject {
    /// The mirrored apps.
    var apps: [String] { get }
    /// Sends a request to the primary; nil when the link is down.
    func forward(_ method: String, _ params: ControlJSON) -> Result<ControlJSON, ControlError>?
    func stop()
}

extension PrimaryLink: PrimaryChannel {}

/// A satellite engine (docs/links.md, "One policy across machines"): its apps with a session
/// are mirrored on a primary engine, whose policy decides for them. While joined, a session
/// action for a mirrored app goes to the primary first (a refusal there is the reply here), and
/// each mirrored app's gain is the primary's decision; the local policy keeps following the
/// same actions, so that when the primary is unreachable the satellite falls back to its own
/// decisions at once, says so, and joins again when it can.
///
/// This component owns the link's state (joining, joined, fallback, why, since when, how many
/// joins) and the ssh tunnel's last words; it acts on the engine's sessions only through
/// ``Sessions``. Confined to the engine's control queue, where the link's reports arrive.
final class SatelliteLink {
    typealias State = SatelliteStatus.State

    /// What a primary's decisions do to this engine's sessions.
    struct Sessions {
        /// The app's gain is the primary's from now on.
        let follow: (_ app: String, _ gain: Float) -> Void
        /// Every app is decided by this engine's own policy again.
        let leave: () -> Void
        /// Whether the app's session is active here.
        let isActive: (_ app: String) -> Bool
    }

    let primary: PrimaryAddress
    private let channel: PrimaryChannel
    /// The `ssh -N -L` that carries the link from another machine, kept running like a bridge.
    private let tunnel: (any Bridge)?
    /// The tunnel's end on this machine, the socket ssh forwards to the primary's.
    private let tunnelEnd: String?
    /// What ssh said last (`Permission denied (publickey).`), and whether it has ended since.
    private var tunnelWords: String?
    private var tunnelDown = false
    private(set) var state = State.joining
    private(set) var since: Double
    private(set) var reason: String?
    /// Times it joined, the first included.
    private(set) var joins = 0
    private let clock: EngineClock
    private let publisher: EventPublisher
    private let sessions: Sessions

    init(primary: PrimaryAddress, channel: PrimaryChannel, tunnel: (any Bridge)?, tunnelEnd: String? = nil, clock: EngineClock,
         publisher: EventPublisher, sessions: Sessions) {
        self.primary = primary
        self.channel = channel
        self.tunnel = tunnel
        self.tunnelEnd = tunnelEnd
        self.clock = clock
        self.publisher = publisher
        self.sessions = sessions
        since = clock.now
    }

    /// Starts joining the primary at `primary` for `apps`, through an ssh tunnel to
    /// `localSocket` for one on another machine (`sshConfig`: an ssh_config file for it, as
    /// `ssh -F`). The link's and the tunnel's reports are handed to the component on `queue`.
    static func join(_ primary: PrimaryAddress, apps: [String], localSocket: String, sshConfig: String?, starter: LinkSupervisor.Starter,
                     queue: DispatchQueue, clock: EngineClock, publisher: EventPublisher, sessions: Sessions) -> SatelliteLink {
        /// Filled in once the component exists; the reports that come before it are none.
        final class Late: @unchecked Sendable { weak var satellite: SatelliteLink? }
        let late = Late()
        var tunnel: (any Bridge)?
        if let arguments = primary.sshArguments(localSocket: localSocket, config: sshConfig) {
            tunnel = starter(JackServerLauncher.executable("ssh") ?? "ssh", arguments) { event in
                queue.async { late.satellite?.tunnelReported(event) }
            }
        }
        let path: String
        if case .socket(let local) = primary { path = local } else { path = localSocket }
        let link = PrimaryLink(path: path, apps: apps) { event in
            queue.async { late.satellite?.handle(event) }
        }
        let satellite = SatelliteLink(primary: primary, channel: link, tunnel: tunnel, tunnelEnd: tunnel == nil ? nil : localSocket,
                                      clock: clock, publisher: publisher, sessions: sessions)
        late.satellite = satellite
        return satellite
    }

    /// Leaves the primary: the link and the tunnel stop, and every app is this engine's again.
    func leave() {
        channel.stop()
        tunnel?.stop()
        sessions.leave()
    }

    /// The ssh tunnel's words and ends: the reason a satellite gives while it cannot join.
    func tunnelReported(_ event: BridgeEvent) {
        switch event {
        case .started: tunnelDown = false
        case .line(.other(let text)) where !text.isEmpty: tunnelWords = text
        case .exited: tunnelDown = true
        default: break
        }
    }

    /// What the link reported.
    func handle(_ event: PrimaryEvent) {
        switch event {
        case .joined(let primarySessions):
            joins += 1
            move(to: .joined, "joined the primary at \(primary.description): it decides for \(channel.apps.count) apps")
            // The primary learns which mirrored apps are active here; its decisions follow.
            for (app, session) in primarySessions.sorted(by: { $0.key < $1.key }) {
                let here = sessions.isActive(app)
                sessions.follow(app, Float(session.gain))
                guard session.active != here else { continue }
                let call: ControlCall = here ? .activate(app: app) : .deactivate(app: app, notifyOthers: false)
                _ = channel.forward(call.method.rawValue, call.params)
            }
        case .decision(let app, let gain):
            if state == .joined { sessions.follow(app, gain) }
        case .event(let event):
            publisher.announce(.event(.session(event, fromPrimary: true)))
        case .lost(let reason):
            sessions.leave()
            var why = reason
            if case .ssh(let destination, _, _) = primary {
                if tunnelDown, let words = tunnelWords {
                    why = "ssh to \(destination) failed: \(words)"
                } else if !tunnelDown, let end = tunnelEnd, access(end, F_OK) != 0 {
                    // The link tried the tunnel's end before ssh made it: no engine is missing.
                    why = "the ssh tunnel to \(destination) is coming up (its end \(end) is not there yet)"
                }
            }
            move(to: .fallback, "\(why); deciding with this engine's own policy until the primary is back")
        }
    }

    private func move(to state: State, _ reason: String) {
        guard self.state != state || self.reason != reason else { return }
        self.state = state
        since = clock.now
        self.reason = reason
        publisher.announce(.event(.satellite(state: state, primary: primary.description, reason: reason)))
    }

    /// A session action for a mirrored app, while joined, asks the primary first: its refusal
    /// is the reply (nothing changes here), its acceptance lets the action go on here too.
    /// Nil when the action is this engine's alone.
    func forward(_ method: ControlMethod, _ request: ControlRequest) -> ControlReply? {
        guard state == .joined, method.isOneAppSessionAction, let app = request["app"]?.stringValue, channel.apps.contains(app) else {
            return nil
        }
        switch channel.forward(request.method, request.params) {
        // `isBusy` is refused after the change is made (the session deactivated, its audio
        // stopped): made here too, it is refused here the same way.
        case .failure(let error)? where error.code != SessionError.Code.isBusy.rawValue:
            return .error(code: error.code, message: "the primary refused: \(error.message)", field: error.field)
        case .failure?, .success?, nil: return nil
        }
    }

    /// `status`'s `satellite` member.
    var status: SatelliteStatus {
        SatelliteStatus(primary: primary.description, state: state, since: since, reason: reason, joins: joins, apps: channel.apps)
    }
}
