import ControlSocket
import AudioGraph
import RenderCore
import AudioSession

/// Why an ``EngineCommand`` was refused; nothing it would have changed has changed (a refused
/// session action may still have caused events, which its ``CommandOutcome`` carries). A live
/// request turns it into a protocol error (`ControlError.init(_:)`), an offline render into its
/// log entry (`logEntry`).
enum CommandRefusal: Error {
    /// The session policy refused the action, with AVAudioSession's code.
    case session(SessionError)
    /// A connection between apps would close a cycle, exists already, or breaks Inter-App Audio's rules.
    case connect(GraphEditError)
    /// A connection between apps to remove is not there.
    case disconnect(GraphEditError)
    /// The backend could not connect two outside ports (JACK refused, or there are none offline).
    case portsRefused(PortPair, reason: String)
    /// Two outside ports to disconnect are not connected.
    case portsNotConnected(PortPair)

    /// The refusal as the scenario log writes it: a code, AVAudioSession's four-character code
    /// where Apple has one, and the message with its hint.
    var logEntry: (code: String, fourCC: String, message: String) {
        switch self {
        case .session(let error):
            return (error.code.rawValue, error.code.fourCC, error.message)
        case .connect(let error), .disconnect(let error):
            // Inter-App Audio's refusals are AVAudioSession's too.
            let fourCC: String
            switch error.code {
            case .missingEntitlement: fourCC = SessionError.Code.missingEntitlement.fourCC
            case .incompatibleCategory: fourCC = SessionError.Code.incompatibleCategory.fourCC
            default: fourCC = ""
            }
            return (error.code.rawValue, fourCC, error.hint.map { "\(error.message); \($0)" } ?? error.message)
        case .portsRefused, .portsNotConnected:
            let error = ControlError(self)
            return (error.code, "", error.message)
        }
    }
}

/// What performing an ``EngineCommand`` did.
struct CommandOutcome {
    /// Set when the command was refused.
    var refusal: CommandRefusal?
    /// The session events it caused, in order.
    var events: [SessionEvent] = []
    /// The session policy's warnings about an action it accepted; for `apply`, those about the
    /// graph's connection rules.
    var warnings: [String] = []
    /// For `connectPorts`, whether each pair was connected already.
    var alreadyConnected: [Bool] = []
    /// For `apply`, what changed.
    var diff: GraphDiff?

    static func refused(_ refusal: CommandRefusal) -> CommandOutcome {
        CommandOutcome(refusal: refusal)
    }
}

extension CommandOutcome {
    /// What a change made live answers (`set`, `connect`, `disconnect`; session actions and
    /// `apply` answer otherwise), with `graph`'s names for its ports.
    func reply(to command: EngineCommand, in graph: Graph) -> ControlJSON {
        switch command {
        case .setParameter(let app, let index, let value):
            let name = graph.appIndex(app).map { graph.apps[$0].type.parameters[index].name } ?? "\(index)"
            return SetReply(app: app, param: name, value: Double(value)).json
        case .connect(let connections):
            return ConnectionsReply(.connected, connections.map { connection in
                let (from, to) = graph.names(connection)
                return .init(from: from, to: to, isInternal: true, already: false)
            }).json
        case .connectPorts(let pairs):
            return ConnectionsReply(.connected, zip(pairs, alreadyConnected).map { pair, already in
                .init(from: pair.source, to: pair.destination, isInternal: false, already: already)
            }).json
        case .disconnect(let connections):
            return ConnectionsReply(.disconnected, connections.map { connection in
                let (from, to) = graph.names(connection)
                return .init(from: from, to: to, isInternal: true)
            }).json
        case .disconnectPorts(let pairs):
            return ConnectionsReply(.disconnected, pairs.map { .init(from: $0.source, to: $0.destination, isInternal: false) }).json
        case .session, .midi, .transport, .apply:
            // No request reads MIDI or transport; session actions and apply are answered by their callers.
            preconditionFailure("no change reply for \(command)")
        }
    }

    /// A session action's reply. A refusal is an error with AVAudioSession's name as its code and
    /// the four-character code first in the message; `isBusy` too, after the changes it made.
    func sessionReply(sessions: [AppSessionState]) -> ControlReply {
        if let refusal { return .error(ControlError(refusal)) }
        return .result(ActionOutcome(events: events.map(SessionLog.message), warnings: warnings,
                                     sessions: sessions.map { (app: $0.id, session: SessionLog.state($0)) }).json)
    }
}
