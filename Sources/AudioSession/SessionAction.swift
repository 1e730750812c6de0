/// Something that happens to the sessions: what the timeline and the control socket say.
public enum SessionAction: Sendable, Hashable {
    case setCategory(app: String, category: SessionCategory, mode: SessionMode, options: Set<SessionOption>)
    case activate(app: String)
    case deactivate(app: String, options: Set<DeactivationOption>)
    case foreground(app: String)
    case background(app: String)
    case beginBackgroundTask(app: String)
    case endBackgroundTask(app: String)
    /// The app starts its I/O (a player's play; with `recording`, it records too). Ours: Apple's
    /// apps start their players after activating; here activation starts them, and this restarts.
    case startAudio(app: String, recording: Bool)
    /// The app stops its I/O (a player's pause) and keeps its session.
    case stopAudio(app: String)
    /// The app's process ended (a program that exited, crashed or closed its connection while
    /// its session was active): its audio stops and its session ends, and the apps it
    /// interrupted are told as after `notifyOthersOnDeactivation`.
    case terminate(app: String)
    /// A system interruption (a phone call) begins or ends.
    case interrupt(InterruptionType, reason: InterruptionReason)
    /// The Ring/Silent switch and the screen lock; nil leaves a flag as it is.
    case device(silent: Bool?, locked: Bool?)
    /// The output route appears or disappears (headphones plugged in or out).
    case route(available: Bool)
    /// Time passes (background tasks expire); the engine sends it as the clock moves.
    case advanceTime(to: Double)

    /// The app the action is about, if any.
    public var app: String? {
        switch self {
        case .setCategory(let app, _, _, _), .activate(let app), .deactivate(let app, _), .foreground(let app),
             .background(let app), .beginBackgroundTask(let app), .endBackgroundTask(let app),
             .startAudio(let app, _), .stopAudio(let app), .terminate(let app):
            return app
        case .interrupt, .device, .route, .advanceTime:
            return nil
        }
    }
}

public enum InterruptionType: String, Sendable, Hashable { case began, ended }

/// Apple's interruption reasons.
public enum InterruptionReason: String, Sendable, Hashable, CaseIterable {
    case `default`, appWasSuspended, builtInMicMuted, routeDisconnected
}

/// Apple's route change reasons.
public enum RouteChangeReason: String, Sendable, Hashable, CaseIterable {
    case newDeviceAvailable, oldDeviceUnavailable, categoryChange, override, wakeFromSleep
    case noSuitableRouteForCategory, routeConfigurationChange
}
