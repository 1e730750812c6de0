import CKernels
import NodeKit
import Synchronization

/// Holds one running node and its parameters for the plans that render it.
///
/// The plan calls `run` through `Unmanaged`, and `TypedSlot` calls its node through a generic, so
/// the cycle path has no existential, closure or retain (an existential, a class reference or a
/// closure per step each retained once per call when measured; this pattern made none). A slot
/// lives as long as any plan that uses it; it is reused across plans so node state survives.
public class NodeSlot {
    // What a settled cycle reads comes first, so that it lies in the object's first two cache
    // lines (the header's, and the next): the renderer prefetches those two (`Renderer.prefetch`).
    /// Bumped after every control-side change the audio thread must act on (a parameter's target,
    /// the policy gain's target, suspension) is stored, so the audio thread learns with one load
    /// whether anything may have moved, instead of loading and comparing each value.
    let controlChanges = Atomic<UInt32>(0)
    /// Audio thread only: the `controlChanges` it last acted on, and whether any ramp handed to
    /// the node last cycle still moved (then the smoothers must run again to settle it).
    var seenControlChanges: UInt32 = 0
    var parametersMoving = false
    /// Audio thread only: the last cycle ran the node with nothing in motion (policy gain steady
    /// at 1, no parameter ramp, no fault). While it holds and `controlChanges` has not moved, the
    /// next cycle is the same again and `run` takes its short path.
    var settled = false
    /// A `SteadyCycleNode`'s steady cycle, which a settled cycle calls instead of `run`; nil
    /// for every other node.
    package let steadyCycle: SteadyCycle?
    public let parameterCount: Int
    /// The ramps handed to the node, one per parameter (room for one at least, like `targets`).
    package let ramps: UnsafeMutablePointer<ParameterRamp>
    let sampleRate: Double
    /// Where the node's remote transport requests land (play, stop, toggle record).
    let transportRequest: UnsafeMutablePointer<Atomic<UInt8>>
    /// Where the node reports its own finiteness check of the cycle's outputs (NodeKit's
    /// `OutputCheck`); audio thread only. Behind a pointer the node can write without an
    /// exclusivity check on the slot.
    let outputCheck: UnsafeMutablePointer<UInt64>
    /// The node object's address: the renderer prefetches it (`RenderStep.node`) and the short
    /// path calls the node through it (`TypedSlot.node` lies lines further on).
    package let nodeAddress: UnsafeRawPointer
    /// The app this slot renders.
    public let appID: String
    /// The node type's id and configuration: a slot is reused only when both match.
    public let typeID: String
    public let configuration: NodeConfiguration
    /// Where the node reports its latency in frames (NodeKit's `LatencyReport`), written on the
    /// audio thread (or by an isolated node's child), read on the control side.
    let latencyCell: UnsafeMutablePointer<Atomic<UInt32>>
    // Allocated with room for at least one element so the pointers exist even with no parameters.
    let targets: UnsafeMutablePointer<Atomic<UInt32>>
    let smoothers: UnsafeMutablePointer<ParameterSmoother>
    /// The session policy's gain for this app (1, the duck level, or 0), ramped like a parameter.
    let policyGainTarget: Atomic<UInt32>
    var policyGain: ParameterSmoother
    /// A suspended app's `process` is not called once its gain has faded to 0.
    let suspended = Atomic<Bool>(false)
    /// False when the app may not hear outside (JACK) input: a session that cannot record, or
    /// lacks the `microphone` grant, records silence.
    let hearsOutsideInput = Atomic<Bool>(true)
    /// A `NodeFault`, set by the audio thread when the node wrote NaN or infinity or kept
    /// overrunning its deadline: its process is not called until the control side re-enables it.
    let faultCode = Atomic<UInt8>(NodeFault.none.rawValue)
    /// True when a deadline fault can pass the inputs through (as many audio inputs as outputs);
    /// otherwise the node is muted.
    public let canBypass: Bool
    /// The node type's `outputGain` parameter, or -1: the policy gain is folded into it, so the
    /// node applies both in its own pass over the output.
    let outputGainIndex: Int
    /// The audio thread's deadline streak: consecutive over-budget cycles, and the last one's number.
    var overrunStreak = 0
    var lastOverrunCycle: Int64 = .min

