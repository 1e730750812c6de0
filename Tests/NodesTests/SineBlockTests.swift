import Testing
@testable import Nodes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Eight-lane Float sine")
struct SineBlockTests {
    /// The largest |sine(halfCycles:) − sin(π·halfCycles)| over `count` evenly spread phases in `range`,
    /// the reference taken in `Double` at the very `Float` the kernel sees.
    private func worstError(over range: ClosedRange<Double>, count: Int) -> Double {
        var worst = 0.0
        var lanes = SIMD8<Float>()
        for index in stride(from: 0, to: count, by: 8) {
            for lane in 0..<8 {
                let fraction = Double(index + lane) / Double(count)
                lanes[lane] = Float(range.lowerBound + fraction * (range.upperBound - range.lowerBound))
            }
            let values = sine(halfCycles: lanes)
            for lane in 0..<8 {
                let exact = sin(Double.pi * Double(lanes[lane]))
                worst = max(worst, abs(Double(values[lane]) - exact))
            }
        }
        return worst
    }

    @Test("within 2e-7 of sin(πx) over a million phases in [−2, 2]")
    func accurateNearZero() {
        #expect(worstError(over: -2...2, count: 1 << 20) < 2e-7)
    }

    @Test("the range reduction stays exact far from zero")
    func accurateFarOut() {
        #expect(worstError(over: -4_096...4_096, count: 1 << 20) < 2e-7)
    }

    @Test("exact at the quarter periods: 0, ±1 and true zeros")
    func quarterPeriods() {
        let values = sine(halfCycles: SIMD8<Float>(0, 0.5, 1, 1.5, 2, -0.5, -1, 4.5))
        let expected: [Float] = [0, 1, 0, -1, 0, -1, 0, 1]
        for lane in 0..<8 {
            #expect(abs(values[lane] - expected[lane]) <= 2e-7)
        }
    }

    @Test("never beyond ±1: every Float phase in [0.48, 0.52] gives at most 1")
    func bounded() {
        var phase: Float = 0.48
        var lanes = SIMD8<Float>()
        var largest: Float = 0
        while phase < 0.52 {
            for lane in 0..<8 {
                lanes[lane] = phase
                phase = phase.nextUp
            }
            largest = max(largest, sine(halfCycles: lanes).max(), -sine(halfCycles: -lanes).min())
        }
        #expect(largest <= 1)
    }

    @Test("odd symmetry: sine(−x) is −sine(x) bit for bit")
    func oddSymmetry() {
        let phases = SIMD8<Float>(0.01, 0.13, 0.4999, 0.52, 0.98, 1.02, 1.54, 1.999)
        let positive = sine(halfCycles: phases), negative = sine(halfCycles: -phases)
        for lane in 0..<8 {
            #expect(positive[lane] == -negative[lane])
        }
    }

    @Test("cycleFraction returns the distance to the nearest whole cycle")
    func fraction() {
        #expect(cycleFraction(0.25) == 0.25)
        #expect(cycleFraction(0.75) == -0.25)
        #expect(cycleFraction(-1.25) == -0.25)
        #expect(cycleFraction(1_000_000.125) == 0.125)
    }
}
