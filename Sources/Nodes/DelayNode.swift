import NodeKit

/// A stereo delay whose time is a number of beats at the host's tempo.
///
/// - Delay time in frames = `beats` × the transport's frames per beat, read every frame, so a
///   tempo change moves the echo. Each channel's line holds 4 beats at 20 BPM (12 s); slower
///   tempos (or a missing tempo) clamp to that.
/// - When the delay time changes (tempo, or the `beats` ramp), the read tap does not jump or glide
///   (a glide would bend the pitch): the old tap and the new one crossfade linearly over 10 ms.
///   A change arriving during a fade waits for it to end, then fades again to the newest time.
/// - `feedback` sends the wet signal back into the line; `mix` crossfades dry (0) to wet (1)
///   linearly, so mix 0 is exactly the input.
/// - `pingPong` feeds the mono sum of the input into the left line only and crosses the feedback
///   (left echo into the right line, right into the left), so echoes alternate sides. Switching it
///   crossfades the two routings over the same 10 ms instead of stepping.
public final class DelayNode: AudioNode {
    /// Indices into `ProcessContext.parameters`, in the order of ``nodeType``'s parameters.
    enum Parameter {
        static let beats = 0
        static let feedback = 1
        static let mix = 2
        static let pingPong = 3
    }

    /// Plain `Float`s, so the audio thread's fallbacks never touch a spec holding `String`s.
    static let defaultBeats: Float = 0.5
    static let defaultFeedback: Float = 0.4
    static let defaultMix: Float = 0.35
    static let defaultPingPong: Float = 0

    /// The longest delay the lines hold: `maximumBeats` at `minimumTempo`.
    static let maximumBeats = 4.0
    static let minimumTempo = 20.0
    /// How long a change of delay time or of routing crossfades.
    static let fadeSeconds = 0.010

    static let parameterSpecs = [
        ParameterSpec(name: "beats", displayName: "Delay (beats)", range: 0.0625...4, defaultValue: defaultBeats),
        ParameterSpec(name: "feedback", displayName: "Feedback", range: 0...0.95, defaultValue: defaultFeedback,
                      unit: .linearGain),
        ParameterSpec(name: "mix", displayName: "Dry/Wet", range: 0...1, defaultValue: defaultMix),
        ParameterSpec(name: "pingPong", displayName: "Ping-Pong", range: 0...1, defaultValue: defaultPingPong,
                      unit: .boolean, isDiscrete: true),
    ]

    /// `builtin:delay`: effect `aurx/dlay/iaas`, inputs `in_L` `in_R`, outputs `out_L` `out_R`.
    public static let nodeType = NodeType(
        id: "builtin:delay",
        displayName: "Tempo Delay",
        summary: "A stereo delay synced to the host tempo, with feedback, dry/wet mix and ping-pong.",
        parameters: parameterSpecs,
        component: ComponentDescription(type: .effect, subtype: "dlay", manufacturer: "iaas", name: "Tempo Delay"),
        layout: { _ in
            NodeLayout(
                inputs: [.input("in_L", "Input Left", group: "in"), .input("in_R", "Input Right", group: "in")],
                outputs: [.output("out_L", "Output Left", group: "out"), .output("out_R", "Output Right", group: "out")])
        },
        make: { _ in DelayNode() }
    )

    private var left = DelayLine()
    private var right = DelayLine()
    private var sampleRate: Double = 48_000
    /// The longest delay in frames the lines allow.
    private var maximumDelay: Double = 1
    private var fadeFrames = 1
    /// The tap being faded to (or held), and the one being faded from.
    private var delay: Double = 0
    private var previousDelay: Double = 0
    private var fadeRemaining = 0
    /// True until the first frame sets `delay` without a fade.
    private var isFresh = true
    /// 0 for straight stereo, 1 for ping-pong; moves by `1 / fadeFrames` per frame.
    private var pingPong: Float = 0
    /// The last valid frames per beat, kept when the transport reports no usable tempo.
    private var framesPerBeat: Double = 24_000

    public init() {}

