/// A parameter's value across one cycle: a linear ramp from `start` that reaches `end` after
/// `rampFrames` frames and stays there. The engine builds it from the control side's target so
/// that a change never steps (no click); a node reads `ramp[frame]` per sample or `end` per block.
public struct ParameterRamp: BitwiseCopyable, Equatable, Sendable {
    /// The value at the first frame of the cycle.
    public var start: Float
    /// The change per frame while ramping.
    public var step: Float
    /// Frames of this cycle during which the value still moves (0 when steady).
    public var rampFrames: Int
    /// The value from frame `rampFrames` on.
    public var end: Float

    public init(start: Float, step: Float, rampFrames: Int, end: Float) {
        self.start = start
        self.step = step
        self.rampFrames = rampFrames
        self.end = end
    }

    /// A ramp that holds one value for the whole cycle.
    public static func constant(_ value: Float) -> ParameterRamp {
        ParameterRamp(start: value, step: 0, rampFrames: 0, end: value)
    }

    /// The same ramp multiplied by `factor` at every frame.
    /// - Realtime: safe.
    @inlinable public func scaled(by factor: Float) -> ParameterRamp {
        ParameterRamp(start: start * factor, step: step * factor, rampFrames: rampFrames, end: end * factor)
    }

    /// True when the value does not move during this cycle.
    @inlinable public var isSteady: Bool { rampFrames == 0 }

    /// The value at `frame` of this cycle.
    /// - Realtime: safe.
    @inlinable public subscript(frame: Int) -> Float {
        frame < rampFrames ? start + step * Float(frame) : end
    }
}