    init(appID: String, type: NodeType, configuration: NodeConfiguration, initialValues: [Float],
         sampleRate: Double, rampSeconds: Double, gainRampSeconds: Double, nodeAddress: UnsafeRawPointer,
         steadyCycle: SteadyCycle? = nil) {
        self.appID = appID
        self.nodeAddress = nodeAddress
        self.steadyCycle = steadyCycle
        self.typeID = type.id
        self.configuration = configuration
        self.sampleRate = sampleRate
        parameterCount = type.parameters.count
        let layout = type.layout(configuration)
        canBypass = !layout.inputs.isEmpty && layout.inputs.count == layout.outputs.count
        outputGainIndex = type.outputGain.flatMap { type.parameterIndex($0) } ?? -1
        let rampFrames = max(0, Int((rampSeconds * sampleRate).rounded()))
        policyGainTarget = Atomic(Float(1).bitPattern)
        transportRequest = .allocate(capacity: 1)
        transportRequest.initialize(to: Atomic(0))
        outputCheck = .allocate(capacity: 1)
        outputCheck.initialize(to: OutputCheck.unreported)
        latencyCell = .allocate(capacity: 1)
        latencyCell.initialize(to: Atomic(0))
        policyGain = ParameterSmoother(value: 1, rampFrames: max(0, Int((gainRampSeconds * sampleRate).rounded())))
        targets = .allocate(capacity: max(parameterCount, 1))
        smoothers = .allocate(capacity: max(parameterCount, 1))
        ramps = .allocate(capacity: max(parameterCount, 1))
        for (index, spec) in type.parameters.enumerated() {
            let value = index < initialValues.count ? initialValues[index] : spec.defaultValue
            (targets + index).initialize(to: Atomic(value.bitPattern))
            (smoothers + index).initialize(
                to: ParameterSmoother(value: value, rampFrames: spec.isDiscrete ? 0 : rampFrames))
            (ramps + index).initialize(to: .constant(value))
        }
    }

    deinit {
        transportRequest.deinitialize(count: 1)
        transportRequest.deallocate()
        outputCheck.deallocate()
        latencyCell.deinitialize(count: 1)
        latencyCell.deallocate()
        targets.deinitialize(count: parameterCount)
        targets.deallocate()
        smoothers.deallocate()
        ramps.deallocate()
    }

    /// Sets the value a parameter moves to; the audio thread ramps there. Control side.
    public func setParameter(_ index: Int, to value: Float) {
        precondition(index >= 0 && index < parameterCount, "parameter index out of range")
        targets[index].store(value.bitPattern, ordering: .releasing)
        controlChanges.wrappingAdd(1, ordering: .releasing)
    }

    /// The value a parameter is moving to (what the last `setParameter` asked for).
    public func parameterTarget(_ index: Int) -> Float {
        Float(bitPattern: targets[index].load(ordering: .acquiring))
    }

    /// Sets the gain the session policy wants for this app; the audio thread ramps there.
    public func setPolicyGain(_ gain: Float) {
        policyGainTarget.store(gain.bitPattern, ordering: .releasing)
        controlChanges.wrappingAdd(1, ordering: .releasing)
    }

    /// The policy gain this app is moving to.
    public var policyGainTargetValue: Float { Float(bitPattern: policyGainTarget.load(ordering: .acquiring)) }

    /// Starts the policy gain at `gain` with no ramp. Only before the slot is first rendered.
    public func startPolicyGain(at gain: Float) {
        setPolicyGain(gain)
        policyGain = ParameterSmoother(value: gain, rampFrames: policyGain.rampFrames)
    }

