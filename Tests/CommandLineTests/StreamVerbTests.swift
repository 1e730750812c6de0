import ControlSocket
import Foundation
import Testing
import TestKit

/// `iaa events` and `iaa top`: JSON Lines as the engine publishes them.
@Suite("iaa streams", .serialized)
struct StreamVerbTests {
    static let events = [
        #"{"t":1.5,"event":{"app":"music","name":"interruption","type":"began","options":[],"reason":"default"}}"#,
        #"{"t":1.6,"connection":{"from":"synth:out_1","to":"system:playback_1","connected":true,"by":"outside"}}"#,
        #"{"t":2,"xrun":{"ours":false}}"#,
    ]

    @Test("events prints each line and exits 0 once the stream has been quiet for half a second")
    func eventsUntilQuiet() throws {
        let engine = try CannedEngine()
        let running = try IAACommand.Running(["events", "--socket", engine.path], environment: [:])
        engine.publish(Self.events, topic: "events")
        let result = try running.finish(timeout: .seconds(10))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines == Self.events)
        #expect(engine.requests.map(\.method) == ["events"])
    }

    @Test("events --follow keeps printing until the engine closes the stream")
    func eventsFollow() throws {
        let engine = try CannedEngine()
        let running = try IAACommand.Running(["events", "--follow", "--socket", engine.path], environment: [:])
        engine.publish(Array(Self.events.prefix(1)), topic: "events")
        // Longer than the quiet spell that ends `events` without --follow: this one must still be there.
        usleep(800_000)
        #expect(running.process.isRunning)
        engine.publish(Array(Self.events.dropFirst()), topic: "events")
        let deadline = ContinuousClock.now + .seconds(10)
        while running.stdoutSoFar.split(separator: "\n").count < Self.events.count && ContinuousClock.now < deadline {
            usleep(10_000)
        }
        engine.stop()
        let result = try running.finish(timeout: .seconds(10))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdoutLines == Self.events)
    }

    @Test("top prints JSON lines when stdout is not a terminal")
    func topLines() throws {
        let engine = try CannedEngine()
        let running = try IAACommand.Running(["top", "--socket", engine.path], environment: [:])
        let update = #"{"t":3,"period":0.005333,"apps":[{"id":"tone","busy":0.12,"peak":-6.5}],"xruns":0}"#
        engine.publish([update], topic: "top")
        let deadline = ContinuousClock.now + .seconds(10)
        while running.stdoutSoFar.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
        engine.stop()
        let result = try running.finish(timeout: .seconds(10))
        #expect(result.status == 0)
        #expect(result.stdoutLines == [update])
    }
}
