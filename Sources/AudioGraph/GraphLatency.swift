/// How late each app's signal is inside a graph, and the delays that align paths where they meet
/// (plugin delay compensation, as DAWs do it). Control side; a pure function of the graph and
/// each node's own latency.
///
/// Time starts where signal enters the graph: an app with no audio source inside the graph (a
/// generator, an effect fed from outside). An app's inputs meet at its `arrival`, the latest of
/// its sources' `output`; a source that is earlier is delayed by the difference on its
/// connection, so every path into the app arrives together. Its output is `own` later again.
/// Inputs that read the previous cycle (a host's effect return) are feedback, neither delayed nor
/// counted. An outside (JACK) signal enters at time 0 like a generator's, at the input it is
/// connected to, and is delayed there to meet the app's arrival (``outsideDelay(_:)``); how late
/// it already was outside is the outside world's latency, which JACK's own ranges carry
/// (``LatencyPaths``).
public struct GraphLatency: Sendable, Equatable {
    /// Per app (graph order): the node's own latency in frames, as it reported it.
    public let own: [Int]
    /// Per app: when its inputs meet, in frames after the graph's entry (0 for an app without
    /// sources inside the graph). Without compensation: the latest path into it.
    public let arrival: [Int]
    /// Per connection (graph order): the frames it is delayed by so that its path meets the
    /// latest at the app it feeds; all 0 without compensation.
    public let delay: [Int]
    /// False when the graph turned compensation off (`"latency": {"compensate": false}`).
    public let compensates: Bool

    /// Per app: when its output leaves it, in frames after the graph's entry.
    public func output(_ app: Int) -> Int { arrival[app] + own[app] }

    /// Per app: the frames an outside signal entering one of its inputs is delayed by, so that
    /// it meets the paths from inside the graph; 0 without compensation.
    public func outsideDelay(_ app: Int) -> Int { compensates ? arrival[app] : 0 }

    /// The compensation delay that makes `graph`'s paths meet, from each app's own latency.
    public init(_ graph: Graph, own: [Int], compensates: Bool = true) {
        precondition(own.count == graph.apps.count, "one latency per app")
        self.own = own
        self.compensates = compensates
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
        self.arrival = arrival
        self.delay = delay
    }

    /// No latency anywhere (before any node reported one).
    public static func none(_ graph: Graph) -> GraphLatency {
        GraphLatency(graph, own: Array(repeating: 0, count: graph.apps.count))
    }
}