    /// Why the node is not running, or `.none`.
    public var fault: NodeFault { NodeFault(rawValue: faultCode.load(ordering: .acquiring)) ?? .none }

    /// True when the node was muted or bypassed for a fault.
    public var isFaulted: Bool { fault != .none }

    /// Lets a faulted node run again (`iaa enable APP`); its state is reset first. The audio
    /// thread zeroed the deadline streak when it tripped, and does not touch the node meanwhile.
    public func clearFault() {
        anyNode.reset()
        faultCode.store(NodeFault.none.rawValue, ordering: .releasing)
    }

    /// Counts a step over the deadline budget; `strikes` consecutive cycles over it fault the node.
    /// Returns true when this call tripped the fault.
    /// - Realtime: safe.
    @inline(__always) final func noteStepTime(_ elapsed: UInt64, _ check: DeadlineCheck) -> Bool {
        guard elapsed > check.budget else {
            overrunStreak = 0
            return false
        }
        overrunStreak = lastOverrunCycle == check.cycle &- 1 ? overrunStreak + 1 : 1
        lastOverrunCycle = check.cycle
        guard overrunStreak >= check.strikes, fault == .none else { return false }
        overrunStreak = 0
        settled = false
        faultCode.store(NodeFault.deadline.rawValue, ordering: .releasing)
        return true
    }

    /// Mutes the node if any output frame is NaN or infinite: `x - x` is +0 for every finite
    /// sample (denormals flushed or not) and NaN otherwise, so OR-ing its bits finds one. An
    /// integer OR vectorizes; a float sum would not (float addition is not associative, so the
    /// compiler keeps it a serial chain), and it was a quarter of a voice's render time. A node
    /// that reported the same check for what it wrote (`OutputCheck`, all the built-in kernels)
    /// is not read again; otherwise the kernel (`nonfinite`) reads every output, eight frames per
    /// AVX2 register when the CPU has them.
    /// - Realtime: safe.
    @inline(__always) final func guardOutputs(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                                              frames: Int) {
        // The node's own check when it reported one (the unreported flag sits above its 32 bits).
        let reported = outputCheck.pointee
        let check = reported & OutputCheck.unreported == 0
            ? UInt32(truncatingIfNeeded: reported) : Self.nonfiniteBits(outputs, outputCount: outputCount, frames: frames)
        if check != 0 { muteNonFinite(outputs, outputCount: outputCount, frames: frames) }
    }

    /// Faults the node for writing NaN or infinity and silences what it wrote.
    /// - Realtime: safe.
    @inline(never) final func muteNonFinite(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                                            frames: Int) {
        settled = false
        faultCode.store(NodeFault.nonFinite.rawValue, ordering: .releasing)
        for index in 0..<outputCount { outputs[index].update(repeating: 0, count: frames) }
    }

    /// The finiteness check of every output, read after the node wrote them (also what an
    /// isolated node runs over what its child wrote).
    /// - Realtime: safe.
    @inline(__always) public static func nonfiniteBits(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                                                frames: Int) -> UInt32 {
        var check: UInt32 = 0
        if frames < 8 {
            // Below one vector the call into the kernel cost more than the check (1-frame cycles).
            for index in 0..<outputCount {
                for frame in 0..<frames { check |= (outputs[index][frame] - outputs[index][frame]).bitPattern }
            }
        } else {
            let nonfinite = iaa_kernels().pointee.nonfinite
            for index in 0..<outputCount { check |= nonfinite(outputs[index], frames) }
        }
        return check
    }

    /// The latency the node last reported, in frames (0 until it reports). Control side.
    public var reportedLatency: Int { Int(latencyCell.pointee.load(ordering: .relaxed)) }

    /// Reports the latency of a node that cannot report it itself (a program app: its program's
    /// JACK port says it). Control side.
    public func noteLatency(_ frames: Int) {
        latencyCell.pointee.store(UInt32(clamping: max(frames, 0)), ordering: .relaxed)
    }

