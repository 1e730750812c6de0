/// A sawtooth from −1 to 1 at `phase` (in cycles, [0, 1)), with the jump at phase 0 smoothed by
/// a polynomial band-limited step (polyBLEP).
///
/// A naive saw aliases loudly, because its jump has energy far above Nyquist. PolyBLEP subtracts
/// a two-sample polynomial approximation of that energy around the jump, which removes most of
/// the audible aliasing for the cost of two comparisons; `increment` (cycles per frame) is the
/// width of the correction.
/// - Realtime: safe.
@inline(__always)
func polyBLEPSaw(phase: Double, increment: Double) -> Double {
    var saw = 2 * phase - 1
    guard increment > 0 else { return saw }
    if phase < increment {
        let x = phase / increment
        saw -= x + x - x * x - 1
    } else if phase > 1 - increment {
        let x = (phase - 1) / increment
        saw -= x * x + x + x + 1
    }
    return saw
}
