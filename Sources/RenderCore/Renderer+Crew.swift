import CRenderCrew
import CThreadNotes

/// A cycle split across the crew's threads (docs/parallel.md).
extension Renderer {
    /// Leader: opens the cycle to the workers, renders tickets beside them, then waits for the
    /// last step and the last worker. The wait is the engine's own work done on other threads,
    /// noted as a child's wait is, so that a late cycle is told apart from one the system delayed.
    /// - Realtime: safe (the documented wait for the workers).
    @inline(never)
    static func renderSplit(_ plan: borrowing RenderPlan, _ job: CrewJob, crew: CrewHandle) -> Int {
        crew.job.pointee = job
        iaa_crew_open(crew.crew, plan.schedule.crewPlan)
        var tripped = renderTickets(plan, job, crew: crew.crew, note: plan.stepNote).tripped
        iaa_note_wait(iaa_crew_close(crew.crew))
        for index in 0..<crew.workers {
            tripped += crew.seats[index].tripped
            crew.seats[index].tripped = 0
        }
        return tripped
    }

    /// Any thread of the crew: takes tickets until every one is taken, running the step each
    /// holds and queuing the steps that were waiting for it; returns how many nodes the deadline
    /// faulted and how many steps it ran. The thread's note says the step it runs, and no step
    /// between them.
    /// - Realtime: safe.
    static func renderTickets(_ plan: borrowing RenderPlan, _ job: CrewJob, crew: UnsafeMutablePointer<iaa_crew>,
                              note: UnsafeMutablePointer<iaa_step_note>) -> (tripped: Int, steps: Int) {
        iaa_note_rendering(note)
        var tripped = 0, steps = 0
        while true {
            let step = iaa_crew_next(crew)
            if step < 0 { break }
            if renderStep(plan, Int(step), job.context, note: note, timing: job.timing, deadline: job.deadline,
                          outside: job.outside) {
                tripped += 1
            }
            iaa_note_step(note, -1)
            iaa_crew_finish(crew, step)
            steps += 1
        }
        return (tripped, steps)
    }
}
