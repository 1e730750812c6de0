import RenderCore
import CJack
import Synchronization

/// Latency told to JACK: every port's capture and playback range along the graph's real paths
/// (``LatencyPaths``), set in JACK's latency callback, and a recomputation asked of the server
/// whenever a plan changes them (docs/latency.md).
extension JackBackend {
    /// What the latency callback reads: the current plan's paths and, per external port of that
    /// plan, its JACK port. Replaced whole under the lock when a plan is installed.
    struct LatencyState: @unchecked Sendable {
        let paths: LatencyPaths
        let ports: [OpaquePointer?]
    }

    /// Registers the latency callback (before activation). It runs on JACK's notification
    /// thread and only reads and sets port latencies, which libjack keeps in shared memory.
    func installLatencyCallback() {
        jack_set_latency_callback(clientHandle, { mode, arg in
            guard let arg else { return }
            let backend = Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue()
            backend.latencyState.withLock { state in
                guard let state else { return }
                JackBackend.setLatencies(state, mode: mode)
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Sets our ports' ranges in one direction from the ranges JACK holds for the others.
    private static func setLatencies(_ state: LatencyState, mode: jack_latency_callback_mode_t) {
        // The ports we read: connected ones only (an unconnected port's range means nothing).
        func range(_ index: Int) -> ClosedRange<Int>? {
            guard index < state.ports.count, let port = state.ports[index], jack_port_connected(port) > 0 else { return nil }
            var range = jack_latency_range_t()
            jack_port_get_latency_range(port, mode, &range)
            return Int(range.min)...Int(max(range.min, range.max))
        }
        let ranges = mode == JackCaptureLatency
            ? state.paths.captureRanges(inputs: range) : state.paths.playbackRanges(outputs: range)
        for (index, computed) in ranges.enumerated() {
            guard let computed, index < state.ports.count, let port = state.ports[index] else { continue }
            var range = jack_latency_range_t(min: UInt32(clamping: computed.lowerBound), max: UInt32(clamping: computed.upperBound))
            jack_port_set_latency_range(port, mode, &range)
        }
    }

    /// The latest capture latency JACK holds for one of our input ports (what feeds it: for a
    /// program app's end, the program's own output port); 0 for a port we have not registered.
    public func captureLatency(ofPort shortName: String) -> Int {
        guard let port = port(named: shortName) else { return 0 }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, JackCaptureLatency, &range)
        return Int(max(range.min, range.max))
    }

    /// Hands the latency callback `plan`'s paths and asks JACK to recompute every latency when
    /// they changed (or when `force`: after activation).
    func tellLatency(of plan: RenderPlan, force: Bool = false) {
        let ports = plan.backendHandles.map { record in
            record.map { $0.assumingMemoryBound(to: PortRecord.self).pointee.port }
        }
        let changed = latencyState.withLock { state in
            let changed = state?.paths != plan.latencyPaths || state?.ports != ports
            state = LatencyState(paths: plan.latencyPaths, ports: ports)
            return changed
        }
        guard changed || force, active else { return }
        _ = askingServer { jack_recompute_total_latencies(clientHandle) }
    }
}
