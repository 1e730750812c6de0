import RenderCore
import NodeKit

/// Drives plans with a manual clock: the same `Renderer` as JACK, one cycle per call, no server.
///
/// Tests and `iaa render` use it. Outside inputs are silent (nothing is connected offline).
public final class OfflineBackend: ControlBackend {
    public let sampleRate: Double
    public let maximumFrames: Int
    public let exchange = PlanExchange()
    public private(set) var sampleTime: Int64 = 0
    /// Cycles rendered so far.
    public private(set) var cycleCount = 0
    private let probe: RealtimeProbe
    /// The host transport nodes see; `play`/`stop` move it, cycles advance it while playing.
    public private(set) var transport = HostTransport.stopped
    /// MIDI messages to deliver at the start of the next cycle, by MIDI buffer index.
    private var pendingMIDI: [(buffer: Int, event: MIDIEvent)] = []
    /// The worker threads a split cycle runs on (nil with one thread; docs/parallel.md).
    private let crew: RenderCrew?

    /// One thread: cycles run on the thread that calls `renderCycle`.
    public convenience init(sampleRate: Double = 48_000, blockSize: Int = 256, probe: RealtimeProbe = .disabled) {
        self.init(sampleRate: sampleRate, blockSize: blockSize, probe: probe, crew: nil)
    }

    /// `threads` counts the thread that calls `renderCycle`; more than one starts a crew of
    /// plain threads.
    public convenience init(sampleRate: Double = 48_000, blockSize: Int = 256, probe: RealtimeProbe = .disabled,
                            threads: Int, splitting: CycleSplitting = .whenItPays) throws(RenderCrew.CrewError) {
        let crew = threads > 1 ? try RenderCrew(threads: threads, splitting: splitting, spawn: RenderCrew.plainThread) : nil
        self.init(sampleRate: sampleRate, blockSize: blockSize, probe: probe, crew: crew)
    }

    private init(sampleRate: Double, blockSize: Int, probe: RealtimeProbe, crew: RenderCrew?) {
        precondition(sampleRate > 0 && blockSize > 0, "sample rate and block size must be positive")
        self.sampleRate = sampleRate
        self.maximumFrames = blockSize
        self.probe = probe
        self.crew = crew
    }

    /// Threads a cycle may run on, this one included.
    public var renderThreads: Int { crew?.threadCount ?? 1 }

    /// Steps each worker thread has run (none with one thread).
    public var workerSteps: [Int] { crew?.workerSteps ?? [] }

    private func updateBars() {
        transport.bar = Int(transport.beat / transport.beatsPerBar) + 1
        transport.beatInBar = transport.beat - Double(transport.bar - 1) * transport.beatsPerBar
    }

    /// The real-time counter's totals when the probe is armed (IAA_RT_PROBE=1).
    public var probeCounts: (mallocs: Int, retains: Int)? { probe.counts() }

    public var currentPlan: RenderPlan? { exchange.currentPlan }
    /// Whether cycles measure each app's time and level (``RenderPlan/takeMeter(app:)``).
    public var metering = false

    /// Cycles are as long as the caller asks, at most `maximumFrames`.
    public var currentBufferSize: Int { maximumFrames }
    /// Cycles run between commands, on the caller's thread: nothing plays while it waits.
    public var renderedCycles: Int64? { nil }

    public func install(_ plan: RenderPlan) {
        precondition(plan.maximumFrames >= maximumFrames, "plan compiled for smaller cycles")
        crew?.decide(plan, periodNanoseconds: nil)
        exchange.publish(plan)
        exchange.collect(audioStopped: true)
    }

    /// Sets the tempo and meter (the graph's `transport` block).
    public func setTempo(_ tempo: Double, beatsPerBar: Double) {
        transport.tempo = tempo
        transport.beatsPerBar = beatsPerBar
        updateBars()
    }

    /// Starts or stops the transport, as `jack_transport start/stop` does live.
    public func setPlaying(_ playing: Bool) {
        transport.isPlaying = playing
    }

    /// Delivers a MIDI message to `app`'s MIDI input at the first frame of the next cycle.
    /// Returns false when the app has no MIDI input.
    @discardableResult
    public func injectMIDI(_ event: MIDIEvent, app: String) -> Bool {
        guard let index = exchange.currentPlan?.midiBufferIndex(app: app) else { return false }
        var event = event
        event.frame = 0
        pendingMIDI.append((index, event))
        return true
    }

    /// Renders one cycle of `frames` (at most `maximumFrames`) and returns the plan it rendered,
    /// whose output buffers hold the result until the next cycle.
    @discardableResult
    public func renderCycle(frames: Int) -> RenderPlan? {
        precondition(frames > 0 && frames <= maximumFrames, "frames out of range")
        let context = RenderContext(frames: frames, sampleTime: sampleTime, transport: transport)
        if let plan = exchange.currentPlan {
            Renderer.clearMIDI(plan)
            for (index, event) in pendingMIDI where index < plan.midiBuffers.count {
                plan.midiBuffers[index].insert(event)
            }
            pendingMIDI.removeAll(keepingCapacity: true)
        }
        probe.begin()
        // As live: denormals flushed while rendering, and the caller's thread given back as it was.
        let floatEnvironment = FloatEnvironment.flushDenormals()
        let handle = crew?.handle
        let rendered = exchange.withCurrentPlan(context) { plan in
            Renderer.render(plan, context, metering: metering, crew: handle, probe: probe)
        }
        FloatEnvironment.restore(floatEnvironment)
        probe.end()
        guard rendered else { return nil }
        sampleTime &+= Int64(frames)
        cycleCount += 1
        // Offline, the caller's thread is the control side too: right after a sampled cycle.
        if let plan = exchange.currentPlan, let crew, cycleCount % RenderPlan.sampleInterval == 1 {
            crew.decide(plan, periodNanoseconds: nil)
        }
        if transport.isPlaying {
            transport.sampleTime &+= Int64(frames)
            transport.beat += Double(frames) / transport.framesPerBeat(sampleRate: sampleRate)
            updateBars()
        }
        return exchange.currentPlan
    }
}

/// Offline, the plan is all there is: no ports outside the engine to connect.
extension OfflineBackend {
    public func connectPorts(_ pair: PortPair) -> PortConnectionResult {
        .failed("an offline render has no ports outside the engine")
    }

    public func disconnectPorts(_ pair: PortPair) -> Bool { false }
}
