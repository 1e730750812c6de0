import ControlSocket
@testable import Engine
import Foundation
import Testing

/// ``ProgramApps`` alone, on a ``StandInHost`` whose in-memory server holds the clients a test
/// adds: which client is bound to a program app, how it is wired, a bypass undone, and a client
/// that leaves. The core calls these passes on JACK's notifications (the live core's tests); here
/// the test does, on the host's queue, as the core's queue would.
@Suite("Program apps, on a stand-in host")
struct ProgramAppsTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "programs",
          "apps": [
            { "id": "music", "program": { "jackClient": "zz*", "executable": "/usr/bin/mpv", "outputs": 2 } },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
          "connections": [ { "from": "music:out_1", "to": "mix:in_1" }, { "from": "music:out_2", "to": "mix:in_2" } ] }
        """

    @Test("a client whose process is not the app's executable is refused with the reason; the one that is is bound and wired to play_1 and play_2; its bypass is undone; when it leaves, the app is away")
    func bindsWiresAndForgets() throws {
        let host = try StandInHost(Self.graph)
        let lines = PublishedLines(of: host)
        let programs = ProgramApps(host: host)
        let music = try #require(host.graph.apps.first { $0.id == "music" })

        host.server.addClient("zzpy", outputs: ["out_0", "out_1"], process: LiveCore.process(700, "/usr/bin/python3.11"))
        host.queue.sync { programs.route() }
        let refused = try #require(programs.roster.refused["music"]?.first)
        #expect(refused.name == "zzpy" && refused.pid == 700 && refused.reason.contains("its executable is /usr/bin/python3.11"), "\(refused)")
        #expect(programs.isAway(music))

        host.server.addClient("zzmpv", outputs: ["out_0", "out_1"], process: LiveCore.process(701, "/usr/bin/mpv"))
        host.queue.sync { programs.route() }
        #expect(host.server.isConnected("zzmpv:out_0", "iaa:music.play_1"))
        #expect(host.server.isConnected("zzmpv:out_1", "iaa:music.play_2"))
        #expect(!host.server.isConnected("zzpy:out_0", "iaa:music.play_1"))
        #expect(programs.status(of: music)?.clients.map(\.pid) == [701])
        // The app's ends, whose connections are the program's (not kept, not dumped).
        #expect(programs.endPorts() == ["iaa:music.play_1", "iaa:music.play_2"])
        // A second pass finds everything made: nothing twice.
        host.queue.sync { programs.route() }

        // mpv connects itself to the speakers: undone.
        _ = host.server.connect("zzmpv:out_0", "system:playback_1")
        host.queue.sync { programs.connectionMade("zzmpv:out_0", "system:playback_1") }
        #expect(!host.server.isConnected("zzmpv:out_0", "system:playback_1"))

        host.server.removeClient("zzmpv")
        host.queue.sync { programs.clientGone("zzmpv") }
        #expect(programs.isAway(music))
        #expect(programs.status(of: music)?.running == false)

        let names = lines.engineEvents.compactMap { if case .program(let event) = $0 { event.name.rawValue } else { nil } }
        #expect(names == ["programRefused", "programRouted", "programBypassUndone", "programExited"], "\(names)")
    }
}
