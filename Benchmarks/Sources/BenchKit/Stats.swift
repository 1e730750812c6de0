/// Order statistics of a set of timings, in nanoseconds.
public struct Stats: Sendable {
    public let count: Int
    public let median: Double
    public let p99: Double
    public let minimum: Double
    public let mean: Double

    public init(_ samples: [Double]) {
        precondition(!samples.isEmpty)
        let sorted = samples.sorted()
        count = sorted.count
        median = sorted[sorted.count / 2]
        p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        minimum = sorted[0]
        mean = sorted.reduce(0, +) / Double(sorted.count)
    }
}

/// Nanoseconds of a `Duration`.
@inline(__always)
public func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) * 1e-9
}

/// Times `body` once per sample, after `warmup` untimed calls, until `budget` has passed (at
/// least `minimumSamples` and at most `maximumSamples` samples).
public func measure(warmup: Int = 50, minimumSamples: Int = 20, maximumSamples: Int = 200_000,
                    budget: Duration = .milliseconds(300), _ body: () -> Void) -> Stats {
    for _ in 0..<warmup { body() }
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(min(maximumSamples, 100_000))
    let deadline = clock.now + budget
    while samples.count < maximumSamples && (samples.count < minimumSamples || clock.now < deadline) {
        let start = clock.now
        body()
        samples.append(nanoseconds(clock.now - start))
    }
    return Stats(samples)
}
