import ControlSocket
import Foundation
import IAASession
import Testing
import TestKit

extension JackIntegration.ProgramAppTests {
    /// What a ProgramSession's callbacks delivered, for the test to read.
    final class ReceivedEvents: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [ProgramSession.Event] = []
        func append(_ event: ProgramSession.Event) { lock.withLock { events.append(event) } }
        var all: [ProgramSession.Event] { lock.withLock { events } }
    }

    @Test("the Swift ProgramSession: category, activation that ducks the music, other audio, refusals with Apple's code, an interruption callback")
    func swiftProgramSession() throws {
        let (path, folder) = try graph("t-ps", navBlock: #"{ "jackClient": "t-ps-nav*" }"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try Running(graph: path, client: "t-ps")
        defer { running.stop() }
        func session(_ app: String) throws -> ControlJSON? {
            try running.result("status")["apps"]?.arrayValue?.first { $0["id"]?.stringValue == app }?["session"]
        }
        let received = ReceivedEvents()
        // This test process is nav's program: the graph restricts neither uid nor executable.
        let nav = try ProgramSession(app: "nav", socketPath: running.socket) { received.append($0) }
        try nav.setCategory("playback", mode: "voicePrompt", options: [.duckOthers])
        #expect(try nav.isOtherAudioPlaying, "music is active and playing")
        try nav.setActive(true)
        #expect(try session("nav")?["active"]?.boolValue == true)
        #expect(try session("music")?["ducked"]?.boolValue == true, "duckOthers did not duck the music")
        #expect(try nav.secondaryAudioShouldBeSilencedHint == session("nav")?["secondaryAudioShouldBeSilencedHint"]?.boolValue)
        // Deactivating while its audio runs: as Apple documents, the session is deactivated anyway
        // and the call reports AVAudioSessionErrorCodeIsBusy ('!act'); the music is no longer ducked.
        do {
            try nav.setActive(false)
            Issue.record("deactivating while playing was not refused")
        } catch let failure as ProgramSession.Failure {
            #expect(failure.status == 0x2161_6374, "\(failure.status): \(failure.message)")
        }
        #expect(try session("nav")?["active"]?.boolValue == false)
        #expect(try session("music")?["ducked"]?.boolValue == false)
        // A category the engine does not know: refused with its reason, nothing changes.
        do {
            try nav.setCategory("loudest")
            Issue.record("an unknown category was accepted")
        } catch let failure as ProgramSession.Failure {
            #expect(failure.status != 0 && failure.message.contains("loudest"), "\(failure.status): \(failure.message)")
        }
        #expect(try session("nav")?["category"]?.stringValue == "playback")

        // A system interruption reaches the program on the library's thread.
        try nav.setActive(true)
        _ = try running.result("interrupt", ["type": "begin"])
        #expect(waitUntil(seconds: 3) {
            received.all.contains { if case .interruptionBegan = $0 { true } else { false } }
        }, "no interruptionBegan callback: \(received.all)")
        #expect(try session("nav")?["interrupted"]?.boolValue == true)
    }
}
