import AudioGraph

/// `dump --graph` and what is kept on disk: the running graph as a file (``GraphExport``).
extension EngineCore {
    func exportedGraph() -> String {
        GraphExport(graph: graph, description: description, clientName: clientName, ports: backend.livePorts(),
                    madeByEngine: enginePairs(), programEnds: programEndPorts(), plan: backend.currentPlan, sessions: sessions.policy).text
    }

    /// The connections to our ports the engine makes by itself from other parts of the graph:
    /// its rules' and its programs' routes (`[source, destination]`).
    func enginePairs() -> Set<[String]> {
        var pairs: Set<[String]> = []
        for state in rules.states(on: ground) { for pair in state.pairs { pairs.insert([pair.source, pair.destination]) } }
        return pairs.union(programs.roster.routedBy.keys)
    }

    /// Every program app's `play_K` and `capture_K` port, full names: the program block makes
    /// their connections.
    func programEndPorts() -> Set<String> {
        Set(graph.apps.flatMap { app in
            let ends = programs.ends(of: app)
            return ends.plays + ends.captures
        })
    }
}
