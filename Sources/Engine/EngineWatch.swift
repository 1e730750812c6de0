import AudioGraph
import RenderCore
import AudioSession
import ControlSocket
import Foundation
import Isolation
import JackBackend

/// What watching the running engine needs of it beyond ``EngineHost``: the queue its meters
/// timer runs on, whether a program app is away (`not running` in `top`), the deadline share,
/// and the isolated nodes.
protocol WatchHost: EngineHost {
    var queue: DispatchQueue { get }
    func programIsAway(_ app: App) -> Bool
    var cycles: CycleSettings { get }
    var isolated: IsolatedApps? { get }
}

/// The running engine's health and levels, told once and truthfully: xruns (JACK's, the
/// engine's own, those the system caused), a stall of the audio thread, nodes muted or bypassed
/// for a fault; each app's level and share of the period for `top` and the `meters` stream.
/// This component owns what has been told (``HealthWatch``), the levels taken (``LevelMeters``)
/// and the `meters` timer; the core's tick calls it. Confined to the engine's control queue.
final class EngineWatch: @unchecked Sendable {
    var health = HealthWatch()
    /// Each app's level for `top` and the `meters` stream.
    var levels = LevelMeters()
    /// The `meters` lines' timer, while someone follows them.
    private var metersTimer: DispatchSourceTimer?
    unowned let host: WatchHost

    init(host: WatchHost) {
        self.host = host
    }

    /// Says once, on the event stream and stderr, that an app was muted or bypassed for a fault.
    func tellFault(_ slot: NodeSlot, at time: Double) {
        let app = slot.appID
        guard health.newFault(app) else { return }
        let fault = describeFault(slot)
        host.publisher.announce(.event(.faultHandled(app: app, action: fault.action, fault: fault.kind,
                                                     reason: "\(fault.reason); re-enable it with `iaa enable \(app)`")), at: time)
        StandardError.warning("app \"\(app)\" is \(fault.action.rawValue): \(fault.reason); `iaa enable \(app)` re-enables it")
    }

    /// One `xrun` line on the event stream per tick in which JACK reported xruns or a cycle ran
    /// past the period: how many, how many were iaa's (past the period on its CPU time), and how
    /// many only by the clock (the system took the CPU away), with the cycle count for context.
    func announceXruns(at time: Double) {
        let backend = host.backend
        let counters = HealthWatch.Xruns(all: backend.xrunCount, ours: backend.ourXrunCount, preempted: backend.preemptedOverrunCount)
        guard let new = health.newXruns(counters) else { return }
        host.publisher.announce(.xrun(XrunReport(count: Int(new.all), oursCount: Int(new.ours), preempted: Int(new.preempted),
                                                  cycle: Int(backend.cycleCount))), at: time)
    }

    /// One `isolatedLate` line per tick in which the child of an isolated app left cycles
    /// unanswered: the app was silent in them, which neither a fault nor an xrun tells.
    func announceLateCycles(_ slot: NodeSlot, at time: Double) {
        guard let node = slot.anyNode as? IsolatedNode else { return }
        let total = node.lateCycles
        guard let new = health.newLateCycles(slot.appID, total: total) else { return }
        host.publisher.announce(.event(.isolatedLate(app: slot.appID, cycles: Int(new), lateCycles: Int(total))), at: time)
    }

    /// How a faulted slot is handled and why, in the words of events and `status`.
    func describeFault(_ slot: NodeSlot) -> (kind: String, action: EngineEvent.FaultAction, reason: String) {
        switch slot.fault {
        case .deadline:
            return ("deadline", slot.canBypass ? .bypassed : .muted,
                    "its process took more than \(Int((host.cycles.deadlineShare * 100).rounded())) % of the period in 3 consecutive cycles")
        case .nonFinite, .none:
            return ("nonFinite", .muted, "its output held NaN or infinity")
        }
    }

    /// Re-enables an app muted for a fault.
    func enable(_ app: String) -> Bool {
        if host.isolated?.enable(app) == true { return true }
        guard let slot = host.backend.currentPlan?.slot(for: app), slot.isFaulted else { return false }
        slot.clearFault()
        health.cleared(app)
        return true
    }

