import CJack

/// A JACK failure, in words that say what happened and what to do about it.
public struct JackError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case serverNotRunning, nameInUse, openFailed, activateFailed, portRegistrationFailed
    }

    public let code: Code
    public let message: String
    public let hint: String?

    public var description: String {
        hint.map { "\(message)\n  hint: \($0)" } ?? message
    }

    /// Explains a failed `jack_client_open` from its status bits.
    static func openFailed(client: String, server: String?, status: jack_status_t) -> JackError {
        let bits = status.rawValue
        let serverText = server.map { "JACK server '\($0)'" } ?? "the default JACK server"
        if bits & JackNameNotUnique.rawValue != 0 {
            return JackError(code: .nameInUse, message: "JACK client name '\(client)' is already in use on \(serverText)",
                             hint: "another iaa may be running; stop it or choose another name with -n NAME")
        }
        if bits & (JackServerFailed.rawValue | JackServerError.rawValue) != 0 {
            return JackError(code: .serverNotRunning, message: "cannot connect to \(serverText): it is not running",
                             hint: "start it (jackd -d alsa, or jackd -d dummy without a sound card), or name another with -s SERVER")
        }
        return JackError(code: .openFailed, message: "jack_client_open('\(client)') failed on \(serverText) (status 0x\(String(bits, radix: 16)))",
                         hint: "check the server's log")
    }
}
