import AudioFiles
import Foundation
import SignalAnalysis
import Testing

extension JackIntegration {
    /// `iaa run` against the private JACK server of tools/test, checked with JACK's own tools.
    @Suite("iaa run on a real JACK server", .serialized, .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct JackRunTests {
        @Test("every app port is registered as CLIENT:APP.PORT with the JACK type and metadata")
        func registersPorts() throws {
            let engine = try EngineProcess(graph: JackHarness.path("graphs/demo.json"), client: "t-ports")
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
            let engine = try EngineProcess(graph: JackHarness.path("graphs/demo.json"), client: "t-conn")
            defer { engine.stop() }
            usleep(200_000)
            let connections = try jackConnections()
            #expect(Set(connections["t-conn:mix.out"] ?? []) == ["system:playback_1", "system:playback_2"])
            // Internal connections are not JACK connections: the app inputs have none.
            #expect(connections["t-conn:mix.in_1"] == [])
        }

        @Test("a signal jack_connect'ed into an app input from outside is heard at the app's output")
        func outsideSignalIsHeard() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            // The outside program is a second engine playing a 1 kHz tone at amplitude 0.5.
            let source = try EngineProcess(graph: JackHarness.path("Tests/Fixtures/graphs/live/tone-source.json"), client: "t-src")
            defer { source.stop() }
            let effect = try EngineProcess(graph: JackHarness.path("graphs/thru.json"), client: "t-fx")
            defer { effect.stop() }
            let connect = try runCommand("jack_connect", ["t-src:tone.out", "t-fx:input.in"])
            #expect(connect.status == 0, "jack_connect failed: \(connect.stderr)")
            usleep(200_000)
            let file = directory.appendingPathComponent("heard.wav").path
            let record = try runCommand("jack_rec", ["-f", file, "-d", "1", "t-fx:level.out"])
            #expect(record.status == 0, "jack_rec failed: \(record.stderr)")
            let samples = try SoundFileReader(path: file).readAll()[0]
            // thru.json's level app is -6 dB; skip the first cycles jack_rec may catch before audio flows.
            let steady = Array(samples.dropFirst(4_800))
            let level = SignalAnalysis.goertzelMagnitude(samples: steady, frequency: 1_000, sampleRate: 48_000)
            let expected = Float(0.5 * pow(10, -6.0 / 20))
            #expect(abs(level - expected) < expected * 0.02, "1 kHz at \(level), expected \(expected)")
            let frequency = try #require(SignalAnalysis.estimateFrequency(samples: steady, sampleRate: 48_000))
            #expect(abs(frequency - 1_000) < 1)
        }

        @Test("an outside signal into an input that also has an internal source is summed with it")
        func outsideSignalIsSummed() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = try EngineProcess(graph: JackHarness.path("Tests/Fixtures/graphs/live/tone-source.json"), client: "t-src2")
            defer { source.stop() }
            // demo.json feeds tone-gain.in from its own 440 Hz tone (0.5) and applies -6 dB.
            let engine = try EngineProcess(graph: JackHarness.path("graphs/demo.json"), client: "t-sum")
            defer { engine.stop() }
            #expect(try runCommand("jack_connect", ["t-src2:tone.out", "t-sum:tone-gain.in"]).status == 0)
            usleep(200_000)
            let file = directory.appendingPathComponent("sum.wav").path
            #expect(try runCommand("jack_rec", ["-f", file, "-d", "1", "t-sum:tone-gain.out"]).status == 0)
            let steady = Array(try SoundFileReader(path: file).readAll()[0].dropFirst(4_800))
            let gain = Float(pow(10, -6.0 / 20))
            let ownTone = SignalAnalysis.goertzelMagnitude(samples: steady, frequency: 440, sampleRate: 48_000)
            let outside = SignalAnalysis.goertzelMagnitude(samples: steady, frequency: 1_000, sampleRate: 48_000)
            #expect(abs(ownTone - 0.5 * gain) < 0.5 * gain * 0.02, "440 Hz at \(ownTone)")
            #expect(abs(outside - 0.5 * gain) < 0.5 * gain * 0.02, "1 kHz at \(outside)")
        }

        @Test("SIGTERM stops the engine cleanly and leaves no port behind")
        func sigtermLeavesNoPort() throws {
            let engine = try EngineProcess(graph: JackHarness.path("graphs/demo.json"), client: "t-term")
            #expect(try jackPorts().contains("t-term:mix.out"))
            let status = engine.stop()
            #expect(status == 0, "exit status \(status); stderr:\n\(engine.stderr)")
            #expect(try jackPorts().filter { $0.hasPrefix("t-term:") }.isEmpty)
            #expect(engine.stderr.contains("stopping on SIGTERM"))
        }

        @Test("a second engine with the same client name is refused with exit code 2, never renamed")
        func exactClientName() throws {
            let first = try EngineProcess(graph: JackHarness.path("graphs/demo.json"), client: "t-same")
            defer { first.stop() }
            let second = try runCommand(JackHarness.debugBinary, ["run", JackHarness.path("graphs/demo.json"), "-n", "t-same"])
            #expect(second.status == 2)
            #expect(second.stderr.contains("already in use"))
            #expect(try jackPorts().filter { $0.hasPrefix("t-same-") }.isEmpty)
        }

        @Test("an invalid graph is refused with exit code 1 before anything is registered")
        func invalidGraphRegistersNothing() throws {
            let result = try runCommand(JackHarness.debugBinary, ["run", JackHarness.path("Tests/Fixtures/graphs/invalid/unknown-port.json"), "-n", "t-bad"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("error[unknownPort]"))
            #expect(try jackPorts().filter { $0.hasPrefix("t-bad:") }.isEmpty)
        }
    }
}
