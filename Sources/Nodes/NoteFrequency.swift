/// The equal-tempered frequency of MIDI note `note`: 440·2^((note − 69)/12) Hz.
///
/// Built from an exact power of two for the octave and one of twelve literal semitone ratios,
/// so it needs no libm `pow` (`Nodes` imports no C library) and no table that a lazy global
/// would initialize on the audio thread.
/// - Realtime: safe.
@inline(__always)
func noteFrequency(_ note: Int) -> Double {
    let offset = note - 69
    // Floor division, so notes below A4 land in the octave below with a positive semitone.
    let octave = offset >= 0 ? offset / 12 : -((11 - offset) / 12)
    let semitone = offset - 12 * octave
    return 440 * Double(sign: .plus, exponent: octave, significand: 1) * semitoneRatio(semitone)
}

/// 2^(`semitone`/12) for `semitone` in 0..<12.
@inline(__always)
private func semitoneRatio(_ semitone: Int) -> Double {
    switch semitone {
    case 1: return 1.059_463_094_359_295_3
    case 2: return 1.122_462_048_309_373
    case 3: return 1.189_207_115_002_721
    case 4: return 1.259_921_049_894_873_2
    case 5: return 1.334_839_854_170_034_4
    case 6: return 1.414_213_562_373_095_1
    case 7: return 1.498_307_076_876_681_5
    case 8: return 1.587_401_051_968_199_4
    case 9: return 1.681_792_830_507_429
    case 10: return 1.781_797_436_280_678_5
    case 11: return 1.887_748_625_363_387
    default: return 1
    }
}
