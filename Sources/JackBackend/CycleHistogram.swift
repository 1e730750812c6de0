import Synchronization

/// Per-cycle processing times since the client opened, in log-linear bins (32 per power of two,
/// so a percentile is off by at most about 3 %), for `status` and `tools/bench`: median, p99, max.
///
/// The audio thread only adds to fixed counters; the control side reads them, so neither waits.
final class CycleHistogram: @unchecked Sendable {
    private static let linearLimit = 64
    private static let subBins = 32
    /// Up to 2⁴⁰ ns (18 minutes), far beyond any cycle.
    private static let binCount = linearLimit + (40 - 6) * subBins
    private let bins: UnsafeMutablePointer<Atomic<UInt32>>
    private let maximum = Atomic<UInt64>(0)

    init() {
        bins = .allocate(capacity: Self.binCount)
        for index in 0..<Self.binCount { (bins + index).initialize(to: Atomic(0)) }
    }

    deinit {
        bins.deinitialize(count: Self.binCount)
        bins.deallocate()
    }

    /// - Realtime: safe.
    @inline(__always)
    func record(_ nanoseconds: UInt64) {
        let bin = Self.bin(of: nanoseconds)
        bins[bin].store(bins[bin].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        if nanoseconds > maximum.load(ordering: .relaxed) { maximum.store(nanoseconds, ordering: .relaxed) }
    }

    @inline(__always)
    static func bin(of value: UInt64) -> Int {
        guard value >= UInt64(linearLimit) else { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount // ≥ 6
        let sub = Int((value >> UInt64(exponent - 5)) & UInt64(subBins - 1))
        return min(linearLimit + (exponent - 6) * subBins + sub, binCount - 1)
    }

    /// The middle of a bin's range, in nanoseconds.
    static func value(of bin: Int) -> Double {
        guard bin >= linearLimit else { return Double(bin) }
        let exponent = (bin - linearLimit) / subBins + 6
        let sub = (bin - linearLimit) % subBins
        let width = Double(UInt64(1) << UInt64(exponent - 5))
        return Double(UInt64(1) << UInt64(exponent)) + Double(sub) * width + width / 2
    }

    /// Median, 99th percentile and maximum in nanoseconds, and the number of cycles.
    func summary() -> CycleTimes {
        var counts = [UInt64](repeating: 0, count: Self.binCount)
        var total: UInt64 = 0
        for index in 0..<Self.binCount {
            counts[index] = UInt64(bins[index].load(ordering: .relaxed))
            total += counts[index]
        }
        let maximum = Double(maximum.load(ordering: .relaxed))
        func percentile(_ fraction: Double) -> Double {
            guard total > 0 else { return 0 }
            let rank = UInt64((Double(total) * fraction).rounded(.up))
            var seen: UInt64 = 0
            for (index, count) in counts.enumerated() {
                seen += count
                if seen >= max(rank, 1) { return min(Self.value(of: index), maximum) }
            }
            return maximum
        }
        return CycleTimes(cycles: Int64(total), median: percentile(0.5), p99: percentile(0.99), maximum: maximum)
    }
}

/// Processing time per cycle, in nanoseconds.
public struct CycleTimes: Sendable, Equatable {
    public let cycles: Int64
    public let median: Double
    public let p99: Double
    public let maximum: Double

    public init(cycles: Int64, median: Double, p99: Double, maximum: Double) {
        self.cycles = cycles
        self.median = median
        self.p99 = p99
        self.maximum = maximum
    }
}
