import Synchronization

/// Where a node says how late its output is behind its input, in frames: a lookahead limiter's
/// lookahead, a linear-phase filter's half length, an FFT's block.
///
/// One atomic cell the engine reads on the control side, as an LV2 plugin's `reportsLatency`
/// output port is read. A node that never reports has no latency. The engine reports it to JACK
/// along the graph's paths and delays the earlier paths where paths meet (docs/latency.md), so
/// report what the node really delays by, and report it again whenever it changes (a parameter
/// that changes the lookahead); reporting the same value every cycle costs one store.
public struct LatencyReport: BitwiseCopyable {
    @usableFromInline let cell: UnsafePointer<Atomic<UInt32>>?

    public init(cell: UnsafePointer<Atomic<UInt32>>?) {
        self.cell = cell
    }

    public static var none: LatencyReport { LatencyReport(cell: nil) }

    /// The cell as an opaque pointer, for the C ABI's `latency` field (PluginHost).
    public var opaqueCell: UnsafeMutableRawPointer? { cell.map { UnsafeMutableRawPointer(mutating: $0) } }

    /// Reports the node's latency in frames (negative counts as 0).
    /// - Realtime: safe.
    @inlinable public func report(frames: Int) {
        cell?.pointee.store(UInt32(clamping: max(frames, 0)), ordering: .relaxed)
    }
}
