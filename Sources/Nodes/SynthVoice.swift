import CKernels

/// One voice of ``PolySynthNode``: CKernels' `iaa_voice` (an oscillator, its envelope, and which
/// note it plays), which the voices kernel renders; here what a MIDI event does to it.
extension iaa_voice {
    var isActive: Bool { envelope.isActive }
    var isHeld: Bool { envelope.isHeld }

    /// Starts `note`. A voice that is silent starts at a quarter period, so a sine's first frame
    /// is its crest times the envelope's first step: audible from the very frame of the event. A
    /// voice already sounding (retriggered or stolen) keeps its phase, so the waveform does not jump.
    /// - Realtime: safe.
    mutating func start(note: UInt8, age: UInt64, velocity: Double, sampleRate: Double,
                        attackFrames: Double, decayFrames: Double, sustain: Double) {
        if !envelope.isActive || envelope.level == 0 {
            phase = 0.25
        }
        self.note = note
        self.age = age
        increment = noteFrequency(Int(note)) / sampleRate
        envelope.start(peak: velocity, attackFrames: attackFrames, decayFrames: decayFrames, sustain: sustain)
    }

    /// - Realtime: safe.
    mutating func release(frames: Double) {
        envelope.release(frames: frames)
    }

    /// - Realtime: safe.
    mutating func stop() {
        envelope.stop()
    }
}
