/// sin(π·`halfCycles`) for eight frames at once, in `Float`.
///
/// The oscillator runs this arithmetic as CKernels' `sine8` (compiled for the baseline and for
/// AVX2+FMA); this Swift form is the reference: SineBlockTests hold it to sin(πx) and its
/// bound, and KernelSetTests hold both kernel builds to it.
///
/// Why `Float` and eight lanes: on baseline x86-64 (SSE2) a register holds four `Float`s but only
/// two `Double`s, and the two halves of a `SIMD8` give two independent chains to overlap. Why
/// half cycles: rounding the input to a whole number q folds it onto [−½, ½] with no scaling, and
/// sin(π(u + q)) = (−1)^q·sin(πu), so the sign comes from q's parity, read from the rounded value's
/// lowest mantissa bit: no compare, no branch, 17 vector operations per four frames. The odd
/// degree-9 polynomial in u is a minimax fit of sin(πu) on [−½, ½] (3e-9 in exact arithmetic),
/// its coefficients then nudged by a few ulps so that, evaluated in `Float`, it never exceeds 1
/// (a full-scale sine must not pass 0 dBFS) and errs by at most 1.7e-7. Valid for
/// |halfCycles| < 2²²; the reduction is exact, so the error does not grow with the input.
/// `scale` multiplies the coefficients (hoisted out of a caller's loop), so an amplitude costs
/// no multiply per frame; at a scale other than 1 the result may pass ±`scale` by an ulp.
/// - Realtime: safe.
@inline(__always)
func sine(halfCycles x: SIMD8<Float>, scale: Float = 1) -> SIMD8<Float> {
    // Adding 1.5·2²³ rounds to the nearest integer (ties to even) in the float adder.
    let shifter = SIMD8<Float>(repeating: 12_582_912)
    let shifted = x + shifter
    let parity = unsafeBitCast(shifted, to: SIMD8<UInt32>.self) &<< 31
    let u = x - (shifted - shifter)  // exact (Sterbenz), in [−½, ½]
    let u2 = u * u
    var series = SIMD8<Float>(repeating: 0.077_220_13 * scale)
    series = series * u2 - 0.598_045_05 * scale
    series = series * u2 + 2.550_032_4 * scale
    series = series * u2 - 5.167_709 * scale
    series = series * u2 + 3.141_593 * scale
    let value = u * series
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
