import CKernels

/// A linear attack–decay–sustain–release envelope: CKernels' `iaa_envelope`, which the voices
/// kernel advances in C; here the events that start and end its segments.
///
/// Linear segments rather than exponential ones, so that a release of N frames reaches exact
/// silence on its N-th frame and the voice can stop: a test can assert exact zeros, and an idle
/// voice costs nothing. The attack and decay rates are fixed at the note-on and the release rate
/// at the note-off (from the parameter values at that frame); only the sustain level follows its
/// ramp frame by frame.
typealias Envelope = iaa_envelope

extension iaa_envelope {
    /// True while the envelope produces sound.
    var isActive: Bool { stage != IAA_ENVELOPE_IDLE }
    /// True between `start` and `release`.
    var isHeld: Bool { stage == IAA_ENVELOPE_ATTACK || stage == IAA_ENVELOPE_DECAY || stage == IAA_ENVELOPE_SUSTAIN }

    /// Starts (or restarts) the attack from the current level, so a retriggered or stolen voice
    /// never jumps. Times are in frames; 0 means immediately.
    /// - Realtime: safe.
    mutating func start(peak: Double, attackFrames: Double, decayFrames: Double, sustain: Double) {
        self.peak = peak
        attack_step = attackFrames >= 1 ? peak / attackFrames : peak
        // From wherever the decay will start (a stolen voice may be louder than the new peak);
        // never 0, so a sustain lowered during the decay is still reached.
        let fall = max(max(peak, level) - peak * sustain, 0.01 * peak)
        decay_step = decayFrames >= 1 ? fall / decayFrames : max(peak, level)
        stage = IAA_ENVELOPE_ATTACK
    }

    /// Starts the release: the level falls linearly to exactly 0 over `frames` frames.
    /// - Realtime: safe.
    mutating func release(frames: Double) {
        guard stage != IAA_ENVELOPE_IDLE, stage != IAA_ENVELOPE_RELEASE else { return }
        release_start = level
        release_frames = max(Int(frames.rounded(.up)), 1)
        release_remaining = release_frames
        stage = IAA_ENVELOPE_RELEASE
    }

    /// Silences at once (MIDI "all sound off", reset).
    mutating func stop() {
        stage = IAA_ENVELOPE_IDLE
        level = 0
    }

    /// Advances one frame and returns the level for that frame (`iaa_envelope_next`).
    /// - Realtime: safe.
    @inline(__always)
    mutating func next(sustain: Double) -> Double {
        iaa_envelope_next(&self, sustain)
    }
}
