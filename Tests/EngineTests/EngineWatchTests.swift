import ControlSocket
@testable import Engine
import Testing

/// ``EngineWatch`` alone, on a ``StandInHost`` whose in-memory server reports what a test says
/// of its cycles: what it tells of xruns and stalls on the `events` stream and in `status`, and
/// the states `top` shows. What makes a real cycle late is the JACK suites'.
@Suite("The engine's health and levels, on a stand-in host")
struct EngineWatchTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "watched",
          "apps": [ { "id": "g", "plugin": "builtin:gain" },
                    { "id": "music", "program": { "jackClient": "mpv*", "outputs": 2 } } ] }
        """

    /// The component, its host and every line it publishes, by topic.
    final class Fixture {
        let host: StandInHost
        let watch: EngineWatch
        let lines: PublishedLines

        init() throws {
            host = try StandInHost(EngineWatchTests.graph)
            watch = EngineWatch(host: host)
            lines = PublishedLines(of: host)
        }

        var events: [EventsLine.Content] { lines.events }
    }

    @Test("xruns are told once per tick that brings new ones: how many, how many were iaa's, how many the system caused")
    func xruns() throws {
        let fixture = try Fixture()
        fixture.watch.announceXruns(at: 1)
        #expect(fixture.events.isEmpty, "no xrun, nothing to tell")
        fixture.host.server.report { $0.xruns = 3; $0.ourXruns = 1; $0.preempted = 2 }
        fixture.watch.announceXruns(at: 2)
        fixture.watch.announceXruns(at: 3)
        fixture.host.server.report { $0.xruns = 5; $0.preempted = 3 }
        fixture.watch.announceXruns(at: 4)
        let reports: [XrunReport] = fixture.events.compactMap { if case .xrun(let report) = $0 { report } else { nil } }
        #expect(reports.map(\.count) == [3, 2], "\(reports)")
        #expect(reports.map(\.oursCount) == [1, 0])
        #expect(reports.map(\.preempted) == [2, 1])
    }

    @Test("a stall is told once when it begins, with the app and what to do, and once when cycles run again; status names it meanwhile")
    func stall() throws {
        let fixture = try Fixture()
        let watch = fixture.watch
        #expect(watch.stall() == nil)
        fixture.host.server.report { $0.stall = (app: "g", seconds: 2.04) }
        watch.announceStall(at: 1)
        watch.announceStall(at: 2)
        let stalled = try #require(watch.stall())
        #expect(stalled.app == "g" && stalled.seconds == 2.0)
        #expect(watch.stallFault("g")?.kind == "hang" && watch.stallFault("g")?.action == "stalled")
        #expect(watch.stallFault("music") == nil)
        fixture.host.server.report { $0.stall = nil }
        watch.announceStall(at: 3)
        let events = fixture.lines.engineEvents
        try #require(events.count == 2, "\(events)")
        guard case .audioStalled(app: "g", let reason) = events[0] else {
            Issue.record("a stall is \(events[0])")
            return
        }
        #expect(reason.contains("2.0 s") && reason.contains("\"isolation\": \"process\""), "\(reason)")
        #expect(events[1] == .audioResumed)
        #expect(watch.stall() == nil && watch.stallFault("g") == nil)
    }

    @Test("top shows a program app that is away as not running, and an app without a session as running")
    func topStates() throws {
        let fixture = try Fixture()
        fixture.host.awayPrograms = ["music"]
        fixture.watch.publishTop()
        let line = try #require(fixture.lines.last(on: "top"))
        let top = try #require(TopUpdate(json: line), "\(line.text)")
        #expect(top.apps.first { $0.id == "music" }?.state == .notRunning, "\(top.apps)")
        #expect(top.apps.first { $0.id == "g" }?.state == .running, "\(top.apps)")
    }
}
