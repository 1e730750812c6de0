import AudioGraph
import GraphFormat
import AudioSession
import Testing
import TestKit

@Suite("Timeline files")
struct TimelineFileTests {
    static let graphPath = "Tests/Fixtures/graphs/valid/sessions.json"
    static let invalidFixtures = Repository.graphFiles(in: "Tests/Fixtures/timelines/invalid")

    static func graph() throws -> Graph {
        try #require(TestSupport.load(graphPath).graph)
    }

    static func load(_ text: String) throws -> TimelineLoadResult {
        TimelineFile.load(text: text, file: "t.json", graph: try graph())
    }

    /// One entry's text inside a timeline.
    static func load(entry: String) throws -> TimelineLoadResult {
        try load("{ \"timeline\": [\n\(entry)\n] }")
    }

    static func sessionActions(_ result: TimelineLoadResult) -> [SessionAction]? {
        result.entries?.compactMap { entry in
            if case .session(let action) = entry.action { action } else { nil }
        }
    }

    @Test("every action parses into its session action")
    func everyAction() throws {
        let path = "Tests/Fixtures/timelines/valid/every-action.json"
        let text = try #require(Repository.read(path))
        let result = TimelineFile.load(text: text, file: path, graph: try Self.graph())
        #expect(result.diagnostics.map(\.formatted) == [])
        #expect(Self.sessionActions(result) == [
            .setCategory(app: "game", category: .ambient, mode: .default, options: []),
            .activate(app: "game"),
            .setCategory(app: "nav", category: .playback, mode: .spokenAudio,
                         options: [.interruptSpokenAudioAndMixWithOthers, .mixWithOthers]),
            .startAudio(app: "daw", recording: true),
            .startAudio(app: "nav", recording: false),
            .stopAudio(app: "nav"),
            .deactivate(app: "nav", options: [.notifyOthersOnDeactivation]),
            .deactivate(app: "game", options: []),
            .foreground(app: "nav"),
            .background(app: "daw"),
            .beginBackgroundTask(app: "daw"),
            .endBackgroundTask(app: "daw"),
            .interrupt(.began, reason: .builtInMicMuted),
            .interrupt(.ended, reason: .default),
            .device(silent: true, locked: nil),
            .device(silent: false, locked: false),
            .route(available: false),
        ])
        let entries = try #require(result.entries)
        #expect(entries.map(\.time) == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3, 4, 4.25, 5, 6, 7, 8, 9, 9.5, 10])
        #expect(entries[1].pointer == "/timeline/1" && entries[1].line == 4 && entries[1].column == 5)
    }

    @Test("entries are sorted by time, and equal times keep the order written")
    func sorting() throws {
        let result = try Self.load("""
            { "timeline": [
              { "at": 3, "do": "activate", "app": "nav" },
              { "at": 1, "do": "stopAudio", "app": "nav" },
              { "at": 3, "do": "deactivate", "app": "nav" },
              { "at": 0, "do": "route", "available": true },
              { "at": 1, "do": "activate", "app": "daw" }
            ] }
            """)
        let entries = try #require(result.entries)
        #expect(entries.map(\.pointer) == ["/timeline/3", "/timeline/1", "/timeline/4", "/timeline/0", "/timeline/2"])
        #expect(entries.map(\.line) == [5, 3, 6, 2, 4])
    }

    @Test("an entry keeps its text as compact JSON")
    func sourceJSON() throws {
        let result = try Self.load(entry: """
              { "at" : 2.50, "do": "deactivate",  "app": "nav",
                "options": [ "notifyOthersOnDeactivation" ] }
            """)
        #expect(result.entries?.first?.sourceJSON
                == #"{"at":2.50,"do":"deactivate","app":"nav","options":["notifyOthersOnDeactivation"]}"#)
    }

    @Test("setCategory with an option the category refuses still loads: the policy refuses it")
    func refusedOptionLoads() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "setCategory", "app": "game", "category": "soloAmbient", "options": ["duckOthers"] }"#)
        #expect(result.diagnostics.isEmpty)
        #expect(Self.sessionActions(result) == [
            .setCategory(app: "game", category: .soloAmbient, mode: .default, options: [.duckOthers, .mixWithOthers]),
        ])
    }

    @Test("setCategory with an unsupported mode loads with one warning")
    func unsupportedMode() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "setCategory", "app": "nav", "category": "ambient", "mode": "voicePrompt" }"#)
        #expect(result.entries?.count == 1)
        #expect(result.warnings.map(\.code) == [.unsupportedMode])
        #expect(result.warnings.first?.pointer == "/timeline/0/mode")
    }

    /// An entry, the error it gives, where, and its hint.
    static let mistakes: [(entry: String, code: GraphErrorCode, pointer: String, hint: String?)] = [
        (#"{ "at": 1, "do": "actvate", "app": "nav" }"#, .unknownAction, "/timeline/0/do", "did you mean \"activate\"?"),
        (#"{ "at": 1, "app": "nav" }"#, .missingKey, "/timeline/0/do", "actions: setCategory, activate, deactivate, foreground, background, beginBackgroundTask, endBackgroundTask, startAudio, stopAudio, terminate, interrupt, device, route, midi, play, stop, setParam, connect, disconnect, apply"),
        (#"{ "do": "activate", "app": "nav" }"#, .missingKey, "/timeline/0/at", nil),
        (#"{ "at": "1s", "do": "activate", "app": "nav" }"#, .wrongType, "/timeline/0/at", nil),
        (#"{ "at": -1, "do": "activate", "app": "nav" }"#, .outOfRange, "/timeline/0/at", "times count from the start of the render"),
        (#"{ "at": 1e999, "do": "activate", "app": "nav" }"#, .outOfRange, "/timeline/0/at", "times count from the start of the render"),
        (#"{ "at": 1, "do": "activate" }"#, .missingKey, "/timeline/0/app", nil),
        (#"{ "at": 1, "do": "activate", "app": "nva" }"#, .unknownApp, "/timeline/0/app", "did you mean \"nav\"?"),
        (#"{ "at": 1, "do": "activate", "app": "zzz" }"#, .unknownApp, "/timeline/0/app", "apps with a session: daw, synth, nav, phone, game"),
        (#"{ "at": 1, "do": "activate", "app": "fx" }"#, .unmanagedApp, "/timeline/0/app", "add \"session\": {} to app \"fx\""),
        (#"{ "at": 1, "do": "activate", "app": "nav", "options": [] }"#, .unknownKey, "/timeline/0/options", "allowed keys: at, do, app"),
        (#"{ "at": 1, "do": "setCategory", "app": "nav" }"#, .missingKey, "/timeline/0/category", nil),
        (#"{ "at": 1, "do": "setCategory", "app": "nav", "category": "Playback" }"#, .invalidValue, "/timeline/0/category", "did you mean \"playback\"?"),
        (#"{ "at": 1, "do": "setCategory", "app": "nav", "category": "playback", "mode": "spoken" }"#, .invalidValue, "/timeline/0/mode", "modes: default, voiceChat, videoChat, gameChat, videoRecording, measurement, moviePlayback, spokenAudio, voicePrompt"),
        (#"{ "at": 1, "do": "setCategory", "app": "nav", "category": "playback", "options": ["duckOther"] }"#, .invalidValue, "/timeline/0/options/0", "did you mean \"duckOthers\"?"),
        (#"{ "at": 1, "do": "setCategory", "app": "nav", "category": "playback", "options": "duckOthers" }"#, .wrongType, "/timeline/0/options", nil),
        (#"{ "at": 1, "do": "deactivate", "app": "nav", "options": ["notifyOthers"] }"#, .invalidValue, "/timeline/0/options/0", "options: notifyOthersOnDeactivation"),
        (#"{ "at": 1, "do": "startAudio", "app": "nav", "recording": "yes" }"#, .wrongType, "/timeline/0/recording", nil),
        (#"{ "at": 1, "do": "interrupt", "type": "began" }"#, .invalidValue, "/timeline/0/type", "did you mean \"begin\"?"),
        (#"{ "at": 1, "do": "interrupt", "type": "begin", "reason": "routeDisconected" }"#, .invalidValue, "/timeline/0/reason", "did you mean \"routeDisconnected\"?"),
        (#"{ "at": 1, "do": "device" }"#, .missingKey, "/timeline/0", "for example { \"at\": 1, \"do\": \"device\", \"silent\": true }"),
        (#"{ "at": 1, "do": "device", "silent": 1 }"#, .wrongType, "/timeline/0/silent", nil),
        (#"{ "at": 1, "do": "route" }"#, .missingKey, "/timeline/0/available", nil),
        (#"[ 1 ]"#, .wrongType, "/timeline/0", nil),
    ]

    @Test("each kind of mistake is a located error with its fix", arguments: mistakes)
    func errors(entry: String, code: GraphErrorCode, pointer: String, hint: String?) throws {
        try TestSupport.expectOnlyError(of: try Self.load(entry: entry), code: code, pointer: pointer, hint: hint, line: 2)
    }

    @Test("every error of a timeline is reported, in document order")
    func collectsErrors() throws {
        let result = try Self.load("""
            { "timeline": [
              { "at": 1, "do": "activate", "app": "fx" },
              { "at": -2, "do": "route", "available": true },
              { "at": 3, "do": "pause", "app": "nav" }
            ], "loop": true }
            """)
        #expect(result.entries == nil)
        #expect(result.errors.map(\.code) == [.unmanagedApp, .outOfRange, .unknownAction, .unknownKey])
        #expect(result.errors.first?.headline == "t.json:2:39: error[unmanagedApp]: /timeline/0/app: app \"fx\" has no session, so the policy does not manage it")
    }

    @Test("the document must be an object with a timeline array")
    func documentShape() throws {
        #expect(try Self.load("[]").errors.map(\.code) == [.wrongType])
        #expect(try Self.load("{}").errors.map(\.code) == [.missingKey])
        #expect(try Self.load(#"{ "timeline": {} }"#).errors.map(\.code) == [.wrongType])
        #expect(try Self.load("").errors.map(\.hint) == ["a timeline is a JSON object: { \"timeline\": [ … ] }"])
        #expect(try Self.load(#"{ "timeline": [], }"#).errors.map(\.code) == [.syntax])
        #expect(try Self.load(#"{ "$schema": "x", "timeline": [] }"#).entries == [])
    }

    @Test("a missing file is an io error")
    func missingFile() throws {
        let result = TimelineFile.load(path: "/nonexistent/t.json", graph: try Self.graph())
        #expect(result.errors.map(\.code) == [.io])
    }

    @Test("each invalid timeline fixture reports its expected first error", arguments: invalidFixtures)
    func invalidFixture(path: String) throws {
        let expectedPath = String(path.dropLast(".json".count)) + ".expected"
        let expected = try #require(Repository.read(expectedPath), "missing \(expectedPath)")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
        let text = try #require(Repository.read(path))
        let result = TimelineFile.load(text: text, file: path, graph: try Self.graph())
        #expect(result.entries == nil)
        #expect(result.errors.first?.formatted == expected)
    }

    /// The example timelines this target can read: one that applies a graph needs the node types to
    /// read that graph, which it does not link (DocumentedCommandTests validates those with `iaa`).
    static let readableTimelines = Repository.timelineFiles(in: "graphs").filter(TestSupport.loadsWithBuiltins)
        .filter { !(Repository.read($0) ?? "").contains(#""do": "apply""#) }

    @Test("every example timeline loads against its graph", arguments: readableTimelines)
    func exampleTimeline(path: String) throws {
        let graphPath = String(path.dropLast(".timeline.json".count)) + ".json"
        let graph = try #require(TestSupport.load(graphPath).graph, "no graph \(graphPath)")
        let text = try #require(Repository.read(path))
        let result = TimelineFile.load(text: text, file: path, graph: graph)
        #expect(result.diagnostics.map(\.formatted) == [])
        #expect(result.entries?.isEmpty == false)
    }
}
