import CKernels
import NodeKit

/// A step sequencer that plays a minor-pentatonic arpeggio locked to the host transport.
///
/// While the transport plays, the step under frame i is floor(beat(i) × `rate`), so steps start
/// exactly on the beat grid and a jump or restart of the transport lands on the matching step; the
/// step's pitch is `note` plus ``pattern``[step mod `steps`]. Each step sounds a polyBLEP saw for
/// the `gate` fraction of the step, with a 1 ms attack and a 3 ms release so steps never click.
/// While the transport is stopped it releases and then outputs exact silence.
public final class StepSequencerNode: AudioNode {
    /// Indices into `ProcessContext.parameters`, in the order of ``nodeType``'s parameters.
    enum Parameter {
        static let note = 0
        static let gate = 1
        static let rate = 2
        static let level = 3
    }

    /// Plain `Float`s, so the audio thread's fallbacks never touch a spec holding `String`s.
    static let defaultNote: Float = 57
    static let defaultGate: Float = 0.5
    static let defaultRate: Float = 2
    static let defaultLevel: Float = 0.3

    /// Semitones above `note`, one per step: up and down a minor pentatonic scale.
    public static let pattern = [0, 3, 5, 7, 10, 12, 10, 7, 0, 3, 7, 10, 12, 15, 12, 7]
    static let attackSeconds = 0.001
    static let releaseSeconds = 0.003

    static let parameterSpecs = [
        ParameterSpec(name: "note", displayName: "Base Note", range: 24...96, defaultValue: defaultNote),
        ParameterSpec(name: "gate", displayName: "Gate", range: 0...1, defaultValue: defaultGate),
        ParameterSpec(name: "rate", displayName: "Steps per Beat (1, 2, 4)", range: 1...4,
                      defaultValue: defaultRate, isDiscrete: true),
        ParameterSpec(name: "level", displayName: "Level", range: 0...1, defaultValue: defaultLevel, unit: .linearGain),
    ]
    static let stepsSpec = ConfigurationSpec(name: "steps", displayName: "Steps", range: 1...16, defaultValue: 8)

    /// `builtin:step-sequencer`: generator `aurg/sseq/iaas`, output `out`.
    public static let nodeType = NodeType(
        id: "builtin:step-sequencer",
        displayName: "Step Sequencer",
        summary: "A pentatonic step sequencer that follows the host transport.",
        parameters: parameterSpecs,
        configuration: [stepsSpec],
        component: ComponentDescription(type: .generator, subtype: "sseq", manufacturer: "iaas", name: "Step Sequencer"),
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out", "Output")]) },
        make: { StepSequencerNode(steps: $0.value(of: stepsSpec)) }
    )

    /// Steps per beat for a `rate` value: the nearest of 1, 2 and 4.
    /// - Realtime: safe.
    static func stepsPerBeat(_ rate: Float) -> Double {
        rate < 1.5 ? 1 : rate < 3 ? 2 : 4
    }

    /// The number of steps before the pattern repeats.
    public let steps: Int
    /// ``pattern``'s first `steps` intervals in fixed storage, so the audio thread reads no array.
    private let intervals: UnsafeMutablePointer<Int>
    private var sampleRate: Double = 48_000
    private var envelope = Envelope()
    private var phase: Double = 0
    private var increment: Double = 0
    /// The absolute step (floor of beat × rate) now sounding, or nil before the first.
    private var currentStep: Int64? = nil

    public init(steps: Int = 8) {
        self.steps = min(max(steps, 1), Self.pattern.count)
        intervals = .allocate(capacity: self.steps)
        for index in 0..<self.steps { intervals[index] = Self.pattern[index] }
    }

    deinit {
        intervals.deallocate()
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        reset()
    }

    public func reset() {
        envelope.stop()
        currentStep = nil
    }

    /// - Realtime: safe.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let frames = context.frames
        let parameters = context.parameters
        let transport = context.transport
        let note = parameters.count > Parameter.note ? parameters[Parameter.note] : .constant(Self.defaultNote)
        let gate = parameters.count > Parameter.gate ? parameters[Parameter.gate] : .constant(Self.defaultGate)
        let level = parameters.count > Parameter.level ? parameters[Parameter.level] : .constant(Self.defaultLevel)
        let rate = Self.stepsPerBeat(parameters.count > Parameter.rate ? parameters[Parameter.rate].end : Self.defaultRate)
        // A transport position too large for an Int64 step count, or no tempo, counts as stopped.
        let playing = transport.isPlaying && transport.tempo.isFinite && transport.tempo > 0
            && transport.beat.isFinite && abs(transport.beat) < 1e12
        let beatsPerFrame = transport.tempo / (60 * sampleRate)
        if !playing {
            currentStep = nil
            envelope.release(frames: Self.releaseSeconds * sampleRate)
        }

        for frame in 0..<frames {
            if playing {
                // A hair above, so a boundary computed as 0.99999… still starts on its own frame.
                let position = (transport.beat + Double(frame) * beatsPerFrame) * rate + 1e-9
                let step = position.rounded(.down)
                let number = Int64(step)
                if number != currentStep {
                    startStep(number, note: note[frame])
                } else if envelope.isHeld, position - step >= Double(min(max(gate[frame], 0), 1)) {
                    envelope.release(frames: Self.releaseSeconds * sampleRate)
                }
            }
            guard envelope.isActive else {
                output[frame] = 0
                continue
            }
            let amplitude = envelope.next(sustain: 1) * Double(level[frame])
            output[frame] = Float(iaa_polyblep_saw(phase, increment) * amplitude)
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
    }

    /// Starts step `number` (absolute) with its pitch above `note`.
    /// - Realtime: safe.
    private func startStep(_ number: Int64, note: Float) {
        currentStep = number
        let index = Int(((number % Int64(steps)) + Int64(steps)) % Int64(steps))
        let pitch = min(max(Int(note.rounded()) + intervals[index], 0), 127)
        // A silent voice starts mid-ramp of the saw, so its first frame is already audible;
        // a sounding one keeps its phase and only changes pitch.
        if !envelope.isActive || envelope.level == 0 { phase = 0.25 }
        increment = noteFrequency(pitch) / sampleRate
        envelope.start(peak: 1, attackFrames: Self.attackSeconds * sampleRate, decayFrames: 0, sustain: 1)
    }
}
