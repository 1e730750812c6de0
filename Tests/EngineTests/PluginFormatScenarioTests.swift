import AudioFiles
import Engine
import SignalAnalysis
import Testing
import TestKit

/// graphs/effects.json with its timeline: installed LV2 and LADSPA plugins inside the engine,
/// driven by the graph's MIDI and parameter changes, measured in their stems.
@Suite("LV2 and LADSPA plugins in a rendered graph")
struct PluginFormatScenarioTests {
    static let stems: [String: [Float]] = {
        let directory = try! TemporaryDirectory()
        var job = RenderJob(graphPath: Repository.path("graphs/effects.json"),
                            outputPath: directory.file("effects.wav"), seconds: 2)
        job.timelinePath = Repository.path("graphs/effects.timeline.json")
        job.stemsDirectory = directory.file("stems")
        _ = try! job.run(progress: { _ in })
        var stems: [String: [Float]] = [:]
        for app in ["piano", "amp", "echo"] {
            stems[app] = try! RenderedFile(path: directory.file("stems/\(app).wav")).channels[0]
        }
        return stems
    }()

    /// The lowest partial within 12 dB of the loudest between 100 Hz and 1.2 kHz (a 2 Hz grid of
    /// Goertzel filters, refined to the local peak): a piano's fundamental, even when its second
    /// harmonic is louder.
    static func fundamental(_ samples: ArraySlice<Float>) -> Double? {
        let grid = Array(stride(from: 100.0, through: 1200, by: 2))
        let magnitudes = grid.map { SignalAnalysis.goertzelMagnitude(samples: samples, frequency: $0, sampleRate: 48_000) }
        guard let strongest = magnitudes.max(), strongest > 0,
              let first = magnitudes.firstIndex(where: { $0 >= strongest / 4 }) else { return nil }
        let peak = (first..<min(first + 10, grid.count)).max { magnitudes[$0] < magnitudes[$1] } ?? first
        return grid[peak]
    }

    @Test("the timeline's MIDI plays the LV2 piano from the note-on's frame, at A4 then A3")
    func pianoFollowsTheTimeline() throws {
        let piano = try #require(Self.stems["piano"])
        #expect(SignalAnalysis.isExactlySilent(piano[..<24_000]), "sound before the first note-on")
        #expect(SignalAnalysis.peak(piano[24_000..<24_256]) > 0.01, "no sound in the note-on's cycle")
        let first = try #require(Self.fundamental(piano[26_400..<43_200]))
        let second = try #require(Self.fundamental(piano[60_000..<76_800]))
        #expect(abs(first - 440) < 4, "A4 at \(first) Hz")
        #expect(abs(second - 220) < 3, "A3 at \(second) Hz")
    }

    @Test("setParam moves the LV2 amp's gain from -6 dB to -20 dB, smoothed (no step)")
    func ampFollowsSetParam() throws {
        let amp = try #require(Self.stems["amp"])
        let before = SignalAnalysis.decibels(SignalAnalysis.rms(amp[28_800..<48_000]))
        let after = SignalAnalysis.decibels(SignalAnalysis.rms(amp[52_800..<72_000]))
        #expect(abs((after - before) - (-14)) < 0.1, "\(after - before) dB")
        // The tone (amplitude 0.25 after the amp) moves at most 0.0072 per sample; the gain
        // stepping once per 256-frame cycle jumped 0.042 here, an unsmoothed change up to 0.2.
        #expect(SignalAnalysis.maxAbsoluteStep(amp[47_000..<50_000]) < 0.02)
    }
}
