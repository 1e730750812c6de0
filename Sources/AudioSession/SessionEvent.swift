/// A notification an app receives, with the payload Apple would deliver.
public struct SessionEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `type` began/ended; `shouldResume` only on ended; `wasSuspended` with reason appWasSuspended.
        case interruption(type: InterruptionType, reason: InterruptionReason, shouldResume: Bool, wasSuspended: Bool)
        case routeChange(reason: RouteChangeReason)
        case silenceSecondaryAudioHint(type: InterruptionType)
        case backgroundTaskWillExpire
        case suspended
        case resumed
        case mediaServicesWereLost
        case mediaServicesWereReset
        /// Inter-App Audio: the app's `isInterAppConnected` became true, with `peer` (a host for
        /// a node, a node for a host).
        case nodeConnected(peer: String)
        /// Inter-App Audio: the connection to `peer` went away; `reason` says why when the engine
        /// ended it (a condition that stopped holding), nil when it was asked to.
        case nodeDisconnected(peer: String, reason: String?)
    }

    public let app: String
    public let kind: Kind
    /// Seconds on the session clock when it happened.
    public let time: Double

    public init(app: String, kind: Kind, time: Double) {
        self.app = app
        self.kind = kind
        self.time = time
    }

    /// The event's name as logs and the socket spell it (`interruption`, `routeChange`, …).
    public var name: String {
        switch kind {
        case .interruption: return "interruption"
        case .routeChange: return "routeChange"
        case .silenceSecondaryAudioHint: return "silenceSecondaryAudioHint"
        case .backgroundTaskWillExpire: return "backgroundTaskWillExpire"
        case .suspended: return "suspended"
        case .resumed: return "resumed"
        case .mediaServicesWereLost: return "mediaServicesWereLost"
        case .mediaServicesWereReset: return "mediaServicesWereReset"
        case .nodeConnected: return "nodeConnected"
        case .nodeDisconnected: return "nodeDisconnected"
        }
    }
}
