@testable import Engine
import Testing

/// What the engine tells of its health: each xrun once, a stall's start and end once each, a
/// fault once until the app is enabled again.
@Suite("HealthWatch")
struct HealthWatchTests {
    typealias Xruns = HealthWatch.Xruns

    @Test("xruns are told as the difference since the last look; nothing new, nothing told")
    func xrunDifferences() {
        var watch = HealthWatch()
        #expect(watch.newXruns(Xruns()) == nil)
        #expect(watch.newXruns(Xruns(all: 3, ours: 1, preempted: 0)) == Xruns(all: 3, ours: 1, preempted: 0))
        #expect(watch.newXruns(Xruns(all: 3, ours: 1, preempted: 0)) == nil)
        #expect(watch.newXruns(Xruns(all: 5, ours: 1, preempted: 2)) == Xruns(all: 2, ours: 0, preempted: 2))
    }

    @Test("a new backend counting from zero again is not told as negative xruns, and counting goes on from it")
    func restartedCounters() {
        var watch = HealthWatch()
        _ = watch.newXruns(Xruns(all: 40, ours: 3, preempted: 1))
        #expect(watch.newXruns(Xruns(all: 1, ours: 0, preempted: 0)) == nil)
        #expect(watch.newXruns(Xruns(all: 2, ours: 0, preempted: 0)) == Xruns(all: 1, ours: 0, preempted: 0))
    }

    @Test("a stall is told when it begins and when it ends, once each")
    func stallOnce() {
        var watch = HealthWatch()
        #expect(watch.stallChange(nil) == nil)
        #expect(watch.stallChange(("loop", 0.2)) == .began(app: "loop", seconds: 0.2))
        #expect(watch.stallChange(("loop", 1.5)) == nil)
        #expect(watch.stallChange(nil) == .ended)
        #expect(watch.stallChange(nil) == nil)
    }

    @Test("a fault is told once, and again after the app is enabled")
    func faultOnce() {
        var watch = HealthWatch()
        #expect(watch.newFault("slow"))
        #expect(!watch.newFault("slow"))
        #expect(watch.newFault("nan"))
        watch.cleared("slow")
        #expect(watch.newFault("slow"))
    }
}
