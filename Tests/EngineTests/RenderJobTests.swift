import AudioFiles
import Engine
import SignalAnalysis
import Testing
import TestKit

/// `RenderJob`, the engine behind `iaa render`, on every example graph.
@Suite("RenderJob")
struct RenderJobTests {
    @Test("there are example graphs to render")
    func examplesExist() {
        #expect(Repository.graphFiles(in: "graphs").count >= 3)
        #expect(Repository.graphFiles(in: "graphs").contains("graphs/demo.json"))
    }

    @Test("every example graph validates and renders 0.5 s of finite audio", arguments: Repository.graphFiles(in: "graphs"))
    func rendersExample(path: String) throws {
        let loaded = GraphLoading.load(Repository.path(path))
        let graph = try #require(loaded.graph, "\(path) does not validate:\n\(GraphLoading.report(loaded))")
        #expect(loaded.diagnostics.isEmpty, "\(GraphLoading.report(loaded))")

        let directory = try TemporaryDirectory()
        let output = directory.file("out.wav")
        let job = RenderJob(graphPath: Repository.path(path), outputPath: output, seconds: 0.5)
        let summary = try job.run(progress: { _ in })
        #expect(summary.frames == 24_000)
        #expect(summary.cycles == 94, "24000 frames in cycles of 256, the last one partial")

        let file = try RenderedFile(path: output)
        #expect(file.sampleRate == 48_000)
        #expect(file.frames == 24_000)
        #expect(file.channels.count == 2)
        #expect(file.isFinite, "no NaN or infinity in \(path)")
        // Offline, outside inputs are silent: a graph with no generator of its own (thru.json
        // only processes system:capture_1) renders exact silence, and every other graph sound.
        let hasGenerator = graph.apps.contains { $0.layout.inputs.isEmpty }
        for channel in file.channels {
            if hasGenerator {
                #expect(SignalAnalysis.rms(channel) > 0.01, "\(path) renders sound")
            } else {
                #expect(SignalAnalysis.isExactlySilent(channel), "\(path) has no source offline")
            }
        }
    }

    @Test("demo.json's 440 Hz component is tone amplitude × tone-gain × mixer gain within 2 %")
    func demoToneLevel() throws {
        // What demo.json says: tone amplitude 0.5, tone-gain "-6dB", mix gain 1.
        let expected = 0.5 * EngineTestSupport.linear(decibels: -6) * 1
        let loaded = GraphLoading.load(Repository.path("graphs/demo.json"))
        let graph = try #require(loaded.graph)
        let tone = try #require(graph.appIndex("tone").map { graph.apps[$0] })
        let toneGain = try #require(graph.appIndex("tone-gain").map { graph.apps[$0] })
        let mix = try #require(graph.appIndex("mix").map { graph.apps[$0] })
        let fromGraph = try Double(tone.parameters[#require(tone.type.parameterIndex("amplitude"))])
            * Double(toneGain.parameters[#require(toneGain.type.parameterIndex("gain"))])
            * Double(mix.parameters[#require(mix.type.parameterIndex("gain"))])
        #expect(abs(fromGraph - expected) < 1e-5, "the loaded graph reads the file's values")

        let directory = try TemporaryDirectory()
        let output = directory.file("demo.wav")
        _ = try RenderJob(graphPath: Repository.path("graphs/demo.json"), outputPath: output, seconds: 0.5)
            .run(progress: { _ in })
        let file = try RenderedFile(path: output)
        // 0.5 s holds exactly 220 periods of 440 Hz, so Goertzel has no leakage there.
        for channel in file.channels {
            let measured = Double(SignalAnalysis.goertzelMagnitude(samples: channel, frequency: 440, sampleRate: 48_000))
            #expect(abs(measured - expected) / expected < 0.02, "440 Hz at \(measured), expected \(expected)")
        }
        #expect(file.channels.first == file.channels.last, "one port to @playback feeds both channels")
    }

    @Test("progress reaches 1 and only grows")
    func progressIsMonotonic() throws {
        let directory = try TemporaryDirectory()
        var fractions: [Double] = []
        _ = try RenderJob(graphPath: Repository.path("graphs/chord.json"),
                          outputPath: directory.file("chord.wav"), seconds: 0.1)
            .run(progress: { fractions.append($0) })
        #expect(fractions.last == 1)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("an invalid graph throws invalidGraph and writes no file")
    func invalidGraphThrows() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("never.wav")
        let job = RenderJob(graphPath: Repository.path("Tests/Fixtures/graphs/invalid/unknown-port.json"),
                            outputPath: output, seconds: 0.1)
        let error = try #require(throws: EngineError.self) { try job.run(progress: { _ in }) }
        #expect(error.code == .invalidGraph)
        #expect(error.message.contains("error[unknownPort]"))
        #expect(throws: AudioFileError.self) { try SoundFileReader(path: output) }
    }
}
