import AudioSession
import Testing

/// Every row of every table, in one list for the three tests that walk them.
let allRows: [PolicyRow] = activationRows + categoryRows + optionRows + modeRows + categoryChangeRows
    + interruptionRows + backgroundRows + hearingRows + documentationRows

@Suite("Session policy")
struct SessionPolicyTests {
    @Test("each rule of docs/session-policy.md decides as its row says", arguments: allRows)
    func rowDecides(_ row: PolicyRow) {
        let failures = row.failures()
        let source = row.quote.map { "\n  Apple: \"\($0)\"" } ?? ""
        #expect(failures.isEmpty, "\(row.name):\(source)\n  \(failures.joined(separator: "\n  "))")
    }

    @Test("a refused action changes nothing", arguments: allRows.filter { $0.error != nil && $0.error != .isBusy })
    func refusalChangesNothing(_ row: PolicyRow) {
        let (before, outcome, after, _) = row.run(advancing: true)
        #expect(outcome.error != nil)
        #expect(before == after, "\(row.name): the policy changed")
        #expect(outcome.events.isEmpty)
    }

    @Test("isBusy changes the state it reports")
    func isBusyChanges() throws {
        let row = allRows.first { $0.error == .isBusy }
        let (before, outcome, after, _) = try #require(row).run()
        #expect(outcome.error?.code == .isBusy)
        #expect(before != after)
    }

    @Test("the same actions give the same events, states and deadlines", arguments: allRows)
    func rowIsDeterministic(_ row: PolicyRow) {
        let first = row.run()
        let second = row.run()
        #expect(first.outcome == second.outcome)
        #expect(first.after == second.after)
    }

    @Test("a whole timeline replays identically")
    func timelineIsDeterministic() {
        let first = Timeline.run()
        let second = Timeline.run()
        #expect(first.count == Timeline.steps.count)
        #expect(first == second)
        // The story reaches the rules it is meant to: a call, ducking, an expiry, isBusy.
        #expect(first.contains { $0.outcome.events.contains { $0.kind == .backgroundTaskWillExpire } })
        #expect(first.contains { $0.states.contains { $0.ducked } })
        #expect(first.contains { $0.outcome.error?.code == .isBusy })
    }

    @Test("every row's name is unique, so a failure points at one rule")
    func namesAreUnique() {
        #expect(Set(allRows.map(\.name)).count == allRows.count)
    }
}

/// A longer story touching most rules, for the determinism test.
enum Timeline {
    static let apps = [
        app("music", .playback, fg: true, audio: true),
        app("game", .ambient),
        app("nav", .playback, mode: .voicePrompt, options: [.duckOthers], audio: true),
        app("podcast", .playback, mode: .spokenAudio, audio: true),
        app("phone", .playAndRecord, audio: true, grants: [.priorityAudio, .microphone]),
    ]

    static let steps: [(Double, SessionAction)] = [
        (0, .activate(app: "music")),
        (1, .foreground(app: "game")),
        (1.5, .activate(app: "game")),
        (2, .activate(app: "nav")),
        (3, .beginBackgroundTask(app: "game")),
        (4, .device(silent: true, locked: nil)),
        (5, .activate(app: "phone")),
        (9, .deactivate(app: "phone", options: [.notifyOthersOnDeactivation])),
        (10, .startAudio(app: "music", recording: false)),
        (11, .device(silent: nil, locked: true)),
        (12, .route(available: false)),
        (13, .route(available: true)),
        (20, .advanceTime(to: 60)),
        (61, .device(silent: false, locked: false)),
        (62, .interrupt(.began, reason: .default)),
        (63, .interrupt(.ended, reason: .default)),
        (64, .deactivate(app: "music", options: [.notifyOthersOnDeactivation])),
    ]

    /// Everything observable after each step: the outcome, the states, Now Playing, the deadline.
    struct Snapshot: Equatable {
        var outcome: SessionOutcome
        var states: [AppSessionState]
        var nowPlayingApp: String?
        var nextDeadline: Double?
    }

    static func run() -> [Snapshot] {
        var policy = SessionPolicy(apps: apps)
        return steps.map { time, action in
            let outcome = policy.apply(action, at: time)
            return Snapshot(outcome: outcome, states: policy.states, nowPlayingApp: policy.nowPlayingApp,
                            nextDeadline: policy.nextDeadline)
        }
    }
}
