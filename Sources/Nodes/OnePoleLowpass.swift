/// A one-pole lowpass by the bilinear transform, pre-warped: exactly −3 dB at the cutoff, −6 dB
/// per octave above it, a zero at Nyquist. y[n] = c·y[n−1] + u[n], u[n] = G·(x[n] + x[n−1]),
/// with g = tan(π·f/fs), G = g/(1 + g) and c = 1 − 2G.
///
/// Why a block form: the recursion is one serial multiply-add per frame, four to eight cycles of
/// latency each. Over a block of eight frames, y[k] = c^(k+1)·y[−1] + z[k] with
/// z[k] = Σ_{j≤k} c^(k−j)·u[j], and z needs no earlier block: in each half of four it is a
/// prefix scan in two steps (z += c·z shifted by one lane, then c²·z shifted by two), and the
/// high half adds the low half's last z. Only c^(k+1)·y[−1] waits for the previous block, so the
/// serial chain is one multiply-add per eight frames.
struct OnePoleLowpass {
    /// G and c for the current cutoff.
    private(set) var gain: Float = 0
    private(set) var feedback: Float = 0
    /// (c, c², c³, c⁴) and (c⁵, c⁶, c⁷, c⁸): y[−1]'s weight in each half, and (the low one) z[3]'s
    /// weight in the high half.
    private var lowPowers = SIMD4<Float>()
    private var highPowers = SIMD4<Float>()
    private var squaredFeedback: Float = 0
    private var previousInput: Float = 0
    private var previousOutput: Float = 0

    /// G and c for `cutoff` Hz (kept within 1 Hz…0.49·`sampleRate`).
    /// - Realtime: safe.
    @inline(__always)
    static func coefficients(cutoff: Double, sampleRate: Double) -> (gain: Double, feedback: Double) {
        let frequency = min(max(cutoff, 1), 0.49 * sampleRate)
        // g = tan(π·f/fs), as sin/cos of the shared polynomial: `Nodes` links no libm.
        let cycles = 0.5 * frequency / sampleRate
        let g = sine(cycles: cycles) / sine(cycles: cycles + 0.25)
        let gain = g / (1 + g)
        return (gain, 1 - 2 * gain)
    }

    /// Sets the cutoff for `render`; the powers of c are computed in `Double`.
    /// - Realtime: safe.
    mutating func setCutoff(_ cutoff: Double, sampleRate: Double) {
        let (g, c) = Self.coefficients(cutoff: cutoff, sampleRate: sampleRate)
        gain = Float(g)
        feedback = Float(c)
        squaredFeedback = Float(c * c)
        let c4 = c * c * c * c
        lowPowers = SIMD4(Float(c), Float(c * c), Float(c * c * c), Float(c4))
        highPowers = SIMD4(Float(c4 * c), Float(c4 * c * c), Float(c4 * c * c * c), Float(c4 * c4))
    }

    /// Filters one sample with explicit coefficients (for a moving cutoff).
    /// - Realtime: safe.
    @inline(__always)
    mutating func process(_ input: Float, gain: Float, feedback: Float) -> Float {
        let output = feedback * previousOutput + gain * (input + previousInput)
        previousInput = input
        previousOutput = output
        return output
    }

    /// Σ_{j≤k} c^(k−j)·u[j] for the four lanes of `u`.
    /// - Realtime: safe.
    @inline(__always)
    private func scan(_ u: SIMD4<Float>) -> SIMD4<Float> {
        var z = u
        z += feedback * SIMD4(0, z[0], z[1], z[2])
        z += squaredFeedback * SIMD4(0, 0, z[0], z[1])
        return z
    }

    /// Filters `frames` frames at the cutoff of the last `setCutoff`. The output may be the
    /// input's own buffer: each block is read whole before it is written.
    /// - Realtime: safe.
    mutating func render(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frames: Int) {
        var frame = 0
        var y1 = previousOutput, x1 = previousInput
        while frames - frame >= 8 {
            let low = UnsafeRawPointer(input + frame).loadUnaligned(as: SIMD4<Float>.self)
            let high = UnsafeRawPointer(input + frame + 4).loadUnaligned(as: SIMD4<Float>.self)
            let zLow = scan(gain * (low + SIMD4(x1, low[0], low[1], low[2])))
            var zHigh = scan(gain * (high + SIMD4(low[3], high[0], high[1], high[2])))
            zHigh += lowPowers * zLow[3]
            // The only terms that wait for the previous block.
            let yLow = zLow + lowPowers * y1
            let yHigh = zHigh + highPowers * y1
            UnsafeMutableRawPointer(output + frame).storeBytes(of: yLow, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(output + frame + 4).storeBytes(of: yHigh, as: SIMD4<Float>.self)
            x1 = high[3]
            y1 = yHigh[3]
            frame += 8
        }
        previousInput = x1
        previousOutput = y1
        let (g, c) = (gain, feedback)
        while frame < frames {
            output[frame] = process(input[frame], gain: g, feedback: c)
            frame += 1
        }
    }

    mutating func reset() {
        previousInput = 0
        previousOutput = 0
    }
}
