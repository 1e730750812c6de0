import AudioGraph
import ControlSocket

/// The engine's own refusal codes. A refused request carries one of these, a graph file's code
/// (``GraphErrorCode``: `unknownApp`, `unknownPort`, `parameterOutOfRange`, …) or, for a session
/// action, AVAudioSession's (`SessionError.Code`). PROTOCOL.md lists them all.
public enum EngineErrorCode: String, CaseIterable, Sendable {
    /// The method is not one of the protocol's.
    case unknownMethod
    /// A parameter is missing or has the wrong type or value (`field` names it).
    case invalidParams
    /// JACK refused a connection or a buffer size.
    case jackRefused
    /// `disconnect` of two ports that are not connected.
    case notConnected
    /// A JACK port the graph's `jack.expose` hides.
    case notExposed
    /// `remote` before any app has played non-mixable audio in the foreground.
    case noNowPlayingApp
    /// `apply` of a graph that does not validate (the message holds its diagnostics).
    case invalidGraph
    /// `apply` of a graph that names another JACK client.
    case clientChange
    /// `reload` of an app whose node type is built in.
    case notReloadable
    /// `reload` of an app whose library file can no longer be read.
    case libraryMissing
    /// `reload` of a library whose rebuild changes the app's ports, parameters or component.
    case libraryChanged
    /// The rebuilt library's `create` refused.
    case createFailed
    /// A connection attached to a program app acts beyond that app (`field`: `app` or `method`).
    case notOwner
    /// `program.attach` for an app that is not a program app.
    case notAProgram
    /// `program.attach` for an app another process speaks for already.
    case appInUse
    /// `program.attach` for an app the graph does not name, refused by its `programs.admit`
    /// (the name, the process or the limit); without the block it is `unknownApp`.
    case notAdmitted
    /// A change the engine could not keep on disk (a full disk, a read-only state folder):
    /// nothing was changed (docs/state.md).
    case notDurable
    /// Anything the engine did not expect (a bug; the message says what).
    case `internal`
}

extension ControlError {
    /// A refused request with one of the engine's codes.
    init(_ code: EngineErrorCode, _ message: String, field: String? = nil) {
        self.init(code: code.rawValue, message: message, field: field)
    }

    /// A refused request with a graph file's code.
    init(_ code: GraphErrorCode, _ message: String, field: String? = nil) {
        self.init(code: code.rawValue, message: message, field: field)
    }

    /// A refused command in the protocol's terms. A session refusal has AVAudioSession's name as
    /// its code and the four-character code first in the message.
    init(_ refusal: CommandRefusal) {
        switch refusal {
        case .session(let error):
            self.init(code: error.code.rawValue, message: "('\(error.code.fourCC)') \(error.message)", field: "app")
        case .connect(let error):
            self.init(error.code, error.hint.map { "\(error.message); \($0)" } ?? error.message)
        case .disconnect(let error):
            self.init(.notConnected, error.message)
        case .portsRefused(let pair, let reason):
            self.init(.jackRefused, "cannot connect \(pair.source) -> \(pair.destination): \(reason)")
        case .portsNotConnected(let pair):
            self.init(.notConnected, "\(pair.source) is not connected to \(pair.destination)")
        }
    }
}
