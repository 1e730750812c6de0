import AudioSession
import Testing

/// Apps joining and leaving a running policy (admitted programs): the others keep their
/// sessions; what the newcomer's rules cause, and its leaving, reach them as the rules say.
@Suite("Session policy: apps joining and leaving")
struct MembershipTests {
    static let music = AppSessionSetup(id: "music", category: .playback, options: [.mixWithOthers], active: true,
                                       backgroundModes: [.audio])
    static let nav = AppSessionSetup(id: "nav", category: .playback, mode: .voicePrompt, options: [.duckOthers, .mixWithOthers],
                                     backgroundModes: [.audio])

    static func policy() -> SessionPolicy {
        var policy = SessionPolicy(apps: [music, nav, AppSessionSetup(id: "game", category: .ambient, foreground: true)])
        _ = policy.apply(.activate(app: "game"), at: 1)
        return policy
    }

    @Test("an admitted app starts with its setup in the background; the others' states do not change")
    func admitKeepsOthers() throws {
        var policy = Self.policy()
        let before = policy.states
        let player = AppSessionSetup(id: "mpv", category: .playback, options: [.mixWithOthers], active: true,
                                     backgroundModes: [.audio], foreground: true)
        let outcome = policy.admit(player, at: 2)
        #expect(outcome.error == nil)
        #expect(outcome.events.isEmpty, "\(outcome.events)")
        #expect(Array(policy.states.prefix(3)) == before)
        let state = try #require(policy.state(of: "mpv"))
        #expect((state.category, state.active, state.playing, state.foreground, state.gain) == (.playback, true, true, false, 1))
    }

    @Test("an admitted app is ducked by another's duckOthers, and a non-mixable one interrupts by the rules")
    func admittedFollowsTheRules() throws {
        var policy = Self.policy()
        _ = policy.apply(.activate(app: "nav"), at: 2)
        _ = policy.admit(AppSessionSetup(id: "mpv", category: .playback, options: [.mixWithOthers], active: true,
                                         backgroundModes: [.audio]), at: 3)
        #expect(policy.state(of: "mpv")?.ducked == true)
        #expect(policy.state(of: "mpv")?.gain == PolicyConfiguration().duckGain)
        // In the background without the audio mode it cannot start: refused, admitted inactive.
        let refused = policy.admit(AppSessionSetup(id: "quiet", category: .playback, active: true), at: 4)
        #expect(refused.error?.code == .cannotStartPlaying)
        #expect(policy.state(of: "quiet")?.active == false)
    }

    @Test("removing an app ends its session as a killed app's: others are told and restored; it is gone")
    func removeTerminates() throws {
        var policy = Self.policy()
        _ = policy.admit(AppSessionSetup(id: "radio", category: .playback, options: [.duckOthers], active: true,
                                         backgroundModes: [.audio]), at: 2)
        #expect(policy.state(of: "music")?.ducked == true)
        let events = policy.remove("radio", at: 3)
        #expect(policy.state(of: "radio") == nil)
        #expect(policy.states.map(\.id) == ["music", "nav", "game"])
        #expect(!events.contains { $0.app == "radio" })
        #expect(policy.state(of: "music")?.ducked == false)
        #expect(policy.state(of: "music")?.gain == 1)
        #expect(policy.remove("radio", at: 7).isEmpty)
    }

    @Test("an app that interrupted another and then left frees it: interruption ended with shouldResume")
    func removeEndsItsInterruptions() throws {
        var policy = SessionPolicy(apps: [AppSessionSetup(id: "music", category: .playback, active: true, backgroundModes: [.audio])])
        _ = policy.apply(.advanceTime(to: 1), at: 1)
        _ = policy.admit(AppSessionSetup(id: "call", category: .playAndRecord, mode: .voiceChat, active: true,
                                         backgroundModes: [.audio], entitlements: [.priorityAudio]), at: 2)
        #expect(policy.state(of: "music")?.interrupted == true)
        let events = policy.remove("call", at: 3)
        #expect(events.contains { $0.app == "music" && $0.kind == .interruption(type: .ended, reason: .default, shouldResume: true, wasSuspended: false) },
                "\(events)")
        #expect(policy.state(of: "music")?.interrupted == false)
        #expect(policy.state(of: "music")?.active == true)
    }
}