    /// Takes the node's pending transport request, if any (control side).
    public func takeTransportRequest() -> TransportRequest {
        // Read first: the control tick asks every app ten times a second, and a plain load does
        // not take the line from the audio thread as an exchange would.
        guard transportRequest.pointee.load(ordering: .relaxed) != 0 else { return .none }
        return TransportRequest(rawValue: transportRequest.pointee.exchange(0, ordering: .acquiringAndReleasing)) ?? .none
    }

    /// Suspends or resumes the app's processing (after its gain has faded out).
    public func setSuspended(_ value: Bool) {
        suspended.store(value, ordering: .releasing)
        controlChanges.wrappingAdd(1, ordering: .releasing)
    }

    /// Lets the app hear outside input, or gives it silence instead.
    public func setHearsOutsideInput(_ value: Bool) {
        hearsOutsideInput.store(value, ordering: .releasing)
    }

    /// The node inside, for control-side calls such as `reset`.
    public var anyNode: any AudioNode { fatalError("NodeSlot is abstract") }

    /// Advances every parameter's ramp by one cycle.
    /// Nothing runs while no target changed and no ramp moved last cycle: `ramps` then already
    /// holds every parameter's constant value (most nodes, most cycles).
    /// - Realtime: safe.
    @inline(__always) final func advanceParameters(_ frames: Int) {
        let changes = controlChanges.load(ordering: .acquiring)
        guard parametersMoving || changes != seenControlChanges else { return }
        seenControlChanges = changes
        var moving = false
        for index in 0..<parameterCount {
            let target = Float(bitPattern: targets[index].load(ordering: .acquiring))
            let ramp = smoothers[index].advance(toward: target, frames: frames)
            ramps[index] = ramp
            moving = moving || !ramp.isSteady
        }
        parametersMoving = moving
    }

    /// Applies this cycle's policy gain to the outputs, and says whether processing may be skipped
    /// (suspended and fully faded). Returns the ramp for `applyPolicyGain`.
    /// - Realtime: safe.
    @inline(__always) final func advancePolicyGain(_ frames: Int) -> ParameterRamp {
        let target = Float(bitPattern: policyGainTarget.load(ordering: .acquiring))
        // Settled at the target (nearly every cycle): the smoother's state need not be written back.
        if policyGain.remaining == 0 && policyGain.target == target { return .constant(policyGain.current) }
        return policyGain.advance(toward: target, frames: frames)
    }

    /// Scales every output by the ramp; nothing to do at a steady unity gain.
    /// - Realtime: safe.
    @inline(__always) final func applyPolicyGain(_ ramp: ParameterRamp, outputs: UnsafePointer<UnsafeMutablePointer<Float>>,
                                                 outputCount: Int, frames: Int) {
        if ramp.isSteady && ramp.end == 1 { return }
        let scale = iaa_kernels().pointee.scale_ramp
        for index in 0..<outputCount {
            let out = outputs[index]
            if ramp.isSteady && ramp.end == 0 {
                out.update(repeating: 0, count: frames)
            } else {
                _ = scale(out, out, frames, ramp.start, ramp.step, ramp.rampFrames, ramp.end)
            }
        }
    }

    /// True when the last cycle left nothing in motion and no control-side change has arrived
    /// since: this cycle is the same again, and the node can run without the slot's checks.
    /// - Realtime: safe.
    @inline(__always) final var isSettled: Bool {
        settled && controlChanges.load(ordering: .acquiring) == seenControlChanges
    }

