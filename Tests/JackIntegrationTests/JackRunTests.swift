import AudioFiles
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// `iaa run` against the private JACK server of tools/test, checked with JACK's own tools.
    @Suite("iaa run on a real JACK server", .serialized, .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct JackRunTests {
        @Test("every app port is registered as CLIENT:APP.PORT with the JACK type and metadata")
        func registersPorts() throws {
            let engine = try EngineProcess(graph: Repository.path("graphs/demo.json"), client: "t-ports")
            defer { engine.stop() }
            let ours = try jackPorts().filter { $0.hasPrefix("t-ports:") }.sorted()
            #expect(ours == [
                "t-ports:mix.in_1", "t-ports:mix.in_2", "t-ports:mix.out", "t-ports:noise-gain.in", "t-ports:noise-gain.out",
                "t-ports:noise.out", "t-ports:tone-gain.in", "t-ports:tone-gain.out", "t-ports:tone.out",
            ])
            let types = try runCommand("jack_lsp", ["-t", "t-ports:mix.out"]).stdout
            #expect(types.contains("32 bit float mono audio"))
            let pretty = try runCommand("jack_property", ["--port", "-l", "t-ports:mix.in_2",
                                                          "http://jackaudio.org/metadata/pretty-name"]).stdout
            #expect(pretty.contains("mix › Input 2"))
            let group = try runCommand("jack_property", ["--port", "-l", "t-ports:mix.in_2",
                                                         "http://jackaudio.org/metadata/port-group"]).stdout
            #expect(group.contains("mix"))
        }

        @Test("the graph's external connections to @playback are made")
        func makesExternalConnections() throws {
            let engine = try EngineProcess(graph: Repository.path("graphs/demo.json"), client: "t-conn")
            defer { engine.stop() }
            _ = try waitUntil(seconds: 5) { Set(try jackConnections()["t-conn:mix.out"] ?? []).count == 2 }
            let connections = try jackConnections()
            #expect(Set(connections["t-conn:mix.out"] ?? []) == ["system:playback_1", "system:playback_2"])
            // Internal connections are not JACK connections: the app inputs have none.
            #expect(connections["t-conn:mix.in_1"] == [])
        }

        @Test("a signal jack_connect'ed into an app input from outside is heard at the app's output")
        func outsideSignalIsHeard() throws {
            // thru.json's level app is -6 dB.
            let heard = try recordWithOutsideTone(graph: "graphs/thru.json", client: "t-fx",
                                                  inputs: ["input.in"], outputs: ["level.out"])[0]
            let expected = Float(0.5 * pow(10, -6.0 / 20))
            let level = SignalAnalysis.goertzelMagnitude(samples: heard, frequency: 1_000, sampleRate: 48_000)
            #expect(abs(level - expected) < expected * 0.02, "1 kHz at \(level), expected \(expected)")
            let frequency = try #require(SignalAnalysis.estimateFrequency(samples: heard, sampleRate: 48_000))
            #expect(abs(frequency - 1_000) < 1)
        }

        @Test("an outside signal into an input that also has an internal source is summed with it")
        func outsideSignalIsSummed() throws {
            // demo.json feeds tone-gain.in from its own 440 Hz tone (0.5) and applies -6 dB.
            let heard = try recordWithOutsideTone(graph: "graphs/demo.json", client: "t-sum",
                                                  inputs: ["tone-gain.in"], outputs: ["tone-gain.out"])[0]
            let gain = Float(pow(10, -6.0 / 20))
            let ownTone = SignalAnalysis.goertzelMagnitude(samples: heard, frequency: 440, sampleRate: 48_000)
            let outside = SignalAnalysis.goertzelMagnitude(samples: heard, frequency: 1_000, sampleRate: 48_000)
            #expect(abs(ownTone - 0.5 * gain) < 0.5 * gain * 0.02, "440 Hz at \(ownTone)")
            #expect(abs(outside - 0.5 * gain) < 0.5 * gain * 0.02, "1 kHz at \(outside)")
        }

        @Test("an input-capable app with the microphone grant hears outside input; without it, it records silence")
        func microphoneGrant() throws {
            let granted = try recordWithOutsideTone(graph: "Tests/Fixtures/graphs/live/mic-granted.json", client: "t-mic-yes",
                                                    inputs: ["recorder.in"], outputs: ["recorder.out"])[0]
            let level = SignalAnalysis.goertzelMagnitude(samples: granted, frequency: 1_000, sampleRate: 48_000)
            #expect(abs(level - 0.5) < 0.01, "the granted app hears 1 kHz at \(level)")
            let denied = try recordWithOutsideTone(graph: "Tests/Fixtures/graphs/live/mic-denied.json", client: "t-mic-no",
                                                   inputs: ["recorder.in"], outputs: ["recorder.out"], hearsTone: false)[0]
            #expect(SignalAnalysis.isExactlySilent(denied), "the app without the grant must record silence")
        }

        @Test("SIGTERM stops the engine cleanly and leaves no port behind")
        func sigtermLeavesNoPort() throws {
            let engine = try EngineProcess(graph: Repository.path("graphs/demo.json"), client: "t-term")
            #expect(try jackPorts().contains("t-term:mix.out"))
            let status = engine.stop()
            #expect(status == 0, "exit status \(status); stderr:\n\(engine.stderr)")
            #expect(try jackPorts().filter { $0.hasPrefix("t-term:") }.isEmpty)
            #expect(engine.stderr.contains("stopping on SIGTERM"))
        }

        @Test("a second engine with the same client name is refused with exit code 2, never renamed")
        func exactClientName() throws {
            let first = try EngineProcess(graph: Repository.path("graphs/demo.json"), client: "t-same")
            defer { first.stop() }
            let second = try runCommand(Repository.binary, ["run", Repository.path("graphs/demo.json"), "-n", "t-same"])
            #expect(second.status == 2)
            #expect(second.stderr.contains("already in use"))
            #expect(try jackPorts().filter { $0.hasPrefix("t-same-") }.isEmpty)
        }

        @Test("an invalid graph is refused with exit code 1 before anything is registered")
        func invalidGraphRegistersNothing() throws {
            let result = try runCommand(Repository.binary, ["run", Repository.path("Tests/Fixtures/graphs/invalid/unknown-port.json"), "-n", "t-bad"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("error[unknownPort]"))
            #expect(try jackPorts().filter { $0.hasPrefix("t-bad:") }.isEmpty)
        }
    }
}

