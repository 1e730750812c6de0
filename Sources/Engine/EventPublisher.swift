import AudioSession
import ControlSocket

/// Where the running engine says what happened: the `events` stream (`iaa events`), a program
/// app's own stream, the `top` stream, and stderr. Every line carries `t`, seconds on the engine's
/// clock. Control queue only.
final class EventPublisher {
    /// The control socket once it listens; until then lines go to stderr only.
    var server: ControlServer?
    /// Also handed every line, with its topic: what a test of the engine reads.
    var tap: ((_ topic: String, _ line: ControlJSON) -> Void)?
    let clock: EngineClock

    init(clock: EngineClock) {
        self.clock = clock
    }

    /// Session events, as Apple delivers them: to `events`, to the app's program stream, and stderr.
    func publish(_ events: [SessionEvent]) {
        for event in events {
            let line = ControlJSON.object([("t", .number(clock.now)), ("event", SessionLog.payload(event))])
            send(line, topic: "events")
            send(line, topic: Self.programTopic(event.app))
            StandardError.write("iaa: event: \(SessionLog.payload(event).text)")
        }
    }

    /// One `{"t", key: payload}` line on the `events` stream: `key` is `event`, `connection`,
    /// `transport`, `xrun` or `reload`. `time` defaults to now.
    func announce(_ key: String, _ payload: ControlJSON, at time: Double? = nil) {
        send(ControlJSON.object([("t", .number(time ?? clock.now)), (key, payload)]), topic: "events")
    }

    /// One `{"t", "event": payload}` line of the engine's own (a program, link or satellite
    /// event) on the `events` stream, and on stderr as session events are.
    func announceEvent(_ payload: ControlJSON) {
        announce("event", payload)
        StandardError.write("iaa: event: \(payload.text)")
    }

    /// Whether anyone follows `topic` now (what is not watched need not be measured); a tap
    /// follows every topic.
    func isWatched(_ topic: String) -> Bool {
        tap != nil || (server?.subscriberCount(topic: topic) ?? 0) > 0
    }

    /// A line of its own making on `topic` (`top`).
    func publish(_ line: ControlJSON, topic: String) {
        send(line, topic: topic)
    }

    private func send(_ line: ControlJSON, topic: String) {
        server?.publish(line, topic: topic)
        tap?(topic, line)
    }

    /// The stream a program app's connection follows after `program.attach`.
    static func programTopic(_ app: String) -> String { "program:" + app }
}