    /// An app's state in `iaa top`'s words: what keeps it from being heard first (a program
    /// that is not there, an isolated child that is not running), then its session.
    private func topState(_ app: App, session: AppSessionState?) -> TopUpdate.State {
        if host.programIsAway(app) { return .notRunning }
        switch host.isolated?.node(app.id)?.status.state {
        case .starting?: return .isolatedStarting
        case .restarting?: return .isolatedRestarting
        case .off?: return .isolatedOff
        case .running?, nil: break
        }
        guard let session else { return .running }
        // An interrupted app is suspended too when it is in the background: the interruption is
        // what the user needs to see, for every app the call took, foreground or not.
        if session.interrupted { return .interrupted }
        if session.suspended { return .suspended }
        if session.ducked { return .ducked }
        if session.audible { return .audible }
        return session.active ? .silent : .inactive
    }

    /// Turns the audio thread's per-app metering on while someone follows `top` or `meters`.
    func followMetering() {
        host.backend.setMetering(host.publisher.isWatched("top") || host.publisher.isWatched("meters"))
    }

    /// Starts the `meters` lines for a new follower; they stop by themselves once nobody follows.
    /// A timer of their own rather than the control tick's: while nobody looks at levels the
    /// engine does exactly what it did before there were any.
    func followMeters() {
        host.checkOnQueue()
        guard metersTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: host.queue)
        timer.schedule(deadline: .now() + MetersUpdate.interval, repeating: MetersUpdate.interval)
        timer.setEventHandler { [weak self] in self?.publishMeters() }
        metersTimer = timer
        followMetering()
        timer.resume()
    }

    /// One `meters` line (20 a second): each app's peak and RMS since the previous one.
    func publishMeters() {
        host.checkOnQueue()
        followMetering()
        guard host.publisher.isWatched("meters") else {
            metersTimer?.cancel()
            metersTimer = nil
            return
        }
        let levels = self.levels.take(host.backend.currentPlan, apps: host.graph.apps.map(\.id), keepingForTop: host.publisher.isWatched("top"))
        host.publisher.publish(MetersUpdate(time: host.now, levels: levels).json, topic: "meters")
    }

    /// One `iaa top` line: the engine's share of the period, and each app's gain and state.
    func publishTop() {
        host.checkOnQueue()
        followMetering()
        guard host.publisher.isWatched("top") else { return }
        let busy = host.backend.takeBusyTimes()
        let period = Double(host.backend.currentBufferSize) / host.backend.sampleRate
        let plan = host.backend.currentPlan
        let apps = host.graph.apps.map { app in
            let meter = self.levels.takeForTop(plan, app: app.id)
            return TopUpdate.App(id: app.id, busy: (meter?.seconds ?? 0) / period,
                                 peak: meter.flatMap { LevelMeters.decibels($0.peak) },
                                 gain: Double(plan?.slot(for: app.id)?.policyGainTargetValue ?? 1),
                                 state: topState(app, session: host.sessions.policy.state(of: app.id)))
        }
        let render = host.backend.renderThreads
        let update = TopUpdate(time: host.now, period: period, busy: busy.last / period, busyMax: busy.maximum / period,
                               dspLoad: host.backend.dspLoad, xruns: host.backend.xrunCount, ourXruns: host.backend.ourXrunCount, apps: apps,
                               split: render.split, workers: render.workerBusySeconds.map { $0 / period })
        host.publisher.publish(update.json, topic: "top")
    }

    /// `status`'s `jack.stalled`: nil, or the app the audio thread is stuck in and for how long.
    func stall() -> JackStatus.Stall? {
        guard let stall = host.backend.stall else { return nil }
        return JackStatus.Stall(app: stall.app, seconds: (stall.seconds * 10).rounded() / 10,
                                reason: Self.stallReason(stall.app, seconds: stall.seconds))
    }

    /// The stalled app's `fault` entry, when `app` is the one the audio thread is stuck in.
    func stallFault(_ app: String) -> AppStatus.Fault? {
        guard let stall = host.backend.stall, stall.app == app else { return nil }
        return AppStatus.Fault(kind: "hang", action: "stalled", reason: Self.stallReason(app, seconds: stall.seconds))
    }

    /// One `audioStalled` event when a stall is first seen, one `audioResumed` when cycles run
    /// again (a node that was only very slow). Called on every control tick.
    func announceStall(at time: Double) {
        guard let change = health.stallChange(host.backend.stall) else { return }
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
        host.publisher.announce(.event(event), at: time)
    }

    static func stallReason(_ app: String?, seconds: Double) -> String {
        let whereStuck = app.map { "app \"\($0)\"'s process call" } ?? "the engine's cycle"
        let advice = app.map { " Restart the engine, and give \"\($0)\" \"isolation\": \"process\" so that a hang silences only it." } ?? ""
        return "\(whereStuck) has not returned for \((seconds * 10).rounded() / 10) s: the audio thread is stuck, every app is silent and JACK counts an xrun each period (ours).\(advice)"
    }
}
