import NodeKit

/// One voice of ``PolySynthNode``: an oscillator, its envelope, and which note it plays.
struct SynthVoice {
    /// The MIDI note playing (meaningful while the envelope is active).
    private(set) var note: UInt8 = 0
    /// The note-on counter when the voice started: the smallest is the oldest, stolen first.
    private(set) var age: UInt64 = 0
    private(set) var envelope = Envelope()
    /// In cycles, [0, 1).
    private var phase: Double = 0
    /// Cycles per frame.
    private var increment: Double = 0

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

    /// Adds frames `range` of this voice into `output`; `sustain` is the sustain ramp.
    /// - Realtime: safe.
    mutating func render(into output: UnsafeMutablePointer<Float>, _ range: Range<Int>,
                         sustain: ParameterRamp, saw: Bool) {
        var phase = self.phase
        let increment = self.increment
        for frame in range {
            guard envelope.isActive else { break }
            let level = envelope.next(sustain: Double(min(max(sustain[frame], 0), 1)))
            let wave = saw ? polyBLEPSaw(phase: phase, increment: increment) : sine(cycles: phase)
            output[frame] += Float(wave * level)
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
        self.phase = phase
    }
}
