import CJack

/// What `iaa status`, `iaa ports` and `iaa top` read from JACK. Control side only.
extension JackBackend {
    /// One of our ports as `jack_lsp` would show it.
    public struct PortInfo: Sendable {
        public let name: String
        public let appID: String
        public let portName: String
        public let type: String
        public let isInput: Bool
        public let connections: [String]
        /// JACK's capture and playback latency ranges, in frames.
        public let capture: ClosedRange<Int>
        public let playback: ClosedRange<Int>
    }

    /// Our registered ports, in registration order, with their connections and latency.
    public func ports() -> [PortInfo] {
        guard let plan = currentPlan else { return [] }
        return plan.externalPorts.compactMap { port in
            guard let handle = jack_port_by_name(clientHandle, fullName(port.shortName)) else { return nil }
            var connections: [String] = []
            if let list = jack_port_get_all_connections(clientHandle, handle) {
                var cursor = list
                while let name = cursor.pointee {
                    connections.append(String(cString: name))
                    cursor += 1
                }
                jack_free(UnsafeMutableRawPointer(mutating: list))
            }
            func range(_ mode: jack_latency_callback_mode_t) -> ClosedRange<Int> {
                var range = jack_latency_range_t()
                jack_port_get_latency_range(handle, mode, &range)
                return Int(range.min)...Int(max(range.min, range.max))
            }
            return PortInfo(name: fullName(port.shortName), appID: port.appID, portName: port.portName,
                            type: String(cString: jack_port_type(handle)), isInput: port.direction == .input,
                            connections: connections, capture: range(JackCaptureLatency), playback: range(JackPlaybackLatency))
        }
    }

    /// Turns per-app metering on or off (on while `iaa top` watches).
    public func setMetering(_ on: Bool) {
        cycleState.metering.store(on, ordering: .relaxed)
    }

    /// JACK's DSP load, in percent.
    public var dspLoad: Double { Double(jack_cpu_load(clientHandle)) }

    /// xruns iaa caused: cycles whose processing overran the period on the CPU, and xruns JACK
    /// reported while a cycle of ours had not returned past its period.
    public var ourXrunCount: Int64 {
        cycleState.overruns.load(ordering: .relaxed) + cycleState.stalledXruns.load(ordering: .relaxed)
    }

    /// The audio thread has been inside one cycle for more than 10 periods (and 50 ms): how long,
    /// and the app whose node it is running. Nil while cycles come and go.
    public var stall: (app: String?, seconds: Double)? {
        guard let elapsed = cycleState.stalledFor(periods: 10), elapsed > 50_000_000 else { return nil }
        return (currentPlan?.runningApp, Double(elapsed) / 1e9)
    }

    /// Cycles past the period by the clock but not on our CPU time: the system preempted us.
    public var preemptedOverrunCount: Int64 { cycleState.preemptedOverruns.load(ordering: .relaxed) }

    /// Processing time per cycle since the client opened: median, p99, max (nanoseconds).
    public var cycleTimes: CycleTimes { cycleState.histogram.summary() }

    /// Nodes the deadline guard bypassed or muted since the client opened.
    public var deadlineFaultCount: Int64 { cycleState.deadlineFaults.load(ordering: .relaxed) }

    /// The last cycle's processing time, and the longest since the previous call, in seconds.
    public func takeBusyTimes() -> (last: Double, maximum: Double) {
        let last = cycleState.lastBusyMicroseconds.load(ordering: .relaxed)
        let maximum = cycleState.maximumBusyMicroseconds.exchange(0, ordering: .relaxed)
        return (Double(last) / 1e6, Double(maximum) / 1e6)
    }

    /// Asks JACK for another buffer size (an app's preferred I/O buffer duration).
    public func requestBufferSize(_ frames: Int) -> Bool {
        askingServer { jack_set_buffer_size(clientHandle, jack_nframes_t(frames)) } == 0
    }

    /// Disconnects two JACK ports by full name.
    public func disconnect(_ source: String, _ destination: String) -> Bool {
        askingServer { jack_disconnect(clientHandle, source, destination) } == 0
    }
}
