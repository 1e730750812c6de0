/// The device flags the policy reads: the Ring/Silent switch, the screen lock and the output route.
public struct DeviceState: Sendable, Equatable, Hashable {
    /// The Ring/Silent switch is on silent: ambient and soloAmbient sessions are not heard.
    public var silent: Bool
    /// The screen is locked: no app is foreground, ambient and soloAmbient sessions are not heard.
    public var locked: Bool
    /// The output route exists (an output port has a JACK connection).
    public var routeAvailable: Bool
    /// The built-in microphone is muted (an iPad's Smart Folio closed; here `interrupt begin
    /// --reason builtInMicMuted`): sessions that record hear silence.
    public var microphoneMuted: Bool

    public init(silent: Bool = false, locked: Bool = false, routeAvailable: Bool = true, microphoneMuted: Bool = false) {
        self.silent = silent
        self.locked = locked
        self.routeAvailable = routeAvailable
        self.microphoneMuted = microphoneMuted
    }
}
