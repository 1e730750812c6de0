import ArgumentParser
import ControlSocket

/// `iaa interrupt begin|end [--reason R]`: a system interruption such as a phone call.
struct Interrupt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interrupt",
        abstract: "Begin or end a system interruption (a phone call, an alarm).",
        discussion: "`--reason call` is AVAudioSession's `default` reason: an incoming call.")

    /// The interruption's two ends.
    typealias Phase = ControlCall.InterruptionPhase

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
        OutcomeReport.print(try engine.connect().call(.interrupt(type: phase, reason: reason?.protocolName)))
    }
}
