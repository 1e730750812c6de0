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

    /// Made by the plan compiler from a graph (AudioGraph's `GraphLatency(graph, own:)`).
    package init(own: [Int], arrival: [Int], delay: [Int], compensates: Bool) {
        self.own = own
        self.arrival = arrival
        self.delay = delay
        self.compensates = compensates
    }
}