    /// Renders a settled `SteadyCycleNode`'s cycle by its steady cycle, called from here with
    /// nothing around it (the node ran at these parameters last cycle and left its state ready).
    /// Returns false, doing nothing, for any other cycle: the caller then calls `run`.
    /// - Realtime: safe.
    @inline(__always) final func renderSteady(inputs: UnsafePointer<UnsafePointer<Float>>,
                                              outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                                              frames: Int) -> Bool {
        guard let steadyCycle, isSettled else { return false }
        let check = steadyCycle(inputs: inputs, outputs: outputs, frames: frames)
        if check != 0 { muteNonFinite(outputs, outputCount: outputCount, frames: frames) }
        return true
    }

    /// Renders one cycle of the node.
    /// - Realtime: safe.
    func run(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
             outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {}

    /// True for a `PhasedNode`'s slot: the plan may put it in a wave (`begin`, then `finish`).
    package var isPhased: Bool { false }

    /// The first half of `run` for a node in a wave: every decision `run` makes, then the node's
    /// `begin`. Only `PhasedSlot` has one.
    /// - Realtime: safe.
    func begin(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
               outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {}

    /// The second half: the node's `finish`, its output check and the policy gain.
    /// - Realtime: safe.
    func finish(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {}
}

/// What `TypedSlot` decided before calling its node, for what it does after (`complete`).
struct PendingCycle: BitwiseCopyable {
    /// False when the node is not called this cycle (bypassed, muted, suspended): outputs are done.
    var callsNode: Bool
    var gain: ParameterRamp
    /// The node's own output gain ramp, and whether the policy gain was folded into it.
    var own: ParameterRamp
    var folded: Bool

    static let done = PendingCycle(callsNode: false, gain: .constant(1), own: .constant(1), folded: false)
    /// A settled cycle (`NodeSlot.isSettled`): the node runs, and a unity gain leaves nothing after.
    static let settled = PendingCycle(callsNode: true, gain: .constant(1), own: .constant(1), folded: false)
}

/// The one concrete slot per node type, so the call to `process` is direct and generic.
package class TypedSlot<Node: AudioNode>: NodeSlot {
    let node: Node

    package init(node: Node, appID: String, type: NodeType, configuration: NodeConfiguration,
         initialValues: [Float], sampleRate: Double, rampSeconds: Double, gainRampSeconds: Double) {
        self.node = node
        super.init(appID: appID, type: type, configuration: configuration, initialValues: initialValues,
                   sampleRate: sampleRate, rampSeconds: rampSeconds, gainRampSeconds: gainRampSeconds,
                   nodeAddress: UnsafeRawPointer(Unmanaged.passUnretained(node).toOpaque()),
                   steadyCycle: (node as? any SteadyCycleNode)?.steadyCycle)
    }

    override package final var anyNode: any AudioNode { node }

    /// - Realtime: safe.
    override package final func run(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                            outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {
        // Nearly every cycle nothing has changed since the last one: the node runs at the
        // parameters it had under unity gain, and none of the checks below could differ. One load
        // says so; skipping them was a fifth of a small node's step.
        if isSettled {
            process(context, inputs: inputs, inputCount: inputCount, outputs: outputs, outputCount: outputCount,
                    midi: midi)
            return
        }
        runChanging(context, inputs: inputs, inputCount: inputCount, outputs: outputs, outputCount: outputCount,
                    midi: midi)
    }

    /// A cycle in which something moves or may have moved: the policy gain, a parameter, a
    /// fault, a suspension. Decides whether the next cycle is settled.
    /// - Realtime: safe.
    @inline(never)
    private func runChanging(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                             outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {
        let pending = prepare(context, inputs: inputs, outputs: outputs, outputCount: outputCount)
        guard pending.callsNode else { return }
        process(context, inputs: inputs, inputCount: inputCount, outputs: outputs, outputCount: outputCount, midi: midi)
        complete(pending, outputs: outputs, outputCount: outputCount, frames: context.frames)
    }

    /// Everything a changing cycle decides before the node runs: the policy gain's ramp, a
    /// fault's bypass or silence, a suspension, the parameters' ramps.
    /// - Realtime: safe.
    @inline(__always)
    final func prepare(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>,
                       outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int) -> PendingCycle {
        settled = false
        let gain = advancePolicyGain(context.frames)
        let fault = faultCode.load(ordering: .relaxed)
        if fault == NodeFault.deadline.rawValue && canBypass {
            // Bypassed for overrunning: the inputs pass through, still under the policy gain.
            for index in 0..<outputCount where UnsafePointer(outputs[index]) != inputs[index] {
                outputs[index].update(from: inputs[index], count: context.frames)
            }
            applyPolicyGain(gain, outputs: outputs, outputCount: outputCount, frames: context.frames)
            return .done
        }
        if (gain.isSteady && gain.end == 0 && suspended.load(ordering: .relaxed)) || fault != NodeFault.none.rawValue {
            // Suspended and faded out, or muted for a fault: the node is not called, its outputs are silent.
            for index in 0..<outputCount { outputs[index].update(repeating: 0, count: context.frames) }
            return .done
        }
        advanceParameters(context.frames)
        // At a settled unity policy gain (nearly always) there is nothing to fold or apply.
        let unity = gain.isSteady && gain.end == 1
        let foldable = outputGainIndex >= 0 && !unity
        let own = foldable ? ramps[outputGainIndex] : .constant(1)
        let folded = foldable && foldPolicyGain(gain, into: own)
        // Settled from the next cycle unless something still moves (a fault this cycle clears it).
        settled = unity && !parametersMoving
        return PendingCycle(callsNode: true, gain: gain, own: own, folded: folded)
    }

    /// What a changing cycle does after the node ran: the node's own ramp back, or the policy gain.
    /// - Realtime: safe.
    @inline(__always)
    final func complete(_ pending: PendingCycle, outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                        frames: Int) {
        if pending.folded {
            ramps[outputGainIndex] = pending.own
        } else {
            applyPolicyGain(pending.gain, outputs: outputs, outputCount: outputCount, frames: frames)
        }
    }

    /// Calls the node with this cycle's buffers and ramps, then checks what it wrote.
    /// - Realtime: safe.
    @inline(__always)
    private func process(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                         outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {
        outputCheck.pointee = OutputCheck.unreported
        Unmanaged<Node>.fromOpaque(nodeAddress)._withUnsafeGuaranteedRef { node in
            node.process(processContext(context, inputs: inputs, inputCount: inputCount, outputs: outputs,
                                        outputCount: outputCount, midi: midi))
        }
        guardOutputs(outputs, outputCount: outputCount, frames: context.frames)
    }

    /// What the node's `process` (or a phased node's `begin` and `finish`) receives.
    /// - Realtime: safe.
    @inline(__always)
    final func processContext(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                              outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int,
                              midi: MIDIEvents) -> ProcessContext {
        ProcessContext(
            frames: context.frames, sampleRate: sampleRate, sampleTime: context.sampleTime,
            inputs: AudioInputs(base: inputs, count: inputCount, frames: context.frames),
            outputs: AudioOutputs(base: outputs, count: outputCount, frames: context.frames),
            parameters: ParameterRamps(base: ramps, count: parameterCount), midi: midi,
            transport: context.transport, transportRequests: TransportRequestCell(cell: UnsafePointer(transportRequest)),
            outputCheck: OutputCheck(cell: outputCheck), latency: LatencyReport(cell: UnsafePointer(latencyCell)))
    }

    /// Hands the node its output gain times the policy gain, when the product is still a ramp
    /// (at most one of the two moves): the node's own pass then applies the session's gain too.
    /// Returns false, changing nothing, when both move.
    /// - Realtime: safe.
    @inline(__always)
    private func foldPolicyGain(_ gain: ParameterRamp, into own: ParameterRamp) -> Bool {
        if gain.isSteady {
            ramps[outputGainIndex] = own.scaled(by: gain.end)
        } else if own.isSteady {
            ramps[outputGainIndex] = gain.scaled(by: own.end)
        } else {
            return false
        }
        return true
    }
}
