import ControlSocket

/// Prints an Outcome (the reply to every session action): each event on its own line on stdout,
/// each warning on stderr.
///
/// The event line reads like a sentence so a person driving a scenario from a shell can follow it:
/// `event: music interruption began reason=default options=shouldResume`.
enum OutcomeReport {
    static func print(_ outcome: ControlJSON) {
        for event in outcome["events"]?.elements ?? [] {
            Output.line(line(for: event))
        }
        for warning in outcome["warnings"]?.elements ?? [] {
            Output.warning(warning.plainText)
        }
    }

    /// `event: APP NAME [TYPE] key=value…`; empty arrays are left out (no options is no news).
    static func line(for event: ControlJSON) -> String {
        var words = ["event:"]
        if let app = event["app"] { words.append(app.plainText) }
        if let name = event["name"] { words.append(name.plainText) }
        if let type = event["type"] { words.append(type.plainText) }
        for (key, value) in event.members where !["app", "name", "type"].contains(key) {
            if case .array(let values) = value, values.isEmpty { continue }
            words.append("\(key)=\(value.plainText)")
        }
        return words.joined(separator: " ")
    }
}
