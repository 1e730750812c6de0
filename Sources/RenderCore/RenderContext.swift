import NodeKit

/// What the backend hands the renderer for one cycle. Functions that take it may run on the audio
/// thread; control-side code has no `RenderContext` to pass, so it cannot call them by accident.
public struct RenderContext: BitwiseCopyable {
    /// Frames in this cycle (at most the plan's `maximumFrames`).
    public let frames: Int
    /// Frames rendered since the backend started, at the first frame of this cycle.
    public let sampleTime: Int64
    /// The host transport every node sees this cycle (JACK transport live, the timeline offline).
    public let transport: HostTransport

    public init(frames: Int, sampleTime: Int64, transport: HostTransport = .stopped) {
        self.frames = frames
        self.sampleTime = sampleTime
        self.transport = transport
    }
}
