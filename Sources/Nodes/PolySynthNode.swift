import CKernels
import NodeKit

/// A polyphonic instrument: MIDI notes on `midi_in` play sine or polyBLEP-saw voices shaped by a
/// linear ADSR envelope, summed to the mono output `out`.
///
/// - Timing is sample-accurate: the cycle is rendered in slices cut at each event's frame, so a
///   note-on at frame k is silent before k and sounding from k on.
/// - Velocity scales the envelope's peak linearly (velocity / 127).
/// - Allocation: a note already sounding is retriggered on its own voice; otherwise a free voice
///   takes it; when every voice is busy, the oldest releasing voice is stolen, else the oldest
///   voice. A retriggered or stolen voice keeps its phase and restarts its attack from its current
///   level, so stealing does not click.
/// - MIDI is omni (every channel). Control change 123 (all notes off) releases every voice;
///   120 (all sound off) silences them at once.
public final class PolySynthNode: AudioNode {
    /// Indices into `ProcessContext.parameters`, in the order of ``nodeType``'s parameters.
    enum Parameter {
        static let attack = 0
        static let decay = 1
        static let sustain = 2
        static let release = 3
        static let gain = 4
        static let waveform = 5
    }

    /// Plain `Float`s, so the audio thread's fallbacks never touch a spec holding `String`s.
    static let defaultAttack: Float = 0.005
    static let defaultDecay: Float = 0.2
    static let defaultSustain: Float = 0.7
    static let defaultRelease: Float = 0.3
    static let defaultGain: Float = 0.25
    static let defaultWaveform: Float = 0

    static let parameterSpecs = [
        ParameterSpec(name: "attack", displayName: "Attack", range: 0...10, defaultValue: defaultAttack, unit: .seconds),
        ParameterSpec(name: "decay", displayName: "Decay", range: 0...10, defaultValue: defaultDecay, unit: .seconds),
        ParameterSpec(name: "sustain", displayName: "Sustain", range: 0...1, defaultValue: defaultSustain),
        ParameterSpec(name: "release", displayName: "Release", range: 0...10, defaultValue: defaultRelease, unit: .seconds),
        ParameterSpec(name: "gain", displayName: "Gain", range: 0...2, defaultValue: defaultGain, unit: .linearGain),
        ParameterSpec(name: "waveform", displayName: "Waveform (0 sine, 1 saw)", range: 0...1,
                      defaultValue: defaultWaveform, isDiscrete: true),
    ]
    static let voicesSpec = ConfigurationSpec(name: "voices", displayName: "Voices", range: 1...32, defaultValue: 8)

    /// `builtin:poly-synth`: instrument `auri/poly/iaas`, MIDI input `midi_in`, output `out`.
    public static let nodeType = NodeType(
        id: "builtin:poly-synth",
        displayName: "Poly Synth",
        summary: "A polyphonic instrument: MIDI notes play enveloped sine or saw voices.",
        parameters: parameterSpecs,
        configuration: [voicesSpec],
        component: ComponentDescription(type: .instrument, subtype: "poly", manufacturer: "iaas", name: "Poly Synth"),
        outputGain: "gain",
        layout: { _ in
            NodeLayout(inputs: [], outputs: [.output("out", "Output")], midiInputs: [.input("midi_in", "MIDI Input")])
        },
        make: { configuration in PolySynthNode(voices: voiceCount(configuration)) }
    )

    /// The configured number of voices, clamped into `voicesSpec.range` in case the validator was bypassed.
    private static func voiceCount(_ configuration: NodeConfiguration) -> Int {
        configuration.value(of: voicesSpec)
    }

    /// The number of voices that can sound at once.
    public let voiceCount: Int
    /// Fixed storage for the voices, so the audio thread never touches an array's reference count;
    /// laid out as CKernels' voices kernel reads it.
    private let voices: UnsafeMutablePointer<iaa_voice>
    private var sampleRate: Double = 48_000
    /// Counts note-ons; each voice remembers the count at its start to find the oldest.
    private var noteOnCount: UInt64 = 0

    public init(voices: Int = 8) {
        voiceCount = max(voices, 1)
        self.voices = .allocate(capacity: voiceCount)
        self.voices.initialize(repeating: iaa_voice(), count: voiceCount)
    }

    deinit {
        voices.deinitialize(count: voiceCount)
        voices.deallocate()
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        reset()
    }

    public func reset() {
        for index in 0..<voiceCount { voices[index].stop() }
        noteOnCount = 0
    }

    /// How many voices sound now (held or releasing). Control side: for tests and status.
    public var activeVoices: Int {
        var count = 0
        for index in 0..<voiceCount where voices[index].isActive { count += 1 }
        return count
    }

