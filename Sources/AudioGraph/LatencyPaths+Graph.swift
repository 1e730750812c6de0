import RenderCore

/// The paths of a plan's ports through its graph (``LatencyPaths``), worked out from the graph.
extension LatencyPaths {
    /// The paths of `plan`'s ports through `graph`, with `latency`'s own latencies and delays.
    public init(_ graph: Graph, latency: GraphLatency, ports: [ExternalPort]) {
        var entries = graph.apps.indices.map { Entry(own: latency.own[$0], program: graph.apps[$0].program != nil) }
        for (index, connection) in graph.connections.enumerated()
        where !graph.apps[connection.to.app].layout.inputs[connection.to.port].readsPreviousCycle {
            entries[connection.to.app].sources.append(Link(app: connection.from.app, delay: latency.delay[index]))
            entries[connection.from.app].destinations.append(Link(app: connection.to.app, delay: latency.delay[index]))
        }
        var appIndex: [String: Int] = [:]
        for index in graph.apps.indices { appIndex[graph.apps[index].id] = index }
        for (index, port) in ports.enumerated() where port.kind == .audio {
            guard let app = appIndex[port.appID] else { continue }
            switch port.direction {
            case .input:
                guard let portIndex = graph.apps[app].layout.inputs.firstIndex(where: { $0.name == port.portName }) else { continue }
                let delayed = CompensationLines.hasOutsideEntry(graph, app: app, port: portIndex)
                let entrance = Entrance(port: index, delay: delayed ? latency.outsideDelay(app) : 0)
                entries[app].inputs.append(entrance)
                if !graph.apps[app].layout.inputs[portIndex].programEnd { entries[app].entryInputs.append(entrance) }
            case .output:
                entries[app].outputs.append(index)
            }
        }
        self.init(entries: entries, order: graph.order, portCount: ports.count)
    }
}
