/// A linear attack–decay–sustain–release envelope, advanced one frame at a time.
///
/// Linear segments rather than exponential ones, so that a release of N frames reaches exact
/// silence on its N-th frame and the voice can stop: a test can assert exact zeros, and an idle
/// voice costs nothing. The attack and decay rates are fixed at the note-on and the release rate
/// at the note-off (from the parameter values at that frame); only the sustain level follows its
/// ramp frame by frame.
struct Envelope {
    enum Stage: UInt8 {
        case idle, attack, decay, sustain, release
    }

    private(set) var stage: Stage = .idle
    /// The current level, from 0 to `peak`.
    private(set) var level: Double = 0
    /// The level the attack reaches (a voice's velocity).
    private var peak: Double = 1
    private var attackStep: Double = 1
    private var decayStep: Double = 1
    /// The level when the release started, and its length and remaining frames.
    private var releaseStart: Double = 0
    private var releaseFrames = 1
    private var releaseRemaining = 0

    /// True while the envelope produces sound.
    var isActive: Bool { stage != .idle }
    /// True between `start` and `release`.
    var isHeld: Bool { stage == .attack || stage == .decay || stage == .sustain }

    /// Starts (or restarts) the attack from the current level, so a retriggered or stolen voice
    /// never jumps. Times are in frames; 0 means immediately.
    /// - Realtime: safe.
    mutating func start(peak: Double, attackFrames: Double, decayFrames: Double, sustain: Double) {
        self.peak = peak
        attackStep = attackFrames >= 1 ? peak / attackFrames : peak
        // From wherever the decay will start (a stolen voice may be louder than the new peak);
        // never 0, so a sustain lowered during the decay is still reached.
        let fall = max(max(peak, level) - peak * sustain, 0.01 * peak)
        decayStep = decayFrames >= 1 ? fall / decayFrames : max(peak, level)
        stage = .attack
    }

    /// Starts the release: the level falls linearly to exactly 0 over `frames` frames.
    /// - Realtime: safe.
    mutating func release(frames: Double) {
        guard stage != .idle, stage != .release else { return }
        releaseStart = level
        releaseFrames = max(Int(frames.rounded(.up)), 1)
        releaseRemaining = releaseFrames
        stage = .release
    }

    /// Silences at once (MIDI "all sound off", reset).
    mutating func stop() {
        stage = .idle
        level = 0
    }

    /// Advances one frame and returns the level for that frame. The first frame after `start`
    /// is already one step up, so a note is audible from the frame of its event.
    /// - Realtime: safe.
    @inline(__always)
    mutating func next(sustain: Double) -> Double {
        switch stage {
        case .idle:
            return 0
        case .attack where level < peak:
            level += attackStep
            if level >= peak {
                level = peak
                stage = .decay
            }
        case .attack, .decay:
            // An attack restarted above its peak decays instead of jumping down.
            stage = .decay
            let target = peak * sustain
            level -= decayStep
            if level <= target {
                level = target
                stage = .sustain
            }
        case .sustain:
            level = peak * sustain
        case .release:
            releaseRemaining -= 1
            // From the start level, not by subtraction, so the last frame is exactly 0.
            level = releaseStart * Double(releaseRemaining) / Double(releaseFrames)
            if releaseRemaining <= 0 {
                level = 0
                stage = .idle
            }
        }
        return level
    }
}
