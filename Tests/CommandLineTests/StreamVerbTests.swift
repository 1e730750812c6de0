import ControlSocket
import Foundation
import Testing
import TestKit

/// `iaa events` and `iaa top`: JSON Lines as the engine publishes them.
@Suite("iaa streams", .serialized)
struct StreamVerbTests {
    /// Lines as the engine writes them (`iaa events` prints them as they are).
    static let events = [
        EventsLine(time: 1.5, .event(.session(SessionEventMessage(app: "music", name: "interruption", type: "began", options: [],
                                                                  reason: "default"), fromPrimary: false))),
        EventsLine(time: 1.6, .connection(ConnectionChange(from: "synth:out_1", to: "system:playback_1", connected: true, by: .outside))),
        EventsLine(time: 2, .xrun(XrunReport(count: 1, oursCount: 0, preempted: 1, cycle: 375))),
    ].map(\.json.text)

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
        // Made from the protocol's type, as the engine makes it.
        let update = TopUpdate(time: 3, period: 0.005333, busy: 0.2, busyMax: 0.3, dspLoad: 4, xruns: 0, ourXruns: 0,
                               apps: [.init(id: "tone", busy: 0.12, peak: -6.5, gain: 1, state: .audible)]).json.text
        engine.publish([update], topic: "top")
        let deadline = ContinuousClock.now + .seconds(10)
        while running.stdoutSoFar.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
        engine.stop()
        let result = try running.finish(timeout: .seconds(10))
        #expect(result.status == 0)
        #expect(result.stdoutLines == [update])
    }

    @Test("events without --follow says on stderr that nothing happened while it listened, and how to wait for events")
    func eventsQuietSaysSo() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["events"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no events in the last 0.5 s") && result.stderr.contains("iaa events --follow"), "stderr: \(result.stderr)")
    }

    @Test("top's table on a terminal: -inf for silence, and each app's state with a duck's level")
    func topTable() throws {
        let engine = try CannedEngine()
        let directory = try makeTemporaryDirectory("top")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        // The table is drawn only for a terminal: script(1) gives iaa one.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", "'\(Repository.binary)' top --socket '\(engine.path)'", "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1", "TERM": "dumb"]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = process.standardOutput
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let update = TopUpdate(time: 3, period: 0.005333, busy: 0.05, busyMax: 0.06, dspLoad: 4, xruns: 0, ourXruns: 0, apps: [
            .init(id: "music", busy: 0.02, peak: -18.25, gain: 0.25118864315095796, state: .ducked),
            .init(id: "nav", busy: 0.01, peak: -3, gain: 1, state: .audible),
            .init(id: "call", busy: 0, peak: nil, gain: 0, state: .notRunning),
            .init(id: "radio", busy: 0, peak: nil, gain: 0, state: .interrupted),
            .init(id: "speakers", busy: 0.01, peak: nil, gain: 0, state: .silent),
            .init(id: "fx", busy: 0, peak: nil, gain: 1, state: .isolatedRestarting),
        ]).json.text
        engine.publish([update], topic: "top")
        let text = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        #expect(waitUntil(seconds: 10) { text().contains("speakers") }, "no table: \(text())")
        engine.stop()
        #expect(waitUntil(seconds: 10) { !process.isRunning })
        let rows = text().replacingOccurrences(of: "\r", with: "").split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.contains { $0.hasSuffix("PEAK APP STATE") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-18.2 dB music ducked -12.0 dB") || $0.hasSuffix("-18.3 dB music ducked -12.0 dB") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-3.0 dB nav active") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-inf dB call not running") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-inf dB radio interrupted") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-inf dB speakers silent") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("-inf dB fx isolated restarting") }, "\(rows)")
        #expect(!text().contains("-200"), "\(text())")
    }
}
