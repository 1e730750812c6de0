import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import JackBackend

/// Watching the running engine on every control tick: the session clock, faulted nodes, xruns,
/// transport requests from nodes, and the `top` stream. Stalls are in EngineCore+Stall.
extension EngineCore {
    /// Runs on every control tick: the session clock, node transport requests, retired plans.
    func tick() {
        checkOnQueue()
        let time = now
        if let deadline = sessions.nextDeadline, deadline <= time {
            publisher.publish(applySession(.advanceTime(to: time), at: time).events)
        }
        backend.collectRetiredPlans()
        announceXruns(at: time)
        announceStall(at: time)
        // Twice a second: a refused rule connection is tried again (``RuleBook``).
        if rules.book.hasFailures, Int(time * 10) % 5 == 0 { keepRules() }
        if programs.roster.retryDue, Int(time * 10) % 5 == 0 { programs.route() }
        if Int(time * 10) % 5 == 0, programs.roster.awaitingProcess(at: time) { programs.identify() }
        followLatency()
        announceDecisions()
        backend.updateSplit()
        guard let plan = backend.currentPlan else { return }
        // Ten times a second over every app, so one pass straight over the slots: a lookup by id
        // per app was quadratic (at 203 apps 0.14 ms a tick, 1.8 µs per 64-frame cycle).
        for slot in plan.appSlots {
            if slot.isFaulted && health.newFault(slot.appID) { reportFault(slot, at: time) }
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

    /// Says once, on the event stream and stderr, that an app was muted or bypassed for a fault.
    private func reportFault(_ slot: NodeSlot, at time: Double) {
        let app = slot.appID
        let fault = describeFault(slot)
        publisher.announce(.event(.faultHandled(app: app, action: fault.action, fault: fault.kind,
                                                reason: "\(fault.reason); re-enable it with `iaa enable \(app)`")), at: time)
        StandardError.warning("app \"\(app)\" is \(fault.action.rawValue): \(fault.reason); `iaa enable \(app)` re-enables it")
    }

    /// One `xrun` line on the event stream per tick in which JACK reported xruns or a cycle ran
    /// past the period: how many, how many were iaa's (past the period on its CPU time), and how
    /// many only by the clock (the system took the CPU away), with the cycle count for context.
    func announceXruns(at time: Double) {
        let counters = HealthWatch.Xruns(all: backend.xrunCount, ours: backend.ourXrunCount, preempted: backend.preemptedOverrunCount)
        guard let new = health.newXruns(counters) else { return }
        publisher.announce(.xrun(XrunReport(count: Int(new.all), oursCount: Int(new.ours), preempted: Int(new.preempted),
                                             cycle: Int(backend.cycleCount))), at: time)
    }

    /// How a faulted slot is handled and why, in the words of events and `status`.
    func describeFault(_ slot: NodeSlot) -> (kind: String, action: EngineEvent.FaultAction, reason: String) {
        switch slot.fault {
        case .deadline:
            return ("deadline", slot.canBypass ? .bypassed : .muted,
                    "its process took more than \(Int((deadlineShare * 100).rounded())) % of the period in 3 consecutive cycles")
        case .nonFinite, .none:
            return ("nonFinite", .muted, "its output held NaN or infinity")
        }
    }

    /// Re-enables an app muted for a fault.
    func enable(_ app: String) -> Bool {
        if enableIsolated(app) { return true }
        guard let slot = backend.currentPlan?.slot(for: app), slot.isFaulted else { return false }
        slot.clearFault()
        health.cleared(app)
        return true
    }

    /// An app's state in `iaa top`'s words: what keeps it from being heard first (a program
    /// that is not there, an isolated child that is not running), then its session.
    private func topState(_ app: App, session: AppSessionState?) -> TopUpdate.State {
        if programs.isAway(app) { return .notRunning }
        switch isolatedNode(app.id)?.status.state {
        case .starting?: return .isolatedStarting
        case .restarting?: return .isolatedRestarting
        case .off?: return .isolatedOff
        case .running?, nil: break
        }
        guard let session else { return .running }
        if session.suspended { return .suspended }
        if session.interrupted { return .interrupted }
        if session.ducked { return .ducked }
        if session.audible { return .audible }
        return session.active ? .silent : .inactive
    }

    /// Turns the audio thread's per-app metering on while someone follows `top` or `meters`.
    func followMetering() {
        backend.setMetering(publisher.isWatched("top") || publisher.isWatched("meters"))
    }

    /// Starts the `meters` lines for a new follower; they stop by themselves once nobody follows.
    /// A timer of their own rather than the control tick's: while nobody looks at levels the
    /// engine does exactly what it did before there were any.
    func followMeters() {
        checkOnQueue()
        guard metersTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + MetersUpdate.interval, repeating: MetersUpdate.interval)
        timer.setEventHandler { [weak self] in self?.publishMeters() }
        metersTimer = timer
        followMetering()
        timer.resume()
    }

    /// One `meters` line (20 a second): each app's peak and RMS since the previous one.
    func publishMeters() {
        checkOnQueue()
        followMetering()
        guard publisher.isWatched("meters") else {
            metersTimer?.cancel()
            metersTimer = nil
            return
        }
        let levels = levels.take(backend.currentPlan, apps: graph.apps.map(\.id), keepingForTop: publisher.isWatched("top"))
        publisher.publish(MetersUpdate(time: now, levels: levels).json, topic: "meters")
    }

    /// One `iaa top` line: the engine's share of the period, and each app's gain and state.
    func publishTop() {
        checkOnQueue()
        followMetering()
        guard publisher.isWatched("top") else { return }
        let busy = backend.takeBusyTimes()
        let period = Double(backend.currentBufferSize) / backend.sampleRate
        let plan = backend.currentPlan
        let apps = graph.apps.map { app in
            let meter = levels.takeForTop(plan, app: app.id)
            return TopUpdate.App(id: app.id, busy: (meter?.seconds ?? 0) / period,
                                 peak: meter.flatMap { LevelMeters.decibels($0.peak) },
                                 gain: Double(plan?.slot(for: app.id)?.policyGainTargetValue ?? 1),
                                 state: topState(app, session: sessions.policy.state(of: app.id)))
        }
        let render = backend.renderThreads
        let update = TopUpdate(time: now, period: period, busy: busy.last / period, busyMax: busy.maximum / period,
                               dspLoad: backend.dspLoad, xruns: backend.xrunCount, ourXruns: backend.ourXrunCount, apps: apps,
                               split: render.split, workers: render.workerBusySeconds.map { $0 / period })
        publisher.publish(update.json, topic: "top")
    }
}
