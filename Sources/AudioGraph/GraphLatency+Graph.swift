import RenderCore

/// A graph's latency and compensation delays (``GraphLatency``), worked out from the graph.
extension GraphLatency {
    /// The compensation delay that makes `graph`'s paths meet, from each app's own latency.
    public init(_ graph: Graph, own: [Int], compensates: Bool = true) {
        precondition(own.count == graph.apps.count, "one latency per app")
        // Connections into each app, found once (graph.connections is in file order).
        var incoming = Array(repeating: [Int](), count: graph.apps.count)
        for (index, connection) in graph.connections.enumerated()
        where !graph.apps[connection.to.app].layout.inputs[connection.to.port].readsPreviousCycle {
            incoming[connection.to.app].append(index)
        }
        var arrival = Array(repeating: 0, count: graph.apps.count)
        // `graph.order` puts every app after the apps that feed it, so each source's output is
        // known when its destination is reached.
        for app in graph.order {
            for index in incoming[app] {
                let source = graph.connections[index].from.app
                arrival[app] = max(arrival[app], arrival[source] + own[source])
            }
        }
        var delay = Array(repeating: 0, count: graph.connections.count)
        if compensates {
            for app in graph.apps.indices {
                for index in incoming[app] {
                    let source = graph.connections[index].from.app
                    delay[index] = arrival[app] - (arrival[source] + own[source])
                }
            }
        }
        self.init(own: own, arrival: arrival, delay: delay, compensates: compensates)
    }

    /// No latency anywhere (before any node reported one).
    public static func none(_ graph: Graph) -> GraphLatency {
        GraphLatency(graph, own: Array(repeating: 0, count: graph.apps.count))
    }
}
