import AudioGraph
import ControlSocket

/// An app in the engine's process whose `process` call never returns (an endless loop): the
/// audio thread is stuck in it, every app is silent and JACK reports an xrun each period. A node
/// running in our own thread cannot be stopped; what the engine owes the user is the truth, in
/// `status` and on the event stream, naming the app and the way out (isolating it).
extension EngineCore {
    /// `status`'s `jack.stalled`: nil, or the app the audio thread is stuck in and for how long.
    func stall() -> JackStatus.Stall? {
        guard let stall = backend.stall else { return nil }
        return JackStatus.Stall(app: stall.app, seconds: (stall.seconds * 10).rounded() / 10,
                                reason: Self.stallReason(stall.app, seconds: stall.seconds))
    }

    /// The stalled app's `fault` entry, when `app` is the one the audio thread is stuck in.
    func stallFault(_ app: String) -> AppStatus.Fault? {
        guard let stall = backend.stall, stall.app == app else { return nil }
        return AppStatus.Fault(kind: "hang", action: "stalled", reason: Self.stallReason(app, seconds: stall.seconds))
    }

    /// One `audioStalled` event when a stall is first seen, one `audioResumed` when cycles run
    /// again (a node that was only very slow). Called on every control tick.
    func announceStall(at time: Double) {
        guard let change = health.stallChange(backend.stall) else { return }
        let event: EngineEvent
        switch change {
        case .began(let app, let seconds):
            let reason = Self.stallReason(app, seconds: seconds)
            event = .audioStalled(app: app, reason: reason)
            StandardError.warning(reason)
        case .ended:
            event = .audioResumed
            StandardError.write("iaa: the audio thread runs cycles again")
        }
        publisher.announce(.event(event), at: time)
    }

    static func stallReason(_ app: String?, seconds: Double) -> String {
        let whereStuck = app.map { "app \"\($0)\"'s process call" } ?? "the engine's cycle"
        let advice = app.map { " Restart the engine, and give \"\($0)\" \"isolation\": \"process\" so that a hang silences only it." } ?? ""
        return "\(whereStuck) has not returned for \((seconds * 10).rounded() / 10) s: the audio thread is stuck, every app is silent and JACK counts an xrun each period (ours).\(advice)"
    }
}
