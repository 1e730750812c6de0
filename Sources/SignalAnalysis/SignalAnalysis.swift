#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measurements of rendered audio: level, peak, frequency, steps and silence.
///
/// Tests and render reports judge DSP by these measured properties rather than by hashes of
/// audio. Every function takes any collection of `Float` (`[Float]`, `ArraySlice<Float>`,
/// `UnsafeBufferPointer<Float>`) and accumulates in `Double`, so a second of audio at 48 kHz
/// measures without the rounding error a `Float` sum would add.
public enum SignalAnalysis {
    /// The root mean square of `samples`; 0 for an empty collection.
    public static func rms(_ samples: some Collection<Float>) -> Float {
        var sumOfSquares = 0.0
        var count = 0
        for sample in samples {
            let value = Double(sample)
            sumOfSquares += value * value
            count += 1
        }
        guard count > 0 else { return 0 }
        return Float((sumOfSquares / Double(count)).squareRoot())
    }

    /// The largest absolute sample value; 0 for an empty collection.
    public static func peak(_ samples: some Collection<Float>) -> Float {
        var largest: Float = 0
        for sample in samples {
            largest = max(largest, abs(sample))
        }
        return largest
    }

    /// The arithmetic mean (the DC offset); 0 for an empty collection.
    public static func mean(_ samples: some Collection<Float>) -> Float {
        var sum = 0.0
        var count = 0
        for sample in samples {
            sum += Double(sample)
            count += 1
        }
        return count > 0 ? Float(sum / Double(count)) : 0
    }

    /// A linear amplitude in decibels (20·log10); `-infinity` for 0.
    public static func decibels(_ linear: Float) -> Float {
        20 * log10(linear)
    }

    /// The amplitude of the component of `samples` at `frequency`, by the Goertzel algorithm.
    ///
    /// Normalized so that a sine of amplitude A at exactly `frequency` gives A. The estimate is
    /// exact when the window holds a whole number of periods; otherwise spectral leakage makes it
    /// approximate, so measure over a window of whole periods when a tight tolerance matters.
    public static func goertzelMagnitude(samples: some Collection<Float>, frequency: Double,
                                         sampleRate: Double) -> Float {
        let omega = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(omega)
        var previous = 0.0
        var beforePrevious = 0.0
        var count = 0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
            count += 1
        }
        guard count > 0 else { return 0 }
        // |s[N-1] - e^{-jω}·s[N-2]|² is the squared DTFT magnitude at ω, for any ω.
        let power = previous * previous + beforePrevious * beforePrevious
            - coefficient * previous * beforePrevious
        return Float(2 * max(power, 0).squareRoot() / Double(count))
    }

    /// The frequency of a periodic signal, from its upward zero crossings.
    ///
    /// Each crossing's time is found by linear interpolation between the two samples around it,
    /// and only upward crossings count, so a small DC offset does not bias the result. Returns
    /// `nil` when there are fewer than two upward crossings.
    public static func estimateFrequency(samples: some Collection<Float>,
                                         sampleRate: Double) -> Double? {
        var firstCrossing: Double? = nil
        var lastCrossing = 0.0
        var crossings = 0
        var previous: Float? = nil
        var index = 0
        for sample in samples {
            if let before = previous, before < 0, sample >= 0 {
                let fraction = Double(-before) / Double(sample - before)
                let time = Double(index - 1) + fraction
                if firstCrossing == nil { firstCrossing = time }
                lastCrossing = time
                crossings += 1
            }
            previous = sample
            index += 1
        }
        guard let first = firstCrossing, crossings >= 2, lastCrossing > first else { return nil }
        return Double(crossings - 1) * sampleRate / (lastCrossing - first)
    }

    /// The largest |x[i+1] − x[i]|: how far the signal ever jumps between two frames.
    ///
    /// A click shows as a step far larger than the signal's own largest slope.
    public static func maxAbsoluteStep(_ samples: some Collection<Float>) -> Float {
        var largest: Float = 0
        var previous: Float? = nil
        for sample in samples {
            if let before = previous {
                largest = max(largest, abs(sample - before))
            }
            previous = sample
        }
        return largest
    }

    /// True when every sample is exactly 0 (a sample of −0 counts as silent).
    public static func isExactlySilent(_ samples: some Collection<Float>) -> Bool {
        samples.allSatisfy { $0 == 0 }
    }
}
