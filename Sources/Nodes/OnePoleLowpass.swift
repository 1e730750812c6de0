/// A one-pole lowpass by the bilinear transform, pre-warped: exactly −3 dB at the cutoff, −6 dB
/// per octave above it, a zero at Nyquist. y[n] = c·y[n−1] + G·(x[n] + x[n−1]), with
/// g = tan(π·f/fs), G = g/(1 + g) and c = 1 − 2G.
///
/// Why a block form: the recursion is one serial multiply-add per frame, four to eight cycles of
/// latency each. Unrolled over eight frames, every output of a block is a fixed combination of
/// the previous output, the previous input and the block's eight inputs, so a block costs a few
/// independent vector multiply-adds and only one step of the serial chain. The combinations are
/// computed once per cutoff, in `Double`.
struct OnePoleLowpass {
    /// G and c for the current cutoff.
    private(set) var gain: Float = 0
    private(set) var feedback: Float = 0
    /// Per lane k of a block: the weight of y[−1] (c^(k+1)) and of x[−1] (G·c^k), low and high halves.
    private var previousOutputWeights = (SIMD4<Float>(), SIMD4<Float>())
    private var previousInputWeights = (SIMD4<Float>(), SIMD4<Float>())
    /// weights.j: the weight of x[j] in lanes 0…7, G·(c^(k−j) + c^(k−j−1)) for k > j, G at k = j,
    /// 0 below. Lanes 0…3 of x[4…7] are all 0, so those halves are not stored.
    private var low = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
    private var high = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(),
                        SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
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

    /// Sets the cutoff for `render`, recomputing the block weights.
    /// - Realtime: safe.
    mutating func setCutoff(_ cutoff: Double, sampleRate: Double) {
        let (g, c) = Self.coefficients(cutoff: cutoff, sampleRate: sampleRate)
        gain = Float(g)
        feedback = Float(c)
        var powers = SIMD8<Double>()  // c^n
        var p = 1.0
        for n in 0..<8 {
            powers[n] = p
            p *= c
        }
        previousOutputWeights = (SIMD4(Float(powers[1]), Float(powers[2]), Float(powers[3]), Float(powers[4])),
                                 SIMD4(Float(powers[5]), Float(powers[6]), Float(powers[7]), Float(p)))
        let inputWeights = g * powers
        previousInputWeights = (SIMD4(Float(inputWeights[0]), Float(inputWeights[1]), Float(inputWeights[2]), Float(inputWeights[3])),
                                SIMD4(Float(inputWeights[4]), Float(inputWeights[5]), Float(inputWeights[6]), Float(inputWeights[7])))
        let w = (g, powers)
        low = (Self.lanes(0, 0, w), Self.lanes(1, 0, w), Self.lanes(2, 0, w), Self.lanes(3, 0, w))
        high = (Self.lanes(0, 4, w), Self.lanes(1, 4, w), Self.lanes(2, 4, w), Self.lanes(3, 4, w),
                Self.lanes(4, 4, w), Self.lanes(5, 4, w), Self.lanes(6, 4, w), Self.lanes(7, 4, w))
    }

    /// x[j]'s weight in lanes `first`…`first`+3 of a block.
    private static func lanes(_ j: Int, _ first: Int, _ w: (gain: Double, powers: SIMD8<Double>)) -> SIMD4<Float> {
        SIMD4(weight(first - j, w), weight(first + 1 - j, w), weight(first + 2 - j, w), weight(first + 3 - j, w))
    }

    /// x[j]'s weight in y[j + distance]: G·(c^d + c^(d−1)), G at d = 0, 0 before x[j] arrives.
    private static func weight(_ distance: Int, _ w: (gain: Double, powers: SIMD8<Double>)) -> Float {
        if distance < 0 { return 0 }
        if distance == 0 { return Float(w.gain) }
        return Float(w.gain * (w.powers[distance] + w.powers[distance - 1]))
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

    /// Filters `frames` frames at the cutoff of the last `setCutoff`. The output may be the
    /// input's own buffer: each block is read whole before it is written.
    /// - Realtime: safe.
    mutating func render(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frames: Int) {
        var frame = 0
        var y1 = previousOutput, x1 = previousInput
        while frames - frame >= 8 {
            let xl = UnsafeRawPointer(input + frame).loadUnaligned(as: SIMD4<Float>.self)
            let xh = UnsafeRawPointer(input + frame + 4).loadUnaligned(as: SIMD4<Float>.self)
            // The block's own inputs first: they do not wait for the previous block.
            var yl: SIMD4<Float> = low.0 * xl[0]
            yl += low.1 * xl[1]
            yl += low.2 * xl[2]
            yl += low.3 * xl[3]
            var yh: SIMD4<Float> = high.0 * xl[0]
            yh += high.1 * xl[1]
            yh += high.2 * xl[2]
            yh += high.3 * xl[3]
            yh += high.4 * xh[0]
            yh += high.5 * xh[1]
            yh += high.6 * xh[2]
            yh += high.7 * xh[3]
            yl += previousInputWeights.0 * x1
            yh += previousInputWeights.1 * x1
            yl += previousOutputWeights.0 * y1
            yh += previousOutputWeights.1 * y1
            UnsafeMutableRawPointer(output + frame).storeBytes(of: yl, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(output + frame + 4).storeBytes(of: yh, as: SIMD4<Float>.self)
            x1 = xh[3]
            y1 = yh[3]
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
