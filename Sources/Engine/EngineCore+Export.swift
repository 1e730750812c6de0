/// `dump --graph` and what is kept on disk: the running graph as a file (``GraphExport``).
extension EngineCore {
    func exportedGraph() -> String {
        GraphExport(graph: graph, description: description, clientName: clientName, ports: backend.livePorts(),
                    madeByEngine: enginePairs(), programEnds: programs.endPorts(), plan: backend.currentPlan, sessions: sessions.policy).text
    }

    /// The connections to our ports the engine makes by itself from other parts of the graph:
    /// its rules' and its programs' routes (`[source, destination]`).
    func enginePairs() -> Set<[String]> {
        connections.rulePairs().union(programs.roster.routedBy.keys)
    }
}