/// Runs `graph` as client `client`, feeds its `inputs` from an outside JACK program playing 1 kHz
/// at amplitude 0.5 (a second engine), records its `outputs` for a second with `jack_rec`, and
/// returns each channel without the first 0.1 s (cycles before the connection settles).
///
/// The engine learns of a connection made from outside on JACK's notification thread, which a
/// loaded machine can hold back past any fixed wait, and a client late on a busy machine leaves a
/// gap: a take whose every 0.1 s does not carry the same 1 kHz is recorded again (at most five
/// takes; the caller's checks then judge the last). `hearsTone: false` (an app that must record
/// silence) takes one.
func recordWithOutsideTone(graph: String, client: String, inputs: [String], outputs: [String],
                           hearsTone: Bool = true) throws -> [[Float]] {
    let directory = try JackHarness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = try EngineProcess(graph: Repository.path("Tests/Fixtures/graphs/live/tone-source.json"), client: "\(client)-src")
    defer { source.stop() }
    let engine = try EngineProcess(graph: Repository.path(graph), client: client)
    defer { engine.stop() }
    for input in inputs {
        let connect = try runCommand("jack_connect", ["\(client)-src:tone.out", "\(client):\(input)"])
        #expect(connect.status == 0, "jack_connect failed: \(connect.stderr)")
    }
    usleep(200_000)
    let file = directory.appendingPathComponent("recorded.wav").path
    for take in 1...5 {
        let record = try runCommand("jack_rec", ["-f", file, "-d", "1"] + outputs.map { "\(client):\($0)" })
        #expect(record.status == 0, "jack_rec failed: \(record.stderr)")
        let channels = try SoundFileReader(path: file).readAll().map { Array($0.dropFirst(4_800)) }
        guard hearsTone, take < 5, let first = channels.first, first.count >= 9_600 else { return channels }
        // 0.1 s windows hold whole periods of 1 kHz (and of the graphs' 440 Hz) at 48 kHz.
        let levels = stride(from: 0, through: first.count - 4_800, by: 4_800).map {
            SignalAnalysis.goertzelMagnitude(samples: Array(first[$0..<$0 + 4_800]), frequency: 1_000, sampleRate: 48_000)
        }
        if let low = levels.min(), let high = levels.max(), low > 0.05, high - low < high * 0.02 { return channels }
        print("\(client): take \(take) is uneven (1 kHz at \(levels.map { String(format: "%.3f", $0) }.joined(separator: " "))); taken again")
    }
    return []
}
