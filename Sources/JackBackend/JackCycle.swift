import AudioGraph
import CJack
import Synchronization

/// Everything the JACK process callback touches, in one place only that thread writes
/// (PipeWire's `rt` struct): the plan exchange, the clock, the probe and the counters.
final class JackCycle: @unchecked Sendable {
    let exchange = PlanExchange()
    let probe: RealtimeProbe
    /// Written only by the audio thread.
    private var sampleTime: Int64 = 0
    /// Cycles rendered and cycles skipped because JACK's buffer outgrew the plan.
    let cycles = Atomic<Int64>(0)
    let oversizedCycles = Atomic<Int64>(0)
    let xruns = Atomic<Int64>(0)
    let shutDown = Atomic<Bool>(false)

    init(probe: RealtimeProbe) {
        self.probe = probe
    }

    /// One JACK cycle: read connected inputs, render, copy to connected outputs.
    /// - Realtime: safe.
    func process(frames: Int) {
        probe.begin()
        let context = RenderContext(frames: frames, sampleTime: sampleTime)
        _ = exchange.withCurrentPlan(context) { plan in
            let handles = plan.backendHandles
            guard frames <= plan.maximumFrames else {
                silenceOutputs(plan, handles: handles, frames: frames)
                oversizedCycles.add(1, ordering: .relaxed)
                return
            }
            let inputCount = plan.externalInputs.count
            for index in 0..<inputCount {
                plan.externalInputs[index] = connectedBuffer(handles[index], frames: frames).map { UnsafePointer($0) }
            }
            Renderer.render(plan, context)
            for index in 0..<plan.externalOutputs.count {
                guard let out = connectedBuffer(handles[inputCount + index], frames: frames) else { continue }
                out.update(from: plan.externalOutputs[index], count: frames)
            }
        }
        sampleTime &+= Int64(frames)
        cycles.add(1, ordering: .relaxed)
        probe.end()
    }

    /// - Realtime: safe.
    @inline(__always)
    private func silenceOutputs(_ plan: borrowing RenderPlan, handles: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>, frames: Int) {
        for index in plan.externalInputs.count..<handles.count {
            connectedBuffer(handles[index], frames: frames)?.update(repeating: 0, count: frames)
        }
    }

    /// The port's buffer when it has a connection, else nil (no fetch).
    /// - Realtime: safe.
    @inline(__always)
    private func connectedBuffer(_ handle: UnsafeMutableRawPointer?, frames: Int) -> UnsafeMutablePointer<Float>? {
        guard let record = handle?.assumingMemoryBound(to: PortRecord.self),
              record.pointee.connections.load(ordering: .relaxed) > 0,
              let raw = jack_port_get_buffer(record.pointee.port, jack_nframes_t(frames)) else { return nil }
        return raw.assumingMemoryBound(to: Float.self)
    }
}
