import ControlSocket
@testable import Engine
import Foundation
import Isolation
import Testing

/// ``IsolatedApps`` alone, on a ``StandInHost``: what a child's events say on the `events`
/// stream, and what an app with no isolated node reports. The children themselves (crashes,
/// hangs, restarts, the sandbox) are the JACK isolation suites'.
@Suite("Isolated apps, on a stand-in host")
struct IsolatedAppsTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "iso", "apps": [ { "id": "bad", "plugin": "builtin:gain" } ] }
        """

    /// The component, its host (which it holds unowned) and every events line it publishes,
    /// read back as the protocol's type.
    final class Fixture {
        let host: StandInHost
        let isolated: IsolatedApps
        let lines: PublishedLines

        init() throws {
            host = try StandInHost(IsolatedAppsTests.graph)
            let settings = IsolationSettings(executable: "/nonexistent/iaa", share: 0.5)
            let policy = IsolationPolicy(engineDefault: .process, trustedFolders: [], settings: settings)
            isolated = IsolatedApps(policy, host: host, queue: DispatchQueue(label: "test"))
            lines = PublishedLines(of: host)
        }

        var events: [EngineEvent] { lines.engineEvents }
    }

    @Test("a child's start, crash, last crash and failed setup are each one events line with the fault, signal, reason and restart")
    func eventsLines() throws {
        let fixture = try Fixture()
        let isolated = fixture.isolated
        isolated.tell(IsolationEvent(app: "bad", kind: .started(pid: 4242, restart: 0)))
        isolated.tell(IsolationEvent(app: "bad", kind: .faulted(.crashed(signal: SIGSEGV), restartIn: 0.5)))
        isolated.tell(IsolationEvent(app: "bad", kind: .faulted(.hung, restartIn: nil)))
        isolated.tell(IsolationEvent(app: "bad", kind: .setupFailed("no shared memory")))
        let events = fixture.events
        try #require(events.count == 4, "\(events)")
        #expect(events[0] == .isolatedStarted(app: "bad", pid: 4242, restart: 0))
        guard case .isolatedFault("bad", "crashed", "SIGSEGV", let crash, 0.5) = events[1] else {
            Issue.record("a crash is \(events[1])")
            return
        }
        #expect(crash.contains("SIGSEGV"), "\(crash)")
        guard case .isolatedFault("bad", "hung", nil, let hang, nil) = events[2] else {
            Issue.record("a last hang is \(events[2])")
            return
        }
        #expect(!hang.isEmpty)
        #expect(events[3] == .isolatedFault(app: "bad", fault: "setupFailed", signal: nil, reason: "no shared memory", restartIn: nil))
    }

    @Test("an app whose node runs in process has no isolation status, and enable has nothing to start")
    func inProcess() throws {
        let fixture = try Fixture()
        let isolated = fixture.isolated
        #expect(isolated.node("bad") == nil)
        #expect(isolated.status("bad") == nil)
        #expect(!isolated.enable("bad"))
        #expect(isolated.status("nobody") == nil)
    }
}
