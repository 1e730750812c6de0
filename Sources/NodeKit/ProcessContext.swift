/// Everything a node sees during one cycle: frame count, clock, audio buffers and parameter ramps.
///
/// It is a plain value of pointers prepared by the engine before the cycle; copying it costs
/// nothing and touches no reference count.
public struct ProcessContext: BitwiseCopyable {
    /// Frames to render in this cycle; every buffer below holds exactly this many.
    public let frames: Int
    /// The engine's sample rate in Hz.
    public let sampleRate: Double
    /// Frames rendered since the engine started, at the first frame of this cycle.
    public let sampleTime: Int64
    /// One read-only buffer per input port, in the order of the node's layout.
    public let inputs: AudioInputs
    /// One buffer per output port, in the order of the node's layout.
    public let outputs: AudioOutputs
    /// One ramp per parameter, in the order of the node type's `parameters`.
    public let parameters: ParameterRamps
    /// MIDI messages for the node's MIDI input this cycle, in frame order.
    public let midi: MIDIEvents
    /// The host's transport at the first frame of the cycle.
    public let transport: HostTransport
    /// Where the node may ask the host to play, stop or toggle recording.
    public let transportRequests: TransportRequestCell
    /// Where a node that checks its own outputs for NaN and infinity says what it found, so the
    /// host need not read them again (optional: see ``OutputCheck``).
    public let outputCheck: OutputCheck
    /// Where a node with latency (a lookahead) reports it (optional: see ``LatencyReport``).
    public let latency: LatencyReport

    public init(frames: Int, sampleRate: Double, sampleTime: Int64,
                inputs: AudioInputs, outputs: AudioOutputs, parameters: ParameterRamps,
                midi: MIDIEvents = .none, transport: HostTransport = .stopped,
                transportRequests: TransportRequestCell = .none, outputCheck: OutputCheck = .none,
                latency: LatencyReport = .none) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.sampleTime = sampleTime
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = parameters
        self.midi = midi
        self.transport = transport
        self.transportRequests = transportRequests
        self.outputCheck = outputCheck
        self.latency = latency
    }
}

/// A node's own finiteness check of its outputs for one cycle.
///
/// The host mutes a node that writes NaN or infinity. To find one it reads every output again
/// after `process`, unless the node reports that it checked what it wrote: the OR of the bit
/// patterns of `x - x` over every frame of every output (0 when every sample is finite, since
/// `x - x` is +0 for a finite `x` and NaN otherwise). The built-in kernels compute it while the
/// samples are still in registers, for one subtract and one OR per eight frames, instead of the
/// host's second pass over every output. A node that does not report is checked by the host as
/// before, so reporting is an optimisation, never a duty.
public struct OutputCheck: BitwiseCopyable {
    @usableFromInline let cell: UnsafeMutablePointer<UInt64>?

    /// What the host stores in the cell before `process`: no report yet.
    public static let unreported: UInt64 = 1 << 32

    public init(cell: UnsafeMutablePointer<UInt64>?) {
        self.cell = cell
    }

    public static var none: OutputCheck { OutputCheck(cell: nil) }

    /// Reports the check over everything this node wrote this cycle; reports from one cycle
    /// accumulate (a node with two outputs may report each). It must cover every frame of every
    /// output: a node that wrote some samples another way does not report.
    /// - Realtime: safe.
    @inlinable public func report(_ bits: UInt32) {
        guard let cell else { return }
        cell.pointee = (cell.pointee & 0xFFFF_FFFF) | UInt64(bits)
    }
}

extension ProcessContext {
    /// The first input and first output of a one-in, one-out effect, or nil when there is nothing
    /// to compute: no output, or no input (then the output is silenced here). The output may be
    /// the input's own buffer.
    /// - Realtime: safe.
    @inlinable
    public func monoEffectBuffers() -> (input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>)? {
        guard outputs.count > 0, let output = outputs[0].baseAddress else { return nil }
        guard inputs.count > 0, let input = inputs[0].baseAddress else {
            output.update(repeating: 0, count: frames)
            return nil
        }
        return (input, output)
    }
}

/// The input buffers of one node for one cycle. An unconnected input reads the shared silent buffer.
public struct AudioInputs: BitwiseCopyable {
    @usableFromInline let base: UnsafePointer<UnsafePointer<Float>>
    public let count: Int
    @usableFromInline let frames: Int

    public init(base: UnsafePointer<UnsafePointer<Float>>, count: Int, frames: Int) {
        self.base = base
        self.count = count
        self.frames = frames
    }

    /// - Realtime: safe.
    @inlinable public subscript(index: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: base[index], count: frames)
    }

    /// The `count` input pointers as one table, for a kernel that reads every input in one pass
    /// (a mixer summing them block by block).
    /// - Realtime: safe.
    @inlinable public var pointers: UnsafePointer<UnsafePointer<Float>> { base }
}

/// The output buffers of one node for one cycle. The node must write every frame of every output.
public struct AudioOutputs: BitwiseCopyable {
    @usableFromInline let base: UnsafePointer<UnsafeMutablePointer<Float>>
    public let count: Int
    @usableFromInline let frames: Int

    public init(base: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int) {
        self.base = base
        self.count = count
        self.frames = frames
    }

    /// - Realtime: safe.
    @inlinable public subscript(index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: base[index], count: frames)
    }

    /// The `count` output pointers as one table, for a kernel that writes them in one call.
    /// - Realtime: safe.
    @inlinable public var pointers: UnsafePointer<UnsafeMutablePointer<Float>> { base }
}

/// The smoothed parameter values of one node for one cycle.
public struct ParameterRamps: BitwiseCopyable {
    @usableFromInline let base: UnsafePointer<ParameterRamp>
    public let count: Int

    public init(base: UnsafePointer<ParameterRamp>, count: Int) {
        self.base = base
        self.count = count
    }

    /// - Realtime: safe.
    @inlinable public subscript(index: Int) -> ParameterRamp { base[index] }
}