    deinit {
        left.deallocate()
        right.deallocate()
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        maximumDelay = Self.maximumBeats * 60 / Self.minimumTempo * sampleRate
        let capacity = Int(maximumDelay.rounded(.up)) + 2
        left.allocate(capacity: capacity)
        right.allocate(capacity: capacity)
        fadeFrames = max(Int((Self.fadeSeconds * sampleRate).rounded()), 1)
        framesPerBeat = sampleRate / 2
        reset()
    }

    public func reset() {
        left.clear()
        right.clear()
        fadeRemaining = 0
        isFresh = true
        pingPong = 0
    }

    /// - Realtime: safe. Each output may share its buffer with an input.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 1, let outLeft = context.outputs[0].baseAddress,
              let outRight = context.outputs[1].baseAddress else { return }
        let frames = context.frames
        guard context.inputs.count > 1, let inLeft = context.inputs[0].baseAddress,
              let inRight = context.inputs[1].baseAddress else {
            outLeft.update(repeating: 0, count: frames)
            outRight.update(repeating: 0, count: frames)
            return
        }
        let tempo = context.transport.tempo
        if tempo.isFinite, tempo > 0 { framesPerBeat = 60 * sampleRate / tempo }
        let parameters = context.parameters
        let beats = parameters.count > Parameter.beats ? parameters[Parameter.beats] : .constant(Self.defaultBeats)
        let feedback = parameters.count > Parameter.feedback ? parameters[Parameter.feedback] : .constant(Self.defaultFeedback)
        let mix = parameters.count > Parameter.mix ? parameters[Parameter.mix] : .constant(Self.defaultMix)
        let pingTarget: Float = (parameters.count > Parameter.pingPong
            ? parameters[Parameter.pingPong].end : Self.defaultPingPong) >= 0.5 ? 1 : 0
        let pingStep = 1 / Float(fadeFrames)

        for frame in 0..<frames {
            followDelayTime(Double(beats[frame]) * framesPerBeat)
            let (wetLeft, wetRight) = readTaps()
            if pingPong != pingTarget {
                pingPong = pingPong < pingTarget ? min(pingPong + pingStep, 1) : max(pingPong - pingStep, 0)
            }
            let dryLeft = inLeft[frame]
            let dryRight = inRight[frame]
            feed(dryLeft, dryRight, wetLeft, wetRight, feedback: min(max(feedback[frame], 0), 0.95))
            let wet = min(max(mix[frame], 0), 1)
            outLeft[frame] = dryLeft + (wetLeft - dryLeft) * wet
            outRight[frame] = dryRight + (wetRight - dryRight) * wet
        }
    }

    /// This frame's wet signal on each side, crossfading from the old tap while a fade runs.
    /// - Realtime: safe.
    @inline(__always)
    private func readTaps() -> (Float, Float) {
        var wetLeft = left.read(delay: delay)
        var wetRight = right.read(delay: delay)
        if fadeRemaining > 0 {
            let old = Float(fadeRemaining) / Float(fadeFrames)
            wetLeft += (left.read(delay: previousDelay) - wetLeft) * old
            wetRight += (right.read(delay: previousDelay) - wetRight) * old
            fadeRemaining -= 1
        }
        return (wetLeft, wetRight)
    }

    /// Writes this frame's input and feedback into the lines, blending straight and ping-pong
    /// routing by `pingPong`.
    /// - Realtime: safe.
    @inline(__always)
    private func feed(_ dryLeft: Float, _ dryRight: Float, _ wetLeft: Float, _ wetRight: Float, feedback: Float) {
        let straightLeft = dryLeft + feedback * wetLeft
        let straightRight = dryRight + feedback * wetRight
        let crossedLeft = (dryLeft + dryRight) * 0.5 + feedback * wetRight
        let crossedRight = feedback * wetLeft
        left.write(straightLeft + (crossedLeft - straightLeft) * pingPong)
        right.write(straightRight + (crossedRight - straightRight) * pingPong)
    }

    /// Moves the tap towards `target` frames: at once on the first frame, else by a crossfade
    /// when no fade is running.
    /// - Realtime: safe.
    @inline(__always)
    private func followDelayTime(_ target: Double) {
        let clamped = min(max(target, 1), maximumDelay)
        if isFresh {
            delay = clamped
            isFresh = false
        } else if fadeRemaining == 0, clamped != delay {
            previousDelay = delay
            delay = clamped
            fadeRemaining = fadeFrames
        }
    }
}
