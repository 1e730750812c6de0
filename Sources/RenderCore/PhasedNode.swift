import NodeKit

/// A node whose work happens elsewhere (an isolated app's child process), so that its cycle
/// splits into handing the work over (`begin`) and taking the result back (`finish`).
///
/// The plan groups such nodes that do not feed one another into *waves*; the renderer begins
/// every member of a wave, then finishes them in reverse order. Children that share the audio
/// thread's CPU then run one after another while the audio thread sleeps once, instead of the
/// audio thread sleeping and being woken once per node (docs/isolation.md, "Waves"). `process`
/// must stay equal to `begin` then `finish`: the renderer calls it for a node alone, and for
/// every node while steps are timed (`iaa top`, the deadline guard).
public protocol PhasedNode: AudioNode {
    /// Starts the cycle; must not wait for its result.
    /// - Realtime: safe.
    func begin(_ context: ProcessContext)
    /// Completes the cycle `begin` started, writing every output.
    /// - Realtime: safe.
    func finish(_ context: ProcessContext)
}

/// The slot of a `PhasedNode`: `run` as every slot's, and the same cycle split in two for a wave.
package final class PhasedSlot<Node: PhasedNode>: TypedSlot<Node> {
    /// Audio thread only: what `begin` decided, for `finish`.
    private var pending = PendingCycle.done

    override package var isPhased: Bool { true }

    /// - Realtime: safe.
    override package func begin(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                        outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {
        if isSettled {
            pending = .settled
        } else {
            pending = prepare(context, inputs: inputs, outputs: outputs, outputCount: outputCount)
            guard pending.callsNode else { return }
        }
        outputCheck.pointee = OutputCheck.unreported
        let context = processContext(context, inputs: inputs, inputCount: inputCount, outputs: outputs,
                                     outputCount: outputCount, midi: midi)
        // Through the address, as `TypedSlot.process`: no retain of the node.
        Unmanaged<Node>.fromOpaque(nodeAddress)._withUnsafeGuaranteedRef { $0.begin(context) }
    }

    /// - Realtime: safe.
    override package func finish(_ context: RenderContext, inputs: UnsafePointer<UnsafePointer<Float>>, inputCount: Int,
                         outputs: UnsafePointer<UnsafeMutablePointer<Float>>, outputCount: Int, midi: MIDIEvents) {
        guard pending.callsNode else { return }
        let context = processContext(context, inputs: inputs, inputCount: inputCount, outputs: outputs,
                                     outputCount: outputCount, midi: midi)
        Unmanaged<Node>.fromOpaque(nodeAddress)._withUnsafeGuaranteedRef { $0.finish(context) }
        guardOutputs(outputs, outputCount: outputCount, frames: context.frames)
        complete(pending, outputs: outputs, outputCount: outputCount, frames: context.frames)
    }
}
