import AudioGraph

/// Drives plans with a manual clock: the same `Renderer` as JACK, one cycle per call, no server.
///
/// Tests and `iaa render` use it. Outside inputs are silent (nothing is connected offline).
public final class OfflineBackend: AudioBackend {
    public let sampleRate: Double
    public let maximumFrames: Int
    public let exchange = PlanExchange()
    public private(set) var sampleTime: Int64 = 0
    /// Cycles rendered so far.
    public private(set) var cycleCount = 0
    private let probe: RealtimeProbe

    public init(sampleRate: Double = 48_000, blockSize: Int = 256, probe: RealtimeProbe = .disabled) {
        precondition(sampleRate > 0 && blockSize > 0, "sample rate and block size must be positive")
        self.sampleRate = sampleRate
        self.maximumFrames = blockSize
        self.probe = probe
    }

    /// The real-time counter's totals when the probe is armed (IAA_RT_PROBE=1).
    public var probeCounts: (mallocs: Int, retains: Int)? { probe.counts() }

    public func install(_ plan: RenderPlan) {
        precondition(plan.maximumFrames >= maximumFrames, "plan compiled for smaller cycles")
        exchange.publish(plan)
        exchange.collect(audioStopped: true)
    }

    /// Renders one cycle of `frames` (at most `maximumFrames`) and returns the plan it rendered,
    /// whose output buffers hold the result until the next cycle.
    @discardableResult
    public func renderCycle(frames: Int) -> RenderPlan? {
        precondition(frames > 0 && frames <= maximumFrames, "frames out of range")
        let context = RenderContext(frames: frames, sampleTime: sampleTime)
        probe.begin()
        let rendered = exchange.withCurrentPlan(context) { plan in
            Renderer.render(plan, context)
        }
        probe.end()
        guard rendered else { return nil }
        sampleTime &+= Int64(frames)
        cycleCount += 1
        return exchange.currentPlan
    }
}
