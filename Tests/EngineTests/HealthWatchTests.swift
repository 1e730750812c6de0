@testable import Engine
import Testing

/// What the engine tells of its health: each xrun once, a stall's start and end once each, a
/// fault once until the app is enabled again, an isolated app's late cycles once each.
@Suite("HealthWatch")
struct HealthWatchTests {
    typealias Xruns = HealthWatch.Xruns

    @Test("xruns are told as the difference since the last look; nothing new, nothing told")
    func xrunDifferences() {
        var watch = HealthWatch()
        let result1 = watch.newXruns(Xruns())
        #expect(result1 == nil)
        let result2 = watch.newXruns(Xruns(all: 3, ours: 1, preempted: 0))
        #expect(result2 == Xruns(all: 3, ours: 1, preempted: 0))
        let result3 = watch.newXruns(Xruns(all: 3, ours: 1, preempted: 0))
        #expect(result3 == nil)
        let result4 = watch.newXruns(Xruns(all: 5, ours: 1, preempted: 2))
        #expect(result4 == Xruns(all: 2, ours: 0, preempted: 2))
    }

    @Test("a new backend counting from zero again is not told as negative xruns, and counting goes on from it")
    func restartedCounters() {
        var watch = HealthWatch()
        _ = watch.newXruns(Xruns(all: 40, ours: 3, preempted: 1))
        let result5 = watch.newXruns(Xruns(all: 1, ours: 0, preempted: 0))
        #expect(result5 == nil)
        let result6 = watch.newXruns(Xruns(all: 2, ours: 0, preempted: 0))
        #expect(result6 == Xruns(all: 1, ours: 0, preempted: 0))
    }

    @Test("a stall is told when it begins and when it ends, once each")
    func stallOnce() {
        var watch = HealthWatch()
        let result7 = watch.stallChange(nil)
        #expect(result7 == nil)
        let result8 = watch.stallChange(("loop", 0.2))
        #expect(result8 == .began(app: "loop", seconds: 0.2))
        let result9 = watch.stallChange(("loop", 1.5))
        #expect(result9 == nil)
        let result10 = watch.stallChange(nil)
        #expect(result10 == .ended)
        let result11 = watch.stallChange(nil)
        #expect(result11 == nil)
    }

    @Test("a fault is told once, and again after the app is enabled")
    func faultOnce() {
        var watch = HealthWatch()
        let result12 = watch.newFault("slow")
        #expect(result12)
        let result13 = watch.newFault("slow")
        #expect(!result13)
        let result14 = watch.newFault("nan")
        #expect(result14)
        watch.cleared("slow")
        let result15 = watch.newFault("slow")
        #expect(result15)
    }

    @Test("an isolated app's late cycles are told as the difference since the last look, each app on its own; a new node's count is told from zero")
    func lateCyclesOnce() {
        var watch = HealthWatch()
        #expect(watch.newLateCycles("verb", total: 0) == nil)
        #expect(watch.newLateCycles("verb", total: 3) == 3)
        #expect(watch.newLateCycles("verb", total: 3) == nil)
        #expect(watch.newLateCycles("synth", total: 2) == 2)
        #expect(watch.newLateCycles("verb", total: 7) == 4)
        // An apply that changed verb made a new node: its 2 late cycles are new ones.
        #expect(watch.newLateCycles("verb", total: 2) == 2)
        #expect(watch.newLateCycles("verb", total: 2) == nil)
        #expect(watch.newLateCycles("verb", total: 0) == nil)
    }
}
