import Dispatch

/// Following the nodes' latency while the engine runs: a node that reports another latency (a
/// parameter moved its lookahead, a program's port changed) gets a plan aligned for it, which
/// the backend tells JACK about (docs/latency.md).
extension EngineCore {
    /// Runs on every control tick: program apps learn their program's latency, and a plan whose
    /// latencies are out of date is replaced by one aligned for the new ones (the same nodes,
    /// the same sessions; the compensation lines fade to their new delays).
    func followLatency() {
        guard let plan = backend.currentPlan else { return }
        for (index, slot) in plan.appSlots.enumerated() where index < graph.apps.count && graph.apps[index].program != nil {
            slot.noteLatency(programs.latency(of: graph.apps[index]))
        }
        guard plan.latencyChanged else { return }
        do {
            _ = try PlanInstall(graph, builder: builder, sessions: sessions, binding: .rebind, on: backend, at: now)
        } catch {
            StandardError.warning("cannot align the graph for a changed latency: \(error)")
        }
    }

    /// After a `set`, which may move a node's latency (swh `lookaheadLimiter`'s `delay_s`): looked
    /// at again once the node has run with the new value, a few cycles from now, rather than at
    /// the next tick up to 100 ms later.
    func followLatencySoon() {
        let cycle = Double(backend.currentBufferSize) / backend.sampleRate
        queue.asyncAfter(deadline: .now() + 3 * cycle + 0.005) { [self] in followLatency() }
    }
}
