/// The session clock: seconds since the engine started. Session deadlines, event times and
/// `status` all read it.
struct EngineClock {
    private let start = ContinuousClock.now

    var now: Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
