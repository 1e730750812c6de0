import ControlSocket
@testable import Engine
import Foundation
import TestKit
import Testing

/// ``LibraryReloads`` alone, on a ``StandInHost`` running a C plugin built by the test: `reload`
/// swaps in a rebuilt library with the app's live parameter values, says when nothing changed,
/// and refuses a build that changes what the graph was validated against. A click at the swap
/// and `--watch` are the JACK reload suite's.
@Suite("Reloading rebuilt libraries, on a stand-in host")
struct LibraryReloadsTests {
    static func request(_ app: String) -> ControlRequest {
        ControlRequest(id: .number(1), method: "reload", params: ["app": .string(app)], peer: ControlPeer(uid: 0, pid: 0), connection: 0)
    }

    /// What `dc` plays once a few cycles have run (past a fade).
    static func level(_ host: StandInHost) throws -> Float {
        var heard: Float = 0
        for _ in 0..<8 {
            let plan = try #require(host.server.render(frames: 256))
            heard = try #require(plan.outputBuffer(app: "dc", port: "out"))[255]
        }
        return heard
    }

    @Test("reload swaps in the rebuilt code with the live parameter value and says so; an unchanged library is unchanged; a build with other parameters is refused and the old code plays on")
    func reloads() throws {
        let folder = URL(fileURLWithPath: try makeTemporaryDirectory("reloads"))
        let library = try LevelPlugin.build(in: folder, level: 0.25)
        let host = try StandInHost("""
            { "format": "iaa-graph/1", "name": "reload", "apps": [ { "id": "dc", "plugin": "\(library)", "params": { "level": 0.5 } } ] }
            """)
        let lines = PublishedLines(of: host)
        var notices: [ReloadNotice] { lines.events.compactMap { if case .reload(let notice) = $0 { notice } else { nil } } }
        let reloads = LibraryReloads(host: host)
        try #require(host.backend.currentPlan?.slot(for: "dc")).setParameter(0, to: 0.8)
        #expect(abs(try Self.level(host) - 0.2) < 1e-6, "0.25 × 0.8 before the rebuild")

        guard case .result(let unchanged) = try reloads.reload(Self.request("dc")) else { Issue.record("reload refused"); return }
        #expect(ReloadReply(json: unchanged) == ReloadReply(app: "dc", reloaded: false, library: library))

        try LevelPlugin.build(in: folder, level: 0.5)
        guard case .result(let reply) = try reloads.reload(Self.request("dc")) else { Issue.record("reload refused"); return }
        let reloaded = try #require(ReloadReply(json: reply))
        #expect(reloaded.reloaded && reloaded.library == library && reloaded.identity != nil, "\(reloaded)")
        #expect(abs(try Self.level(host) - 0.4) < 1e-6, "the new code (0.5) with the live value (0.8)")
        #expect(host.backend.currentPlan?.slot(for: "dc")?.parameterTarget(0) == 0.8)
        #expect(notices == [ReloadNotice(app: "dc", library: library, by: .request)])

        try LevelPlugin.build(in: folder, level: 0.5, levelMaximum: 2)
        let refusal = #expect(throws: ControlError.self) { try reloads.reload(Self.request("dc")) }
        #expect(refusal?.code == "libraryChanged" && refusal?.message.contains("parameters") == true, "\(String(describing: refusal))")
        #expect(abs(try Self.level(host) - 0.4) < 1e-6, "the old build plays on")
        #expect(notices.count == 1)
    }
}
