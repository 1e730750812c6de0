import Testing
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sine of `amplitude` at `frequency`, `count` samples long, starting at `phase` radians.
private func sine(frequency: Double, amplitude: Float, sampleRate: Double = 48_000,
                  count: Int = 48_000, phase: Double = 0, offset: Float = 0) -> [Float] {
    (0..<count).map { index in
        amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / sampleRate + phase)) + offset
    }
}

@Suite("SignalAnalysis")
struct SignalAnalysisTests {
    @Test("rms of a sine is its amplitude over root two")
    func rmsOfSine() {
        let samples = sine(frequency: 1_000, amplitude: 0.5)
        #expect(abs(SignalAnalysis.rms(samples) - 0.5 / 2.0.squareRoot().float) < 1e-5)
    }

    @Test("rms of a constant is its magnitude and of nothing is zero")
    func rmsOfConstant() {
        #expect(SignalAnalysis.rms([Float](repeating: -0.25, count: 100)) == 0.25)
        #expect(SignalAnalysis.rms([Float]()) == 0)
    }

    @Test("peak is the largest magnitude, negative samples included")
    func peakMagnitude() {
        #expect(SignalAnalysis.peak([0.1, -0.9, 0.5]) == 0.9)
        #expect(SignalAnalysis.peak([Float]()) == 0)
    }

    @Test("mean measures a DC offset")
    func meanOffset() {
        let samples = sine(frequency: 100, amplitude: 0.5, offset: 0.125)
        #expect(abs(SignalAnalysis.mean(samples) - 0.125) < 1e-5)
    }

    @Test("decibels are twenty times the base-ten logarithm")
    func decibels() {
        #expect(SignalAnalysis.decibels(1) == 0)
        #expect(abs(SignalAnalysis.decibels(0.5) - -6.0206) < 1e-3)
        #expect(abs(SignalAnalysis.decibels(10) - 20) < 1e-4)
        #expect(SignalAnalysis.decibels(0) == -.infinity)
    }

    @Test("goertzel gives a sine's amplitude at its frequency and nearly nothing elsewhere")
    func goertzel() {
        let samples = sine(frequency: 440, amplitude: 0.7, phase: 0.3)
        let atTone = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 440, sampleRate: 48_000)
        let offTone = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 1_000, sampleRate: 48_000)
        #expect(abs(atTone - 0.7) < 1e-4)
        #expect(offTone < 1e-4)
    }

    @Test("goertzel separates two mixed tones")
    func goertzelTwoTones() {
        let low = sine(frequency: 300, amplitude: 0.25)
        let high = sine(frequency: 5_000, amplitude: 0.5)
        let mixed = zip(low, high).map { $0 + $1 }
        #expect(abs(SignalAnalysis.goertzelMagnitude(samples: mixed, frequency: 300, sampleRate: 48_000) - 0.25) < 1e-4)
        #expect(abs(SignalAnalysis.goertzelMagnitude(samples: mixed, frequency: 5_000, sampleRate: 48_000) - 0.5) < 1e-4)
    }

    // Linear interpolation across a crossing errs most at high frequencies, where a period spans
    // only a few samples; 12 kHz at 48 kHz still comes within 0.02 Hz over one second.
    @Test("zero crossings find a sine's frequency within five hundredths of a hertz",
          arguments: [27.5, 440.0, 997.3, 12_345.0])
    func frequencyEstimate(frequency: Double) throws {
        let samples = sine(frequency: frequency, amplitude: 0.5, phase: 1)
        let estimate = try #require(SignalAnalysis.estimateFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(estimate - frequency) < 0.05)
    }

    @Test("a DC offset does not bias the frequency estimate")
    func frequencyWithOffset() throws {
        let samples = sine(frequency: 440, amplitude: 0.5, offset: 0.2)
        let estimate = try #require(SignalAnalysis.estimateFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(estimate - 440) < 0.01)
    }

    @Test("a signal without two upward crossings has no frequency")
    func noFrequency() {
        #expect(SignalAnalysis.estimateFrequency(samples: [Float](repeating: 1, count: 64), sampleRate: 48_000) == nil)
        #expect(SignalAnalysis.estimateFrequency(samples: [-1, 1, -1] as [Float], sampleRate: 48_000) == nil)
    }

    @Test("max absolute step finds the largest jump between neighbours")
    func maxStep() {
        #expect(SignalAnalysis.maxAbsoluteStep([0, 0.1, 0.3, -0.2, -0.1]) == 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep([Float(1)]) == 0)
    }

    @Test("a sine's largest step matches its largest slope")
    func sineStep() {
        let samples = sine(frequency: 1_000, amplitude: 1)
        let slope = Float(2 * Double.pi * 1_000 / 48_000)
        #expect(SignalAnalysis.maxAbsoluteStep(samples) <= slope)
        #expect(SignalAnalysis.maxAbsoluteStep(samples) > slope * 0.99)
    }

    @Test("exact silence admits negative zero and nothing else")
    func silence() {
        #expect(SignalAnalysis.isExactlySilent([0, -0, 0] as [Float]))
        #expect(!SignalAnalysis.isExactlySilent([0, 1e-30, 0] as [Float]))
        #expect(SignalAnalysis.isExactlySilent([Float]()))
    }

    @Test("slices and unsafe buffers measure like arrays")
    func collectionKinds() {
        let samples: [Float] = [3, -4, 0, 0]
        #expect(SignalAnalysis.rms(samples[0..<2]) == (12.5 as Float).squareRoot())
        #expect(SignalAnalysis.isExactlySilent(samples[2...]))
        samples.withUnsafeBufferPointer { buffer in
            #expect(SignalAnalysis.peak(buffer) == 4)
            #expect(SignalAnalysis.maxAbsoluteStep(buffer) == 7)
        }
    }
}

private extension Double {
    var float: Float { Float(self) }
}
