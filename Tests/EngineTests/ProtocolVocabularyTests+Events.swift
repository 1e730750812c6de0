import AudioSession
import ControlSocket
import Testing

/// The `events` stream's lines against PROTOCOL.md.
extension ProtocolVocabularyTests {
    /// One event of every kind the engine writes, each member filled in.
    static let everyEvent: [EngineEvent] = [
        .session(SessionEventMessage(app: "music", name: "interruption", type: "began", options: ["shouldResume"], reason: "default",
                                     wasSuspended: true), fromPrimary: true),
        .session(SessionEventMessage(app: "music", name: "routeChange", reason: "oldDeviceUnavailable"), fromPrimary: false),
        .session(SessionEventMessage(app: "synth", name: "nodeDisconnected", reason: "the host is not active", peer: "daw"), fromPrimary: false),
        .program(.routed(app: "mpv", client: "mpv", pid: 41, connections: [.init(from: "mpv:out_0", to: "iaa:mpv.play_1")], unrouted: ["mpv:out_2"])),
        .program(.refused(app: nil, client: "vlc", pid: nil, reason: "its uid is 1001, not 1000")),
        .program(.bypassUndone(app: "mpv", client: "mpv", from: "mpv:out_0", to: "system:playback_1", reason: "heard only through its session")),
        .program(.exited(app: "mpv", client: "mpv", pid: 41, running: false)),
        .program(.attached(app: "nav", pid: 42, executable: "/usr/bin/python3")),
        .program(.detached(app: "nav", pid: 42, wasActive: true)),
        .program(.admitted(app: "mpv-01", client: nil, pid: 43, by: .attach,
                           session: SessionStatus(category: "playback", mode: "default", options: []), refused: "('!int') busy",
                           warnings: ["w"])),
        .program(.removed(app: "mpv-01", reason: "its program exited")),
        .isolatedStarted(app: "verb", pid: 44, restart: 1),
        .isolatedFault(app: "verb", fault: "crashed", signal: "SIGSEGV", reason: "it crashed", restartIn: 0.5),
        .isolatedLate(app: "verb", cycles: 12, lateCycles: 40),
        .faultHandled(app: "gain", action: .bypassed, fault: "deadline", reason: "too slow"),
        .faultHandled(app: "gain", action: .muted, fault: "nonFinite", reason: "NaN"),
        .audioStalled(app: "loop", reason: "stuck"),
        .audioResumed,
        .linkState(app: "rear", state: .running, previous: .locking, reason: "locked after 0.8 s"),
        .satellite(state: .fallback, primary: "ssh://head/run/iaa.sock", reason: "the primary is gone"),
        .remoteControl(app: "music", command: "pause"),
    ]

    @Test("PROTOCOL.md names every event the engine writes with each of its members, and every events line reads back as written")
    func eventsLines() throws {
        let paragraphs = Self.document.components(separatedBy: "\n\n")
        func told(_ word: String, in texts: [String]) -> Bool {
            texts.contains { $0.contains("\"\(word)\"") || $0.contains("`\(word)`") }
        }
        for event in Self.everyEvent {
            let telling = paragraphs.filter { told(event.name, in: [$0]) }
            #expect(!telling.isEmpty, "PROTOCOL.md does not name event \(event.name)")
            // A session's members are App's, checked with status.
            guard case .object(let members) = event.json else { continue }
            for key in Self.memberNames(.object(members.map { $0.0 == "session" ? ($0.0, .null) : $0 })).sorted() {
                #expect(told(key, in: telling), "PROTOCOL.md tells no \"\(key)\" where it names event \(event.name)")
            }
            let line = EventsLine(time: 1.5, .event(event))
            #expect(EventsLine(json: try ControlJSONParser.parse(line.json.text)) == line)
        }
        for action in EngineEvent.FaultAction.allCases { #expect(Self.everyEvent.contains { $0.name == action.rawValue }) }
        for name in ProgramEvent.Name.allCases { #expect(Self.everyEvent.contains { $0.name == name.rawValue }, "no sample of \(name)") }

        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `events` |") })
        let others: [EventsLine.Content] = [
            .connection(ConnectionChange(from: "iaa:music.out_1", to: "system:playback_1", connected: true, by: .outside)),
            .xrun(XrunReport(count: 2, oursCount: 1, preempted: 1, cycle: 480)),
            .transport(RecordingToggle(recording: true, by: "daw")),
            .reload(ReloadNotice(app: "verb", library: "/tmp/libverb.so", by: .watch)),
        ]
        for content in others {
            let line = EventsLine(time: 2, content)
            for key in Self.memberNames(line.json).sorted() {
                #expect(row.contains("\"\(key)\""), "PROTOCOL.md's events row lacks \"\(key)\"")
            }
            #expect(EventsLine(json: try ControlJSONParser.parse(line.json.text)) == line)
        }
        for maker in ConnectionChange.Maker.allCases { #expect(row.contains("\"\(maker.rawValue)\"")) }
        for cause in ReloadNotice.Cause.allCases { #expect(row.contains("\"\(cause.rawValue)\"")) }
        #expect(EventsLine(json: .object([("t", 1), ("event", .object([("app", "x"), ("name", "noSuchEvent")]))])) == nil)
    }

    @Test("a session event of every kind has a name the protocol reads as a session event")
    func sessionEventNames() {
        let kinds: [SessionEvent.Kind] = [
            .interruption(type: .began, reason: .default, shouldResume: false, wasSuspended: false), .routeChange(reason: .override),
            .silenceSecondaryAudioHint(type: .began), .backgroundTaskWillExpire, .suspended, .resumed, .mediaServicesWereLost,
            .mediaServicesWereReset, .nodeConnected(peer: "daw"), .nodeDisconnected(peer: "daw", reason: nil),
        ]
        let names = Set(kinds.map { SessionEvent(app: "a", kind: $0, time: 0).name })
        #expect(names == SessionEventMessage.names)
    }
}
