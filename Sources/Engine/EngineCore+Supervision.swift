import AudioSession
import ControlSocket
import Foundation
import JackBackend

/// The control tick: the session clock, what is due again (rules, programs, latency, decisions),
/// health told (``EngineWatch``), and transport requests from nodes.
extension EngineCore {
    /// Runs on every control tick: the session clock, node transport requests, retired plans.
    func tick() {
        checkOnQueue()
        let time = now
        if let deadline = sessions.nextDeadline, deadline <= time {
            publisher.publish(applySession(.advanceTime(to: time), at: time).events)
        }
        backend.collectRetiredPlans()
        watch.announceXruns(at: time)
        watch.announceStall(at: time)
        // Twice a second: a refused rule connection is tried again (``RuleBook``).
        if connections.rules.book.hasFailures, Int(time * 10) % 5 == 0 { connections.keepRules() }
        if programs.roster.retryDue, Int(time * 10) % 5 == 0 { programs.route() }
        if Int(time * 10) % 5 == 0, programs.roster.awaitingProcess(at: time) { programs.identify() }
        followLatency()
        programs.announceDecisions()
        links.tick()
        backend.updateSplit()
        guard let plan = backend.currentPlan else { return }
        // Ten times a second over every app, so one pass straight over the slots: a lookup by id
        // per app was quadratic (at 203 apps 0.14 ms a tick, 1.8 µs per 64-frame cycle).
        for slot in plan.appSlots {
            if slot.isFaulted { watch.tellFault(slot, at: time) }
            watch.announceLateCycles(slot, at: time)
            switch slot.takeTransportRequest() {
            case .play: backend.startTransport()
            case .stop: backend.stopTransport()
            case .toggleRecord:
                let recording = backend.toggleRecording()
                publisher.announce(.transport(RecordingToggle(recording: recording, by: slot.appID)), at: time)
            case .none: break
            }
        }
    }
}
