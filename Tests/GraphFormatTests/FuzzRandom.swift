/// A small seeded random number generator (SplitMix64) for the fuzz tests, so that every run with
/// the same seed makes the same inputs and a failure can be replayed from the seed it prints.
///
/// Not the standard library's generator: its sequence is not promised to stay the same across
/// Swift releases, and a fuzz failure must replay anywhere.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`; `bound` must be positive.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `percent` in 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[below(elements.count)]
    }

    /// The seed of input `index` in a run seeded `seed`, so that one input replays on its own.
    static func inputSeed(run seed: UInt64, index: Int) -> UInt64 {
        var generator = FuzzRandom(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        return generator.next()
    }
}
