/// A two-pole state-variable filter in topology-preserving-transform form (Zavalishin's TPT,
/// as Cytomic's "SvfLinearTrapOptimised2" writes it).
///
/// Why this structure: its state is the trapezoidal integrators' charge, not past outputs, so
/// changing the coefficients every frame (a fast cutoff sweep) cannot blow it up the way a
/// direct-form biquad can; the cutoff is pre-warped, so it lands exactly where asked.
struct StateVariableFilter {
    /// What the filter outputs; the raw values of the node's `mode` parameter.
    enum Mode: Int {
        case lowpass = 0, highpass, bandpass
    }

    /// The coefficients for one cutoff and damping.
    struct Coefficients {
        let k: Double
        let a1: Double
        let a2: Double
        let a3: Double

        /// `cutoff` in Hz (kept below 0.49 × `sampleRate`), `damping` k = 1/Q.
        /// - Realtime: safe.
        init(cutoff: Double, damping: Double, sampleRate: Double) {
            let frequency = min(max(cutoff, 1), 0.49 * sampleRate)
            // g = tan(π·f/fs), as sin/cos of the shared polynomial: `Nodes` links no libm.
            let cycles = 0.5 * frequency / sampleRate
            let g = sine(cycles: cycles) / sine(cycles: cycles + 0.25)
            k = damping
            a1 = 1 / (1 + g * (g + damping))
            a2 = g * a1
            a3 = g * a2
        }
    }

    private var ic1eq: Double = 0
    private var ic2eq: Double = 0

    /// Filters one sample.
    /// - Realtime: safe.
    @inline(__always)
    mutating func process(_ input: Float, _ c: Coefficients, mode: Mode) -> Float {
        let v0 = Double(input)
        let v3 = v0 - ic2eq
        let v1 = c.a1 * ic1eq + c.a2 * v3
        let v2 = ic2eq + c.a2 * ic1eq + c.a3 * v3
        ic1eq = 2 * v1 - ic1eq
        ic2eq = 2 * v2 - ic2eq
        switch mode {
        case .lowpass: return Float(v2)
        case .highpass: return Float(v0 - c.k * v1 - v2)
        // Scaled by k, so the peak at the cutoff has unity gain whatever the resonance.
        case .bandpass: return Float(c.k * v1)
        }
    }

    mutating func reset() {
        ic1eq = 0
        ic2eq = 0
    }
}
