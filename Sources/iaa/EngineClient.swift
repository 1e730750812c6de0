import ArgumentParser
import AudioGraph
import AudioSession
import ControlSocket
import Engine

/// One verb's conversation with the engine: each call either returns the result or reports the
/// failure on stderr and throws the exit code docs/command-line.md assigns to it.
struct EngineClient {
    let client: ControlClient

    /// Sends `method` and returns its result; a refusal or a transport failure is printed and thrown
    /// as an `ExitCode` (1 refused, 2 unreachable, 3 no such object).
    func call(_ call: ControlCall) throws -> ControlJSON {
        let reply: Result<ControlJSON, ControlError>
        do {
            reply = try client.call(call)
        } catch {
            throw Failure.report(error)
        }
        switch reply {
        case .success(let result): return result
        case .failure(let error): throw Failure.report(error)
        }
    }

    /// Like ``call(_:)`` but hands a refusal back instead of reporting it, for verbs that print
    /// some refusals their own way (`apply`'s `invalidGraph`).
    func attempt(_ call: ControlCall) throws -> Result<ControlJSON, ControlError> {
        do {
            return try client.call(call)
        } catch {
            throw Failure.report(error)
        }
    }
}

/// Maps failures to a diagnostic on stderr and an exit status.
enum Failure {
    /// Engine codes that mean "no such object" (exit 3, as wpctl does) rather than a refusal (exit 1).
    static let missingObjectCodes: Set<String> = Set([GraphErrorCode.unknownApp, .unknownPort, .unknownParameter].map(\.rawValue)
        + [EngineErrorCode.notConnected.rawValue, SessionError.Code.unknownApp.rawValue])

    /// The transport failed: nothing listens, no reply in time, or a reply that is not the protocol.
    /// All of them mean the engine is unreachable, exit 2.
    static func report(_ error: ControlSocketError) -> ExitCode {
        Output.error(error.message)
        return ExitCode(2)
    }

    /// The engine refused: `iaa: error[CODE]: MESSAGE`, then the field at fault when it names one.
    static func report(_ error: ControlError) -> ExitCode {
        Output.refusal(code: error.code, message: error.message)
        if let field = error.field { Output.diagnostic("  field: \(field)") }
        return ExitCode(exitStatus(for: error.code))
    }

    static func exitStatus(for code: String) -> Int32 {
        missingObjectCodes.contains(code) ? 3 : 1
    }
}
