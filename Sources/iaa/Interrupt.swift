import ArgumentParser
import ControlSocket

/// `iaa interrupt begin|end [--reason R]`: a system interruption such as a phone call.
struct Interrupt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Begin or end a system interruption (a phone call, an alarm).",
        discussion: "`--reason call` is AVAudioSession's `default` reason: an incoming call.")

    /// The interruption's two ends.
    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case begin, end
    }

    /// AVAudioSessionInterruptionReason, plus `call` for people who think of the phone ringing.
    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case call, `default`, appWasSuspended, builtInMicMuted, routeDisconnected

        /// The name the protocol takes.
        var protocolName: String { self == .call ? "default" : rawValue }
    }

    @OptionGroup var engine: EngineOptions

    @Argument(help: "begin or end.")
    var phase: Phase

    @Option(help: "Why the interruption happened; builtInMicMuted mutes the built-in microphone (begin) and unmutes it (end), interrupting only sessions that record.")
    var reason: Reason?

    func run() throws {
        var params: [(String, ControlJSON)] = [("type", .string(phase.rawValue))]
        if let reason { params.append(("reason", .string(reason.protocolName))) }
        OutcomeReport.print(try engine.connect().call(.interrupt, .object(params)))
    }
}
