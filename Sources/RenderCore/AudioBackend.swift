/// What drives a plan: JACK in real time, or the offline backend with a manual clock.
///
/// Both render the same `RenderPlan` through `Renderer`, so what tests render offline is what runs
/// live. The protocol is used on the control side only.
public protocol AudioBackend: AnyObject {
    /// The sample rate plans must be compiled for.
    var sampleRate: Double { get }
    /// The largest cycle the backend will ask for.
    var maximumFrames: Int { get }
    /// Makes `plan` the one rendered from the next cycle on.
    func install(_ plan: RenderPlan) throws
}
