import NodeKit
import Synchronization

/// Holds one running node and its parameters for the plans that render it.
///
/// The plan calls `run` through `Unmanaged`, and `TypedSlot` calls its node through a generic, so
/// the cycle path has no existential, closure or retain (STYLE.md has the measurement). A slot
/// lives as long as any plan that uses it; it is reused across plans so node state survives.
public class NodeSlot {
    /// The app this slot renders.
    public let appID: String
    /// The node type's id and configuration: a slot is reused only when both match.
    public let typeID: String
    public let configuration: NodeConfiguration
    public let parameterCount: Int
    // Allocated with room for at least one element so the pointers exist even with no parameters.
    let targets: UnsafeMutablePointer<Atomic<UInt32>>
    let smoothers: UnsafeMutablePointer<ParameterSmoother>
    let ramps: UnsafeMutablePointer<ParameterRamp>
    let sampleRate: Double

    init(appID: String, type: NodeType, configuration: NodeConfiguration, initialValues: [Float],
         sampleRate: Double, rampSeconds: Double) {
        self.appID = appID
        self.typeID = type.id
        self.configuration = configuration
        self.sampleRate = sampleRate
        parameterCount = type.parameters.count
        let rampFrames = max(0, Int((rampSeconds * sampleRate).rounded()))
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
        targets.deinitialize(count: parameterCount)
        targets.deallocate()
        smoothers.deallocate()
        ramps.deallocate()
    }

    /// Sets the value a parameter moves to; the audio thread ramps there. Control side.
    public func setParameter(_ index: Int, to value: Float) {
        precondition(index >= 0 && index < parameterCount, "parameter index out of range")
        targets[index].store(value.bitPattern, ordering: .releasing)
    }

    /// The value a parameter is moving to (what the last `setParameter` asked for).
    public func parameterTarget(_ index: Int) -> Float {
        Float(bitPattern: targets[index].load(ordering: .acquiring))
    }

    /// The node inside, for control-side calls such as `reset`.
    public var anyNode: any AudioNode { fatalError("NodeSlot is abstract") }

    /// Advances every parameter's ramp by one cycle.
    /// - Realtime: safe.
    @inline(__always) final func advanceParameters(_ frames: Int) {
        for index in 0..<parameterCount {
            let target = Float(bitPattern: targets[index].load(ordering: .acquiring))
            ramps[index] = smoothers[index].advance(toward: target, frames: frames)
        }
    }

    /// Renders one cycle of the node.
    /// - Realtime: safe.
    func run(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
             outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int) {}
}

/// The one concrete slot per node type, so the call to `process` is direct and generic.
final class TypedSlot<Node: AudioNode>: NodeSlot {
    let node: Node

    init(node: Node, appID: String, type: NodeType, configuration: NodeConfiguration,
         initialValues: [Float], sampleRate: Double, rampSeconds: Double) {
        self.node = node
        super.init(appID: appID, type: type, configuration: configuration, initialValues: initialValues,
                   sampleRate: sampleRate, rampSeconds: rampSeconds)
    }

    override var anyNode: any AudioNode { node }

    /// - Realtime: safe.
    override func run(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                      outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int) {
        advanceParameters(context.frames)
        node.process(ProcessContext(
            frames: context.frames, sampleRate: sampleRate, sampleTime: context.sampleTime,
            inputs: AudioInputs(base: inputs, count: inputCount, frames: context.frames),
            outputs: AudioOutputs(base: outputs, count: outputCount, frames: context.frames),
            parameters: ParameterRamps(base: ramps, count: parameterCount)))
    }
}
