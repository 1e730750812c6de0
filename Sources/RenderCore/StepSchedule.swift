import CRenderCrew
import CThreadNotes

/// What a plan needs to be split across threads (docs/parallel.md): which steps must finish
/// before which, the per-cycle counters the crew counts down, and a step note per worker.
/// `BitwiseCopyable`, so the audio thread and the workers read it without retains; the plan
/// owns and frees it.
struct StepSchedule: BitwiseCopyable {
    /// The tables in the crew's own layout (`iaa_render_crew.h`).
    let crewPlan: UnsafeMutablePointer<iaa_crew_plan>
    /// Per worker (at most `RenderCrew.maximumWorkers`): the note its thread keeps of the step it
    /// runs in this plan, sharing the plan's app names.
    let workerNotes: UnsafeMutablePointer<iaa_step_note>
    /// False for a plan that is never split: one with isolated apps, whose waves already run
    /// their children at once, or with fewer than two steps.
    let splittable: Bool

    /// Every pair of steps that a connection joins, ordered as the plan runs them: a step runs
    /// after its sources, and a source read a cycle late (an effect return) runs after its
    /// reader has read it, as on one thread.
    init(steps: Int, connections: [(from: Int, to: Int)], phased: Bool, names: UnsafePointer<UnsafePointer<CChar>?>) {
        var successors = Array(repeating: Set<Int32>(), count: steps)
        for (from, to) in connections where from != to {
            successors[min(from, to)].insert(Int32(max(from, to)))
        }
        let count = max(steps, 1)
        let sources = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        sources.initialize(repeating: 0, count: count)
        let first = UnsafeMutablePointer<Int32>.allocate(capacity: count + 1)
        let total = successors.reduce(0) { $0 + $1.count }
        let flat = UnsafeMutablePointer<Int32>.allocate(capacity: max(total, 1))
        var cursor = 0
        for step in 0..<steps {
            first[step] = Int32(cursor)
            for next in successors[step].sorted() {
                flat[cursor] = next
                sources[Int(next)] += 1
                cursor += 1
            }
        }
        first[steps] = Int32(cursor)
        let remaining = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        remaining.initialize(repeating: 0, count: count)
        let queue = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        queue.initialize(repeating: -1, count: count)
        crewPlan = .allocate(capacity: 1)
        crewPlan.initialize(to: iaa_crew_plan(count: Int32(steps), sources: sources, first: first, successors: flat,
                                              remaining: remaining, queue: queue))
        workerNotes = .allocate(capacity: RenderCrew.maximumWorkers)
        workerNotes.initialize(repeating: iaa_step_note(names: names, count: steps, step: -1),
                               count: RenderCrew.maximumWorkers)
        splittable = !phased && steps > 1
    }

    func deallocate() {
        let plan = crewPlan.pointee
        UnsafeMutablePointer(mutating: plan.sources).deallocate()
        UnsafeMutablePointer(mutating: plan.first).deallocate()
        UnsafeMutablePointer(mutating: plan.successors).deallocate()
        plan.remaining.deallocate()
        plan.queue.deallocate()
        crewPlan.deallocate()
        workerNotes.deallocate()
    }

    var stepCount: Int { Int(crewPlan.pointee.count) }

    /// The steps that must wait for `step`.
    func successors(of step: Int) -> UnsafeBufferPointer<Int32> {
        let plan = crewPlan.pointee
        let start = Int(plan.first[step]), end = Int(plan.first[step + 1])
        return UnsafeBufferPointer(start: plan.successors + start, count: end - start)
    }

    /// The cycle's work and its critical path (the longest chain of steps that must run one
    /// after the other), from each step's cost. Steps are in plan order, which every successor
    /// follows.
    func work(costs: (Int) -> Double) -> (total: Double, critical: Double) {
        var start = Array(repeating: 0.0, count: stepCount)
        var total = 0.0, critical = 0.0
        for step in 0..<stepCount {
            let cost = costs(step)
            total += cost
            let end = start[step] + cost
            critical = max(critical, end)
            for next in successors(of: step) { start[Int(next)] = max(start[Int(next)], end) }
        }
        return (total, critical)
    }

    /// Whether splitting pays for a plan whose steps cost `costs` (ns) on `threads` threads,
    /// given whether it does now (docs/parallel.md, "When it pays"): the split must save at
    /// least `minimumSaving`, and live (with a period) the work must be at least a quarter of the
    /// period to start splitting and a sixth to go on.
    static func pays(total: Double, critical: Double, threads: Int, periodNanoseconds: Double?, splitting: Bool) -> Bool {
        guard threads > 1 else { return false }
        let saving = total - max(critical, total / Double(threads))
        guard saving >= minimumSaving else { return false }
        guard let period = periodNanoseconds else { return true }
        return total >= period / (splitting ? 6 : 4)
    }

    /// Nanoseconds a split must save: several hand-overs' worth (waking a worker, its caches,
    /// waiting for the last step).
    static let minimumSaving = 30_000.0
}
