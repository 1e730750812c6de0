import CKernels
import NodeKit

/// A built-in node whose cycle at steady parameters is one C call (CKernels' `iaa_steady_cycle`),
/// which the renderer makes itself while the node's app is settled: no slot `run`, no
/// `ProcessContext`, no Swift `process` around the kernel.
///
/// Why: in 1-frame cycles a step cost 18.5 ns, of which the kernels were about 4; the rest was
/// the Swift around them (the slot's call through the node's witness table, a 176-byte context
/// built and read back, the node reading its ramps and state). A settled cycle needs none of it:
/// its parameters are the ones the node ran at last cycle, under unity gain, with no fault.
///
/// The contract, which keeps the two paths one arithmetic: the node's `process`, at steady
/// parameters, stores them in `steadyCycle.state` and makes the same call (so a settled cycle,
/// which always follows such a cycle, finds the state ready), and every other path reads and
/// advances the same state (an oscillator's phase). Nodes with MIDI or transport do not qualify.
public protocol SteadyCycleNode: AudioNode {
    /// The node's steady cycle and the state it reads and advances; fixed for the node's life.
    var steadyCycle: SteadyCycle { get }
}

/// A steady cycle: the active kernel set's function and the node's state for it.
public struct SteadyCycle: BitwiseCopyable {
    public let function: iaa_steady_cycle
    public let state: UnsafeMutableRawPointer

    public init(function: iaa_steady_cycle, state: UnsafeMutableRawPointer) {
        self.function = function
        self.state = state
    }

    /// Runs the cycle: the node's outputs' finiteness check (0 when every sample is finite).
    /// - Realtime: safe.
    @inline(__always)
    public func callAsFunction(inputs: UnsafePointer<UnsafePointer<Float>>,
                               outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int) -> UInt32 {
        function(state, inputs, outputs, frames)
    }

    /// The same call from the node's own `process`, on its context's buffers: how a
    /// `SteadyCycleNode` renders at steady parameters, so both paths run one function.
    /// - Realtime: safe.
    @inline(__always)
    public func callAsFunction(_ context: ProcessContext) -> UInt32 {
        function(state, context.inputs.pointers, context.outputs.pointers, context.frames)
    }
}
