/// sin(2π·`cycles`) by range reduction and a Taylor polynomial, in `Double`.
///
/// Why not libm's `sin`: `Nodes` imports only NodeKit and AudioGraph, and an inlined polynomial
/// has no call inside. Folding onto a quarter period keeps |t| ≤ π/2, where the series up to
/// t¹³ errs by less than 1e-9, far below a `Float` sample's resolution. For serial loops (a
/// frequency ramp, synth voices, filter coefficients); steady oscillators use the eight-lane
/// `Float` kernel (CKernels' `sine`, whose reference is `sine(halfCycles:)`).
/// - Realtime: safe.
@inline(__always)
func sine(cycles: Double) -> Double {
    // Not `rounded()`, a libm call on baseline x86-64, which the benchmark profile showed as
    // most of the oscillator's time. r lies in [-0.5, 0.5].
    var r = cycleFraction(cycles)
    // sin(2π(½ − r)) = sin(2πr), so mirror the outer quarters inwards.
    if r > 0.25 {
        r = 0.5 - r
    } else if r < -0.25 {
        r = -0.5 - r
    }
    let t = 2 * Double.pi * r
    let t2 = t * t
    var series = 1.0 / 6_227_020_800        // 1/13!
    series = -1.0 / 39_916_800 + t2 * series // 1/11!
    series = 1.0 / 362_880 + t2 * series     // 1/9!
    series = -1.0 / 5_040 + t2 * series      // 1/7!
    series = 1.0 / 120 + t2 * series         // 1/5!
    series = -1.0 / 6 + t2 * series          // 1/3!
    series = 1 + t2 * series
    return t * series
}
