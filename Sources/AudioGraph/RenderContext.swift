/// What the backend hands the renderer for one cycle. Functions that take it may run on the audio
/// thread; control-side code has no `RenderContext` to pass, so it cannot call them by accident.
public struct RenderContext: BitwiseCopyable {
    /// Frames in this cycle (at most the plan's `maximumFrames`).
    public let frames: Int
    /// Frames rendered since the backend started, at the first frame of this cycle.
    public let sampleTime: Int64

    public init(frames: Int, sampleTime: Int64) {
        self.frames = frames
        self.sampleTime = sampleTime
    }
}