    /// - Realtime: safe.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 0, let output = context.outputs[0].baseAddress else { return }
        let frames = context.frames
        output.update(repeating: 0, count: frames)
        let parameters = context.parameters
        let sustain = parameters.count > Parameter.sustain ? parameters[Parameter.sustain] : .constant(Self.defaultSustain)
        let saw = (parameters.count > Parameter.waveform ? parameters[Parameter.waveform].end : Self.defaultWaveform) >= 0.5

        // Slice the cycle at each event's frame: render up to it, then apply it.
        var position = 0
        for index in 0..<context.midi.count {
            let event = context.midi[index]
            let frame = min(max(Int(event.frame), position), frames)
            renderVoices(into: output, position..<frame, sustain: sustain, saw: saw)
            handle(event, at: frame, parameters)
            position = frame
        }
        renderVoices(into: output, position..<frames, sustain: sustain, saw: saw)

        let gain = parameters.count > Parameter.gain ? parameters[Parameter.gain] : .constant(Self.defaultGain)
        _ = iaa_kernels().pointee.scale_ramp(output, output, frames, gain.start, gain.step, gain.rampFrames, gain.end)
    }

    /// Adds the sounding voices into frames `range` of `output`, with the kernel (AVX2+FMA when
    /// the CPU has it).
    /// - Realtime: safe.
    private func renderVoices(into output: UnsafeMutablePointer<Float>, _ range: Range<Int>,
                              sustain: ParameterRamp, saw: Bool) {
        guard !range.isEmpty else { return }
        iaa_kernels().pointee.voices(voices, voiceCount, output, range.lowerBound, range.upperBound,
                                     iaa_parameter_ramp(sustain), saw ? 1 : 0)
    }

    /// Applies one MIDI message at `frame`, reading the envelope times there.
    /// - Realtime: safe.
    private func handle(_ event: MIDIEvent, at frame: Int, _ parameters: ParameterRamps) {
        if event.isNoteOn {
            noteOn(event.note, velocity: Double(event.velocity) / 127, at: frame, parameters)
        } else if event.isNoteOff {
            let releaseFrames = seconds(parameters, Parameter.release, Self.defaultRelease, at: frame)
            for index in 0..<voiceCount where voices[index].isHeld && voices[index].note == event.note {
                voices[index].release(frames: releaseFrames)
            }
        } else if event.status & 0xF0 == 0xB0, event.data1 == 120 || event.data1 == 123 {
            let releaseFrames = seconds(parameters, Parameter.release, Self.defaultRelease, at: frame)
            for index in 0..<voiceCount {
                if event.data1 == 120 { voices[index].stop() } else { voices[index].release(frames: releaseFrames) }
            }
        }
    }

    /// - Realtime: safe.
    private func noteOn(_ note: UInt8, velocity: Double, at frame: Int, _ parameters: ParameterRamps) {
        let index = voiceIndex(for: note)
        noteOnCount &+= 1
        let sustain = parameters.count > Parameter.sustain ? parameters[Parameter.sustain][frame] : Self.defaultSustain
        voices[index].start(
            note: note, age: noteOnCount, velocity: velocity, sampleRate: sampleRate,
            attackFrames: seconds(parameters, Parameter.attack, Self.defaultAttack, at: frame),
            decayFrames: seconds(parameters, Parameter.decay, Self.defaultDecay, at: frame),
            sustain: Double(min(max(sustain, 0), 1)))
    }

    /// The voice that plays `note`: the one already sounding it, a free one, the oldest releasing
    /// one, or the oldest.
    /// - Realtime: safe.
    private func voiceIndex(for note: UInt8) -> Int {
        var free: Int? = nil
        var oldestReleasing: Int? = nil
        var oldest = 0
        for index in 0..<voiceCount {
            let voice = voices[index]
            if !voice.isActive {
                if free == nil { free = index }
                continue
            }
            if voice.note == note { return index }
            if !voice.isHeld {
                if let current = oldestReleasing, voices[current].age <= voice.age {} else { oldestReleasing = index }
            }
            if !voices[oldest].isActive || voice.age < voices[oldest].age { oldest = index }
        }
        return free ?? oldestReleasing ?? oldest
    }

    /// Parameter `index` (seconds) at `frame`, in frames.
    /// - Realtime: safe.
    @inline(__always)
    private func seconds(_ parameters: ParameterRamps, _ index: Int, _ fallback: Float, at frame: Int) -> Double {
        let value = parameters.count > index ? parameters[index][frame] : fallback
        return Double(max(value, 0)) * sampleRate
    }
}
