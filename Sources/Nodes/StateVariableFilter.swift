import CKernels

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
            let g = iaa_sine_cycles(cycles) / iaa_sine_cycles(cycles + 0.25)
            k = damping
            a1 = 1 / (1 + g * (g + damping))
            a2 = g * a1
            a3 = g * a2
        }
    }

    /// The integrators' charge (and, for `render`, the coefficients), as CKernels' `svf` reads
    /// them; behind a pointer the owning node allocates (`init`) and frees (`deallocate`), so
    /// handing it to the kernel costs no dynamic exclusivity check.
    private let state: UnsafeMutablePointer<iaa_svf>

    /// Allocates the state. Control side.
    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_svf())
    }

    /// Frees the state; the owner calls it once, from its `deinit`.
    func deallocate() {
        state.deallocate()
    }

    /// The state, for the node's steady cycle (CKernels' `svf_cycle`).
    var statePointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(state) }

    /// Sets the coefficients and mode the steady cycle renders at.
    /// - Realtime: safe.
    func setSteady(_ c: Coefficients, mode: Mode) {
        state.pointee.k = c.k
        state.pointee.a1 = c.a1
        state.pointee.a2 = c.a2
        state.pointee.a3 = c.a3
        state.pointee.mode = Int32(mode.rawValue)
    }

    /// Filters one sample (for coefficients that move every frame).
    /// - Realtime: safe.
    @inline(__always)
    func process(_ input: Float, _ c: Coefficients, mode: Mode) -> Float {
        let v0 = Double(input)
        let (ic1eq, ic2eq) = (state.pointee.ic1eq, state.pointee.ic2eq)
        let v3 = v0 - ic2eq
        let v1 = c.a1 * ic1eq + c.a2 * v3
        let v2 = ic2eq + c.a2 * ic1eq + c.a3 * v3
        state.pointee.ic1eq = 2 * v1 - ic1eq
        state.pointee.ic2eq = 2 * v2 - ic2eq
        switch mode {
        case .lowpass: return Float(v2)
        case .highpass: return Float(v0 - c.k * v1 - v2)
        // Scaled by k, so the peak at the cutoff has unity gain whatever the resonance.
        case .bandpass: return Float(c.k * v1)
        }
    }

    func reset() {
        state.pointee.ic1eq = 0
        state.pointee.ic2eq = 0
    }
}
