import RenderCore
import CJack

/// The worker threads a cycle may be split across (docs/parallel.md), created as JACK creates
/// real-time threads for a client: with its priority and scheduling.
extension JackBackend {
    /// Starts the crew for `threads` threads (the audio thread included; 1: none), splitting
    /// cycles as `splitting` says. Before `activate`: the audio thread reads the crew without
    /// synchronisation.
    public func startCrew(threads: Int, splitting: CycleSplitting) throws(RenderCrew.CrewError) {
        precondition(!active, "the crew starts before activation")
        guard threads > 1 else { return }
        let client = clientHandle
        let priority = jack_client_real_time_priority(client)
        let realtime = jack_is_realtime(client)
        let crew = try RenderCrew(threads: threads, splitting: splitting) { entry, argument in
            var thread = jack_native_thread_t()
            let status = jack_client_create_thread(client, &thread, priority, realtime, entry, argument)
            guard status == 0 else {
                return .failure(RenderCrew.CrewError("jack_client_create_thread failed (\(status))"))
            }
            return .success(thread)
        }
        crewOwner = crew
        cycleState.crew = crew.handle
    }

    /// Decides for the running plan whether its cycles are split, from its steps' sampled costs
    /// and the period. Control side, on the engine's tick.
    public func updateSplit() {
        guard let crew = crewOwner, let plan = currentPlan else { return }
        crew.decide(plan, periodNanoseconds: Double(currentBufferSize) * 1e9 / sampleRate)
    }

    /// The threads a cycle may run on and what the workers did (`status.render`).
    public var renderThreads: RenderThreads {
        RenderThreads(threads: crewOwner?.threadCount ?? 1, split: currentPlan?.isSplit ?? false,
                      workerSteps: crewOwner?.workerSteps ?? [], workerBusySeconds: crewOwner?.workerBusySeconds ?? [])
    }
}
