/// sin(2π·`cycles`) for eight frames at once, in `Float`.
///
/// Why `Float` and eight lanes: on baseline x86-64 (SSE2) a register holds four `Float`s but only
/// two `Double`s, so this does the oscillator's work in half the instructions of the `Double`
/// ``sine(cycles:)``, and the two halves of a `SIMD8` give two independent chains to overlap.
/// There is no compare or branch: the input is folded onto half a period by rounding 2·cycles to
/// a whole number q, whose parity (sin(x + πq) = (−1)^q·sin x) is read from the rounded value's
/// lowest mantissa bit and flipped into the sign. The odd degree-9 polynomial is a minimax fit of
/// sin on [−π/2, π/2] (3e-9 in exact arithmetic), its coefficients then nudged by a few ulps so
/// that, evaluated in `Float`, it never exceeds 1 (a full-scale sine must not pass 0 dBFS) and
/// errs by at most 2.1e-7 over [−1, 1] cycles.
/// Valid for |cycles| < 2²¹; callers keep it within [−1, 1], where it is exact to the last bit
/// of the reduction.
/// - Realtime: safe.
@inline(__always)
func sine(cycles: SIMD8<Float>) -> SIMD8<Float> {
    // Adding 1.5·2²³ rounds to the nearest integer (ties to even) in the float adder; the
    // multiplication by 2 is exact, so `halves` is exactly round(2·cycles).
    let shifter = SIMD8<Float>(repeating: 12_582_912)
    let shifted = cycles * 2 + shifter
    let halves = shifted - shifter
    let parity = unsafeBitCast(shifted, to: SIMD8<UInt32>.self) &<< 31
    // Exact (Sterbenz): |r| ≤ 1/4, so t = 2πr lies in [−π/2, π/2].
    let r = cycles - halves * 0.5
    let t = r * 6.283_185_307
    let t2 = t * t
    var series = SIMD8<Float>(repeating: 2.590_488_5e-6)
    series = series * t2 - 1.980_090_2e-4
    series = series * t2 + 8.332_902e-3
    series = series * t2 - 0.166_666_51
    series = series * t2 + 1
    let value = t * series
    return unsafeBitCast(unsafeBitCast(value, to: SIMD8<UInt32>.self) ^ parity, to: SIMD8<Float>.self)
}

/// `cycles` minus the nearest whole number, in [−0.5, 0.5].
///
/// Rounds by adding and subtracting 1.5·2⁵²: `rounded()` is a libm call on baseline x86-64
/// (no SSE4.1). Valid for |cycles| < 2⁵¹.
/// - Realtime: safe.
@inline(__always)
func cycleFraction(_ cycles: Double) -> Double {
    let shifter = 6_755_399_441_055_744.0
    return cycles - ((cycles + shifter) - shifter)
}
