import ControlSocket

/// Prints an Outcome (the reply to every session action): each event on its own line on stdout,
/// each warning on stderr.
///
/// The event line reads like a sentence so a person driving a scenario from a shell can follow it:
/// `event: music interruption began reason=default options=shouldResume`.
enum OutcomeReport {
    static func print(_ reply: ControlJSON) {
        guard let outcome = ActionOutcome(json: reply) else {
            Output.line(reply.text)
            return
        }
        for event in outcome.events {
            Output.line(line(for: event))
        }
        for warning in outcome.warnings {
            Output.warning(warning)
        }
    }

    /// `event: APP NAME [TYPE] key=value…`; no options is no news, so they are left out then.
    static func line(for event: SessionEventMessage) -> String {
        var words = ["event:", event.app, event.name]
        if let type = event.type { words.append(type) }
        if let peer = event.peer { words.append("peer=\(peer)") }
        if let options = event.options, !options.isEmpty { words.append("options=" + options.joined(separator: ",")) }
        if let reason = event.reason { words.append("reason=\(reason)") }
        if let wasSuspended = event.wasSuspended { words.append("wasSuspended=\(wasSuspended)") }
        return words.joined(separator: " ")
    }
}
