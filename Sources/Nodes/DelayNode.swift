import CKernels
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

    /// The lines, the tap and the routing, as CKernels' `delay` reads them; behind a pointer, so
    /// handing it to the kernel costs no exclusivity check. Both lines are one allocation from
    /// `left` on, made in `prepare`.
    private let state: UnsafeMutablePointer<iaa_delay>
    private var sampleRate: Double = 48_000
    /// The longest delay in frames the lines allow.
    private var maximumDelay: Double = 1
    /// True until the first frame sets the tap without a fade.
    private var isFresh = true
    /// The last valid frames per beat, kept when the transport reports no usable tempo.
    private var framesPerBeat: Double = 24_000

    public init() {
        state = .allocate(capacity: 1)
        state.initialize(to: iaa_delay())
    }

    deinit {
        state.pointee.left?.deallocate()
        state.deallocate()
    }

    public func prepare(sampleRate: Double, maximumFrames: Int) {
        self.sampleRate = sampleRate
        maximumDelay = Self.maximumBeats * 60 / Self.minimumTempo * sampleRate
        let capacity = Int(maximumDelay.rounded(.up)) + 2
        state.pointee.left?.deallocate()
        let lines = UnsafeMutablePointer<Float>.allocate(capacity: 2 * capacity)
        lines.initialize(repeating: 0, count: 2 * capacity)
        state.pointee.left = lines
        state.pointee.right = lines + capacity
        state.pointee.capacity = capacity
        state.pointee.fade_frames = max(Int((Self.fadeSeconds * sampleRate).rounded()), 1)
        state.pointee.ping_step = 1 / Float(state.pointee.fade_frames)
        framesPerBeat = sampleRate / 2
        reset()
    }

    public func reset() {
        state.pointee.left?.update(repeating: 0, count: 2 * state.pointee.capacity)
        state.pointee.write_index = 0
        state.pointee.fade_remaining = 0
        state.pointee.ping_pong = 0
        isFresh = true
    }

    /// Moves the tap only where it may move (see `followDelayTime`) and lets the kernel (AVX2+FMA
    /// when the CPU has it) run the frames between.
    /// - Realtime: safe. Each output may share its buffer with an input.
    public func process(_ context: ProcessContext) {
        guard context.outputs.count > 1, let outLeft = context.outputs[0].baseAddress,
              let outRight = context.outputs[1].baseAddress else { return }
        let frames = context.frames
        guard context.inputs.count > 1, let inLeft = context.inputs[0].baseAddress,
              let inRight = context.inputs[1].baseAddress, state.pointee.left != nil else {
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
        state.pointee.ping_target = (parameters.count > Parameter.pingPong
            ? parameters[Parameter.pingPong].end : Self.defaultPingPong) >= 0.5 ? 1 : 0

        let delay = iaa_kernels().pointee.delay
        var frame = 0
        while frame < frames {
            followDelayTime(Double(beats[frame]) * framesPerBeat)
            // The tap can move again when the fade now running ends or, while `beats` ramps, on
            // the next frame; until then the kernel runs.
            let fading = state.pointee.fade_remaining
            let end = fading > 0 ? min(frame + fading, frames) : frame < beats.rampFrames ? frame + 1 : frames
            delay(state, inLeft, inRight, outLeft, outRight, frame, end, iaa_parameter_ramp(feedback), iaa_parameter_ramp(mix))
            frame = end
        }
    }

    /// Moves the tap towards `target` frames: at once on the first frame, else by a crossfade
    /// when no fade is running.
    /// - Realtime: safe.
    @inline(__always)
    private func followDelayTime(_ target: Double) {
        let clamped = min(max(target, 1), maximumDelay)
        if isFresh {
            state.pointee.delay = clamped
            isFresh = false
        } else if state.pointee.fade_remaining == 0, clamped != state.pointee.delay {
            state.pointee.previous_delay = state.pointee.delay
            state.pointee.delay = clamped
            state.pointee.fade_remaining = state.pointee.fade_frames
        }
    }
}
