import Foundation
import SignalAnalysis
import Testing
import TestKit

/// Runs the built `iaa` binary from the package root, so graph paths print as given.
enum IAABinary {
    /// Runs `iaa` with `arguments`; fails the test (never skips it) when the binary is missing.
    static func run(_ arguments: [String]) throws -> CommandResult {
        try #require(FileManager.default.isExecutableFile(atPath: Repository.binary),
                     "no iaa binary at \(Repository.binary): run `swift build` first, or set IAA_BIN to the binary to test")
        return try runCommand(Repository.binary, arguments, directory: Repository.root)
    }
}

/// The `iaa` command line end to end: exit codes, diagnostics and the files `render` writes.
@Suite("iaa command line")
struct CommandLineTests {
    static let invalid = "Tests/Fixtures/graphs/invalid/unknown-port.json"

    @Test("iaa validate accepts demo.json with exit status 0")
    func validateValid() throws {
        let result = try IAABinary.run(["validate", "graphs/demo.json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("graphs/demo.json: valid"))
    }

    @Test("iaa validate reports an unknown port at file:line:col with a hint and exits 1")
    func validateInvalid() throws {
        let result = try IAABinary.run(["validate", Self.invalid])
        #expect(result.status == 1)
        #expect(result.stderr.contains("unknown-port.json:"))
        #expect(result.stderr.contains(/unknown-port\.json:[0-9]+:[0-9]+: error\[unknownPort\]/),
                "stderr: \(result.stderr)")
        #expect(result.stderr.contains("\n  hint:"), "stderr: \(result.stderr)")
    }

    @Test("iaa validate --json prints a parseable array of located diagnostics")
    func validateJSON() throws {
        let result = try IAABinary.run(["validate", "--json", Self.invalid])
        #expect(result.status == 1)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let diagnostics = try #require(parsed as? [[String: Any]], "stdout: \(result.stdout)")
        let first = try #require(diagnostics.first)
        for key in ["file", "line", "column", "pointer", "code", "message"] {
            #expect(first[key] != nil && !(first[key] is NSNull), "missing \(key)")
        }
        #expect(first["file"] as? String == Self.invalid)
        #expect(first["code"] as? String == "unknownPort")
        #expect(first["pointer"] as? String == "/connections/0/to")
        #expect((first["line"] as? Int).map { $0 > 0 } == true)
        #expect((first["column"] as? Int).map { $0 > 0 } == true)
    }

    @Test("iaa validate --timeline checks a timeline against its graph, apply entries included, without rendering")
    func validateTimeline() throws {
        let valid = try IAABinary.run(["validate", "graphs/studio.json", "--timeline", "graphs/studio.timeline.json"])
        #expect(valid.status == 0, "stderr: \(valid.stderr)")
        #expect(valid.stdout.contains("graphs/studio.timeline.json: valid (11 entries, the last at 7 s)"))
        // After an apply of graphs/chord.json, `fifth` exists; `tone` of the demo no longer does.
        let directory = try TemporaryDirectory()
        let timeline = directory.file("t.json")
        try """
            { "timeline": [
              { "at": 1, "do": "apply", "graph": "\(Repository.path("graphs/chord.json"))" },
              { "at": 2, "do": "setParam", "app": "fifth", "param": "frequency", "value": 440 },
              { "at": 3, "do": "setParam", "app": "tone", "param": "frequency", "value": 220 }
            ] }
            """.write(toFile: timeline, atomically: true, encoding: .utf8)
        let invalid = try IAABinary.run(["validate", "graphs/demo.json", "--timeline", timeline])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("t.json:4:39: error[unknownApp]: /timeline/2/app"), "stderr: \(invalid.stderr)")
        let two = try IAABinary.run(["validate", "graphs/demo.json", "graphs/chord.json", "--timeline", timeline])
        #expect(two.status == 64 && two.stderr.contains("a timeline is checked against one graph"))
    }

    @Test("iaa render -d 1 writes 48000 frames of 2 channels")
    func renderOneSecond() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", "graphs/demo.json", "-o", output, "-d", "1"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let file = try RenderedFile(path: output)
        #expect(file.frames == 48_000)
        #expect(file.channels.count == 2)
        #expect(file.sampleRate == 48_000)
        #expect(file.isFinite)
    }

    @Test("iaa render of an invalid graph exits 1 and writes no file")
    func renderInvalid() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", Self.invalid, "-o", output, "-d", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error[unknownPort]"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("iaa render --port tone:out writes one channel at 440 Hz")
    func renderChosenPort() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", "graphs/demo.json", "-o", output, "-d", "0.25", "--port", "tone:out"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let file = try RenderedFile(path: output)
        #expect(file.channels.count == 1)
        #expect(file.frames == 12_000)
        let channel = try #require(file.channels.first)
        let frequency = try #require(SignalAnalysis.estimateFrequency(samples: channel, sampleRate: 48_000))
        #expect(abs(frequency - 440) < 0.5)
        #expect(abs(SignalAnalysis.peak(channel) - 0.5) < 0.001, "the oscillator itself, before tone-gain")
    }

    @Test("iaa render honours -d 500ms")
    func renderMilliseconds() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", "graphs/demo.json", "-o", output, "-d", "500ms"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try RenderedFile(path: output).frames == 24_000)
    }

    @Test("iaa render honours -r 44100 -p 128")
    func renderRateAndPeriod() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", "graphs/demo.json", "-o", output, "-d", "0.5", "-r", "44100", "-p", "128"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let file = try RenderedFile(path: output)
        #expect(file.sampleRate == 44_100)
        #expect(file.frames == 22_050)
        // The noise in the mix defeats zero crossings; Goertzel over 0.5 s (220 whole periods)
        // finds the tone at full level only if it kept its pitch at the new rate.
        let channel = try #require(file.channels.first)
        let tone = Double(SignalAnalysis.goertzelMagnitude(samples: channel, frequency: 440, sampleRate: 44_100))
        let expected = 0.5 * EngineTestSupport.linear(decibels: -6)
        #expect(abs(tone - expected) / expected < 0.02, "the tone keeps its pitch and level at another rate")
    }

    @Test("iaa render -d nonsense is a usage error: exit 64", arguments: ["nonsense", "0", "-1s", "10xs"])
    func renderBadDuration(duration: String) throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("T.wav")
        let result = try IAABinary.run(["render", "graphs/demo.json", "-o", output, "-d", duration])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
