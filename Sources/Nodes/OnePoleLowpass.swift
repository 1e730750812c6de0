import CKernels

/// A one-pole lowpass by the bilinear transform, pre-warped: exactly −3 dB at the cutoff, −6 dB
/// per octave above it, a zero at Nyquist. y[n] = c·y[n−1] + u[n], u[n] = G·(x[n] + x[n−1]),
/// with g = tan(π·f/fs), G = g/(1 + g) and c = 1 − 2G.
///
/// Why a block form: the recursion is one serial multiply-add per frame, four to eight cycles of
/// latency each. Over a block of eight frames, y[k] = c^(k+1)·y[−1] + z[k] with
/// z[k] = Σ_{j≤k} c^(k−j)·u[j], and z needs no earlier block: it is a prefix scan in three steps
/// (z += c·z shifted by one lane, then c²·z by two, then c⁴·z by four). Only c^(k+1)·y[−1] waits
/// for the previous block. The kernel takes blocks in pairs and writes the second's y[−1] term
/// through the first (c^(k+1)·z₁[7] + c^(k+9)·y[−1]), so the serial chain is one multiply-add per
/// sixteen frames. The block loop is CKernels' `onepole` (AVX2+FMA when the CPU has it), which the
/// node calls through its steady cycle (`onepole_cycle`, `statePointer`); this struct holds its state.
///
/// The state lives behind a pointer the owning node allocates once (`init`) and frees in its
/// `deinit` (`deallocate`): handing the kernel `&state` of a struct inside a class cost a dynamic
/// exclusivity check (two runtime calls) per cycle.
struct OnePoleLowpass {
    /// G, c, the powers of c and the last input and output, as the kernel reads them.
    private let state: UnsafeMutablePointer<iaa_onepole>

    /// Allocates the state. Control side.
    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_onepole())
    }

    /// Frees the state; the owner calls it once, from its `deinit`.
    func deallocate() {
        state.deallocate()
    }

    /// The state, for the node's steady cycle (CKernels' `onepole_cycle`).
    var statePointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(state) }

    var gain: Float { state.pointee.gain }
    var feedback: Float { state.pointee.feedback }

    /// G and c for `cutoff` Hz (kept within 1 Hz…0.49·`sampleRate`).
    /// - Realtime: safe.
    @inline(__always)
    static func coefficients(cutoff: Double, sampleRate: Double) -> (gain: Double, feedback: Double) {
        let frequency = min(max(cutoff, 1), 0.49 * sampleRate)
        // g = tan(π·f/fs), as sin/cos of the shared polynomial: `Nodes` links no libm.
        let cycles = 0.5 * frequency / sampleRate
        let g = iaa_sine_cycles(cycles) / iaa_sine_cycles(cycles + 0.25)
        let gain = g / (1 + g)
        return (gain, 1 - 2 * gain)
    }

    /// Sets the cutoff for `render`; the powers of c are computed in `Double`.
    /// - Realtime: safe.
    func setCutoff(_ cutoff: Double, sampleRate: Double) {
        let (g, c) = Self.coefficients(cutoff: cutoff, sampleRate: sampleRate)
        state.pointee.gain = Float(g)
        state.pointee.feedback = Float(c)
        let c2 = c * c, c4 = c2 * c2, c8 = c4 * c4
        state.pointee.powers = (Float(c), Float(c2), Float(c2 * c), Float(c4),
                                Float(c4 * c), Float(c4 * c2), Float(c4 * c2 * c), Float(c8),
                                Float(c8 * c), Float(c8 * c2), Float(c8 * c2 * c), Float(c8 * c4),
                                Float(c8 * c4 * c), Float(c8 * c4 * c2), Float(c8 * c4 * c2 * c), Float(c8 * c8))
    }

    /// Filters one sample with explicit coefficients (for a moving cutoff).
    /// - Realtime: safe.
    @inline(__always)
    func process(_ input: Float, gain: Float, feedback: Float) -> Float {
        let output = feedback * state.pointee.previous_output + gain * (input + state.pointee.previous_input)
        state.pointee.previous_input = input
        state.pointee.previous_output = output
        return output
    }

    func reset() {
        state.pointee.previous_input = 0
        state.pointee.previous_output = 0
    }
}
