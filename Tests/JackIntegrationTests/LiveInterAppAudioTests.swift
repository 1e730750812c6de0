import AudioFiles
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// graphs/studio.json live: MIDI from a JACK program reaches the synth, JACK transport drives
    /// the sequencer, and a plugin loaded by path shows its ports.
    @Suite("Inter-App Audio on a real JACK server", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct LiveInterAppAudioTests {
        /// Records `ports` of the running engine for `seconds` and returns each channel.
        func record(_ ports: [String], seconds: Int = 1) throws -> [[Float]] {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("recorded.wav").path
            let result = try runCommand("jack_rec", ["-f", file, "-d", String(seconds)] + ports)
            #expect(result.status == 0, "jack_rec failed: \(result.stderr)")
            return try SoundFileReader(path: file).readAll()
        }

        func transport(_ command: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/jack_transport")
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("\(command)\nexit\n".utf8))
            try input.fileHandleForWriting.close()
            #expect(process.waitForExit(seconds: 10), "jack_transport \(command) did not finish within 10 s")
            usleep(200_000)
        }

        @Test("notes sent by jack_midiseq to CLIENT:synth.midi_in are heard at the synth's output")
        func midiFromJack() throws {
            let engine = try EngineProcess(graph: Repository.path("graphs/studio.json"), client: "t-studio")
            defer { engine.stop() }
            #expect(try jackPorts(["-t", "t-studio:synth.midi_in"]).contains { $0.contains("midi") })
            // A 0.5 s loop: A4 (note 69) held for its first quarter second.
            let sequencer = Process()
            sequencer.executableURL = URL(fileURLWithPath: "/usr/bin/jack_midiseq")
            sequencer.arguments = ["t-mseq", "24000", "0", "69", "12000"]
            sequencer.standardOutput = FileHandle.nullDevice
            sequencer.standardError = FileHandle.nullDevice
            try sequencer.run()
            // jack_midiseq ignores SIGTERM.
            defer { kill(sequencer.processIdentifier, SIGKILL); sequencer.waitUntilExit() }
            let connected = waitUntil(seconds: 5) {
                (try? runCommand("jack_connect", ["t-mseq:out", "t-studio:synth.midi_in"]).status) == 0
            }
            try #require(connected, "could not connect jack_midiseq to the synth")
            // The first loop's note-on comes once jack_midiseq's client is active, which a machine
            // busy with other lanes can hold back past a take: a silent take is taken again.
            var a4: Float = 0, neighbour: Float = 0, takes = 0
            _ = try waitUntil(seconds: 6) {
                let synth = try record(["t-studio:synth.out"])[0]
                takes += 1
                a4 = SignalAnalysis.goertzelMagnitude(samples: synth, frequency: 440, sampleRate: 48_000)
                neighbour = SignalAnalysis.goertzelMagnitude(samples: synth, frequency: 415.3, sampleRate: 48_000)
                return !SignalAnalysis.isExactlySilent(synth)
            }
            let said = "after \(takes) one-second takes; the engine said:\n\(engine.stderr)"
            #expect(a4 > 0.01, "A4 at \(a4) \(said)")
            #expect(a4 > neighbour * 4, "A4 \(a4) against G#4 \(neighbour) \(said)")
        }

        @Test("jack_transport play and stop start and stop the step sequencer that follows the host transport")
        func transportDrivesSequencer() throws {
            let engine = try EngineProcess(graph: Repository.path("graphs/studio.json"), client: "t-tempo")
            defer { engine.stop() }
            try transport("stop")
            #expect(SignalAnalysis.isExactlySilent(try record(["t-tempo:seq.out"])[0].dropFirst(4_800)))
            try transport("play")
            let playing = try record(["t-tempo:seq.out"])[0]
            try transport("stop")
            #expect(SignalAnalysis.rms(playing.dropFirst(4_800)) > 0.02, "the sequencer did not play with the transport rolling")
        }

        @Test("a plugin loaded by path is hosted by iaa run and jack_lsp lists its ports")
        func pluginHostedLive() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let build = try runCommand("/bin/sh", [Repository.path("Examples/Plugins/tremolo-c/build.sh"), directory.path])
            #expect(build.status == 0, "build failed: \(build.stderr)")
            let graph = directory.appendingPathComponent("graph.json")
            try FileManager.default.copyItem(atPath: Repository.path("Examples/Plugins/tremolo-c/graph.json"), toPath: graph.path)
            let engine = try EngineProcess(graph: graph.path, client: "t-plug")
            defer { engine.stop() }
            let ports = try jackPorts().filter { $0.hasPrefix("t-plug:tremolo.") }
            #expect(ports.sorted() == ["t-plug:tremolo.in", "t-plug:tremolo.out"])
            let heard = try record(["t-plug:tremolo.out"])[0]
            #expect(SignalAnalysis.peak(heard) > 0.3, "the tremolo's output is too quiet")
        }
    }
}
