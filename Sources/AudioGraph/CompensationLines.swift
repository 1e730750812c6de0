import RenderCore

extension CompensationLineSet {
    /// No compensation anywhere.
    public static func none(_ graph: Graph) -> CompensationLineSet {
        CompensationLineSet(connections: Array(repeating: nil, count: graph.connections.count),
                            outside: Array(repeating: nil, count: graph.apps.reduce(0) { $0 + $1.layout.inputs.count }))
    }
}

/// The compensation lines of the plans one builder makes, by connection, so that the next plan
/// keeps the lines (and the audio in them) of the connections it keeps. Control side.
public final class CompensationLines {
    private var lines: [String: CompensationLine] = [:]

    public init() {}

    /// The lines for `graph`'s delayed connections and outside signals (nil for one that never
    /// had a delay), taking over the lines the last plan had for the same connection or input;
    /// lines gone are let go (a plan still running keeps its own).
    public func lines(for graph: Graph, latency: GraphLatency, maximumFrames: Int, aligned: Bool) -> CompensationLineSet {
        var next: [String: CompensationLine] = [:]
        // A path that needs no delay has no line, unless it had one: that line fades to 0 and
        // stays, so the path does not jump back by its old delay.
        func line(_ key: String, delay: Int) -> CompensationLine? {
            guard delay > 0 || lines[key] != nil else { return nil }
            let line: CompensationLine
            if let kept = lines[key], kept.take(delay, maximumFrames: maximumFrames) {
                line = kept
            } else {
                line = CompensationLine(delay: delay, maximumFrames: maximumFrames, aligned: aligned)
            }
            next[key] = line
            return line
        }
        var set = CompensationLineSet.none(graph)
        for index in graph.connections.indices {
            let connection = graph.connections[index]
            let from = graph.apps[connection.from.app], to = graph.apps[connection.to.app]
            let key = "\(from.id):\(from.layout.outputs[connection.from.port].name)>\(to.id):\(to.layout.inputs[connection.to.port].name)"
            set.connections[index] = line(key, delay: latency.delay[index])
        }
        var input = 0
        for appIndex in graph.apps.indices {
            let app = graph.apps[appIndex]
            for port in app.layout.inputs.indices {
                defer { input += 1 }
                guard Self.hasOutsideEntry(graph, app: appIndex, port: port) else { continue }
                set.outside[input] = line(">\(app.id):\(app.layout.inputs[port].name)", delay: latency.outsideDelay(appIndex))
            }
        }
        lines = next
        return set
    }

    /// Whether an outside signal entering this app input is one compensation may delay: the
    /// backend exposes it, it is not a program's own port (whose latency is the app's) and it
    /// is not read a cycle late.
    public static func hasOutsideEntry(_ graph: Graph, app: Int, port: Int) -> Bool {
        let spec = graph.apps[app].layout.inputs[port]
        return graph.exposure.exposes(app: app, .input, port: port) && !spec.programEnd && !spec.readsPreviousCycle
    }
}
