import NodeKit

/// One parameter's smoothing state on the audio thread: where the value is and where it goes.
///
/// The control side only writes a target (an atomic); this state is touched by the audio thread
/// alone, so a change ramps linearly over `rampFrames` and never steps.
struct ParameterSmoother: BitwiseCopyable {
    var current: Float
    var target: Float
    var step: Float = 0
    var remaining: Int = 0
    let rampFrames: Int

    init(value: Float, rampFrames: Int) {
        current = value
        target = value
        self.rampFrames = rampFrames
    }

    /// Follows `newTarget` and returns this cycle's ramp, advancing by `frames`.
    /// - Realtime: safe.
    mutating func advance(toward newTarget: Float, frames: Int) -> ParameterRamp {
        if newTarget != target {
            target = newTarget
            if rampFrames == 0 {
                current = newTarget
                remaining = 0
            } else {
                step = (newTarget - current) / Float(rampFrames)
                remaining = rampFrames
            }
        }
        if remaining == 0 { return .constant(current) }
        let start = current
        if remaining <= frames {
            let ramp = ParameterRamp(start: start, step: step, rampFrames: remaining, end: target)
            current = target
            remaining = 0
            return ramp
        }
        let end = start + step * Float(frames)
        current = end
        remaining -= frames
        return ParameterRamp(start: start, step: step, rampFrames: frames, end: end)
    }
}
