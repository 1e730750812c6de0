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
            let line = announce(.event(.session(SessionLog.message(event), fromPrimary: false)))
            send(line, topic: Self.programTopic(event.app))
        }
    }

    /// One line on the `events` stream, at `time` (default now), returned as sent. An event the
    /// engine says nothing else about (a session event, a program's, a link's, the satellite's)
    /// is written to stderr too; faults and stalls have warnings of their own there.
    @discardableResult
    func announce(_ content: EventsLine.Content, at time: Double? = nil) -> ControlJSON {
        let line = EventsLine(time: time ?? clock.now, content).json
        send(line, topic: "events")
        if case .event(let event) = content { log(event) }
        return line
    }

    private func log(_ event: EngineEvent) {
        switch event {
        case .session, .program, .linkState, .satellite:
            StandardError.write("iaa: event: \(event.json.text)")
        case .isolatedStarted, .isolatedFault, .isolatedLate, .faultHandled, .audioStalled, .audioResumed, .remoteControl:
            break
        }
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
