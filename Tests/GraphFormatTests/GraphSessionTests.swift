import GraphFormat
import AudioSession
import Testing

@Suite("Sessions and policy in graph files")
struct GraphSessionTests {
    /// A graph with `apps` (JSON object texts) and an optional top-level `policy`.
    static func load(apps: [String], policy: String? = nil) -> GraphLoadResult {
        let policyMember = policy.map { "\"policy\": \($0)," } ?? ""
        return TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "s", \(policyMember)
              "apps": [ \(apps.joined(separator: ",\n")) ] }
            """)
    }

    @Test("a session sets the app up as written, and absent fields take Apple's defaults")
    func sessions() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/sessions.json").graph)
        let session = { (id: String) in graph.apps.first { $0.id == id }?.session }
        #expect(session("daw") == AppSessionSetup(
            id: "daw", category: .playAndRecord, mode: .measurement, options: [.mixWithOthers, .allowBluetooth],
            active: true, backgroundModes: [.audio], entitlements: [.interAppAudio, .microphone], foreground: true,
            isInterAppAudio: true))
        #expect(session("synth") == AppSessionSetup(
            id: "synth", category: .playback, options: [.mixWithOthers], backgroundModes: [.audio],
            entitlements: [.interAppAudio], isInterAppAudio: true, requestedEntitlements: [.interAppAudio]))
        #expect(session("nav")?.options == [.duckOthers, .mixWithOthers])
        #expect(session("nav")?.foreground == false && session("nav")?.isInterAppAudio == false)
        #expect(session("phone")?.requestedEntitlements == [.microphone])
        #expect(session("game") == AppSessionSetup(id: "game"))
        #expect(graph.apps.first { $0.id == "fx" }.map { $0.session == nil } == true)
    }

    @Test("the policy block sets the duck level, ramp and background task time")
    func policy() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/sessions.json").graph)
        #expect(graph.policy == PolicyConfiguration(duckLevelDecibels: -18, rampSeconds: 0.02, backgroundTaskSeconds: 45))
        let plain = try #require(Self.load(apps: [#"{ "id": "g", "plugin": "builtin:gain" }"#]).graph)
        #expect(plain.policy == PolicyConfiguration())
    }

    @Test("policy values take decibels, seconds and milliseconds", arguments: [
        (#"{ "duckLevel": "-6 dB", "rampTime": "0.5s", "backgroundTaskTime": "600s" }"#, -6.0, 0.5, 600.0),
        (#"{ "duckLevel": 0, "rampTime": 1, "backgroundTaskTime": 0.5 }"#, 0, 1, 0.5),
        (#"{ "duckLevel": "-95.5dB", "rampTime": "1ms" }"#, -95.5, 0.001, 30),
    ])
    func policySpellings(policy: String, duck: Double, ramp: Double, task: Double) throws {
        let graph = try #require(Self.load(apps: [], policy: policy).graph)
        #expect(graph.policy.duckLevelDecibels == duck)
        #expect(abs(graph.policy.rampSeconds - ramp) < 1e-12)
        #expect(graph.policy.backgroundTaskSeconds == task)
    }

    @Test("policy values outside their range or without a unit are located errors")
    func policyErrors() {
        let result = Self.load(apps: [], policy: """
            { "duckLevel": -96, "rampTime": "0ms", "backgroundTaskTime": 601, "fadeTime": 1 }
            """)
        #expect(result.errors.map(\.code) == [.outOfRange, .outOfRange, .outOfRange, .unknownKey])
        #expect(result.errors.map(\.pointer) == [
            "/policy/duckLevel", "/policy/rampTime", "/policy/backgroundTaskTime", "/policy/fadeTime",
        ])
        #expect(result.errors.first?.message == "\"duckLevel\" is -96 dB, outside its range: above -96 dB and at most 0 dB")
        #expect(result.errors[1].message == "\"rampTime\" is 0 s, outside its range: above 0 s and at most 1 s")
        let unitless = Self.load(apps: [], policy: #"{ "duckLevel": "-12", "rampTime": "10 min", "backgroundTaskTime": true }"#)
        #expect(unitless.errors.map(\.code) == [.invalidValue, .invalidValue, .wrongType])
        #expect(unitless.errors.first?.hint == "write a number of decibels or a string such as \"-12dB\"")
    }

    @Test("an unsupported mode is exactly one warning, and the graph still loads")
    func unsupportedMode() throws {
        let result = Self.load(apps: [#"{ "id": "music", "plugin": "builtin:oscillator", "session": { "category": "playback", "mode": "voiceChat" } }"#])
        let graph = try #require(result.graph)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.count == 1)
        let warning = try #require(result.warnings.first)
        #expect(warning.code == .unsupportedMode && warning.severity == .warning)
        #expect(warning.pointer == "/apps/0/session/mode")
        #expect(warning.message == "category \"playback\" does not support mode \"voiceChat\", so the session behaves as mode \"default\" (playback supports: default, measurement, moviePlayback, spokenAudio, voicePrompt)")
        #expect(warning.hint == "mode \"voiceChat\" needs category playAndRecord")
        // The mode is kept as asked: the policy reports the effective mode as `default`.
        #expect(graph.apps[0].session?.mode == .voiceChat)
    }

    @Test("an option the category does not accept is an error at the option")
    func badOption() throws {
        let result = Self.load(apps: [#"""
            { "id": "rec", "plugin": "builtin:gain",
              "session": { "category": "record", "options": ["allowBluetooth", "duckOthers", "defaultToSpeaker"] } }
            """#])
        #expect(result.errors.map(\.code) == [.badOption, .badOption])
        #expect(result.errors.map(\.pointer) == ["/apps/0/session/options/1", "/apps/0/session/options/2"])
        #expect(result.errors.first?.message == "category \"record\" does not accept option \"duckOthers\" (accepts: allowBluetooth)")
        #expect(result.errors.first?.hint == "option \"duckOthers\" needs category playback, playAndRecord or multiRoute")
        #expect(result.errors.first.map { "\($0.line ?? 0):\($0.column ?? 0)" } == "3:68")
    }

    @Test("interruptSpokenAudioAndMixWithOthers implies mixWithOthers")
    func impliedMixing() throws {
        let graph = try #require(Self.load(apps: [#"""
            { "id": "pod", "plugin": "builtin:oscillator",
              "session": { "category": "multiRoute", "options": ["interruptSpokenAudioAndMixWithOthers"] } }
            """#]).graph)
        #expect(graph.apps[0].session?.options == [.interruptSpokenAudioAndMixWithOthers, .mixWithOthers])
    }

    @Test("misspelt session values are errors with a did-you-mean, all of them at once")
    func misspellings() {
        let result = Self.load(apps: [#"""
            { "id": "a", "plugin": "builtin:gain", "session": { "mode": "voicePromt", "options": ["mixWithOther"], "active": "yes", "volume": 1 },
              "entitlements": ["microphon"], "requires": ["priority"], "backgroundModes": ["Audio"], "state": "forground" }
            """#])
        #expect(result.errors.map(\.pointer) == [
            "/apps/0/session/mode", "/apps/0/session/options/0", "/apps/0/session/active", "/apps/0/session/volume",
            "/apps/0/entitlements/0", "/apps/0/requires/0", "/apps/0/backgroundModes/0", "/apps/0/state",
        ])
        #expect(result.errors.map(\.hint) == [
            "did you mean \"voicePrompt\"?", "did you mean \"mixWithOthers\"?", nil,
            "allowed keys: category, mode, options, active",
            "did you mean \"microphone\"?",
            "entitlements: inter-app-audio, priority-audio, microphone",
            "did you mean \"audio\"?", "did you mean \"foreground\"?",
        ])
        #expect(result.errors.first?.message == "unknown mode \"voicePromt\"")
        #expect(result.errors[2].message == "\"active\" must be true or false, not string")
    }

    @Test("a second foreground app is an error that names the first")
    func twoForegroundApps() {
        let result = Self.load(apps: [
            #"{ "id": "a", "plugin": "builtin:gain", "session": {}, "state": "foreground" }"#,
            #"{ "id": "b", "plugin": "builtin:gain", "session": {}, "state": "background" }"#,
            #"{ "id": "c", "plugin": "builtin:gain", "session": {}, "state": "foreground" }"#,
        ])
        #expect(result.errors.map(\.code) == [.duplicateForeground])
        #expect(result.errors.first?.pointer == "/apps/2/state")
        #expect(result.errors.first?.message == "app \"c\" starts in the foreground, but app \"a\" already does (line 2)")
    }

    @Test("session fields on an app without a session are checked, then ignored with a warning")
    func ignoredFields() throws {
        let result = Self.load(apps: [
            #"{ "id": "fx", "plugin": "builtin:gain", "backgroundModes": ["audio"], "state": "foreground", "entitlements": [] }"#,
            #"{ "id": "b", "plugin": "builtin:gain", "session": {}, "state": "foreground" }"#,
        ])
        let graph = try #require(result.graph)
        #expect(graph.apps[0].session == nil && graph.apps[1].session?.foreground == true)
        #expect(result.warnings.map(\.code) == [.ignoredSessionField])
        let warning = try #require(result.warnings.first)
        #expect(warning.pointer == "/apps/0/entitlements")
        #expect(warning.message == "\"entitlements\", \"backgroundModes\" and \"state\" only apply to apps with a session, and app \"fx\" has none")
        #expect(warning.hint == "add \"session\": {} to app \"fx\" if the policy should manage it")
        let typo = Self.load(apps: [#"{ "id": "fx", "plugin": "builtin:gain", "state": "backgroud" }"#])
        #expect(typo.errors.map(\.hint) == ["did you mean \"background\"?"])
    }

    @Test("a session of the wrong type is one error, and still counts as written")
    func sessionType() {
        let result = Self.load(apps: [#"{ "id": "a", "plugin": "builtin:gain", "session": "playback", "state": "background" }"#])
        #expect(result.errors.map(\.code) == [.wrongType])
        #expect(result.warnings.isEmpty)
    }
}
