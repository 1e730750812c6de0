/// One connection's compensation delay line (``GraphLatency``): a ring the audio thread writes
/// the source's output into and reads back `delay` frames later.
///
/// The line outlives plans, like a node slot: a plan that keeps the connection keeps its line and
/// the audio it holds, so a change of delay (a node's latency moved) fades from the old tap to
/// the new one instead of starting from silence. Its ring has room for twice what it was made
/// for, so most changes fit; one that does not gets a new line. Control side creates and frees;
/// the state is the audio thread's.
public final class CompensationLine {
    let state: UnsafeMutablePointer<CompensationState>
    /// Frames the ring holds; a power of two.
    let capacity: Int
    private let ring: UnsafeMutablePointer<Float>
    /// Control side: the longest delay any plan asked of this line. The audio thread may still
    /// read that far back while it fades (it finishes a fade before starting the next), so a
    /// plan may reuse the line only if the ring holds this and the new delay.
    private(set) var reach: Int

    /// A line with room for `delay` frames of delay behind cycles of `maximumFrames`, starting
    /// at `delay` (`aligned`: nothing has played yet) or at 0, fading to it over its first cycles.
    init(delay: Int, maximumFrames: Int, aligned: Bool) {
        var capacity = 1024
        while capacity < 2 * (delay + maximumFrames) { capacity *= 2 }
        self.capacity = capacity
        reach = delay
        ring = .allocate(capacity: capacity)
        ring.initialize(repeating: 0, count: capacity)
        state = .allocate(capacity: 1)
        let start = aligned ? delay : 0
        state.initialize(to: CompensationState(ring: ring, mask: capacity - 1, write: 0, current: start, previous: start,
                                               fadeRemaining: 0, silentRun: capacity, audible: false))
    }

    deinit {
        state.deallocate()
        ring.deallocate()
    }

    /// Takes the line for a plan delaying by `delay` behind cycles of `maximumFrames`: false,
    /// changing nothing, when the ring cannot hold it beside what it may still be reading.
    func take(_ delay: Int, maximumFrames: Int) -> Bool {
        guard max(delay, reach) + maximumFrames <= capacity else { return false }
        reach = max(delay, reach)
        return true
    }
}

/// The audio thread's state of a ``CompensationLine``.
struct CompensationState {
    let ring: UnsafeMutablePointer<Float>
    let mask: Int
    /// Where the next frame is written.
    var write: Int
    /// The delay heard now, and the one it fades from while `fadeRemaining` > 0.
    var current: Int
    var previous: Int
    var fadeRemaining: Int
    /// Frames of silence written since the last signal: once it covers every delay the line
    /// may read, a cycle without a source is skipped, as its ring would only give silence back.
    var silentRun: Int
    /// Whether the last cycle wrote `output`; false when it was skipped.
    var audible: Bool
}

/// One compensation delay in a plan: a delayed connection (the source's output buffer) or the
/// outside signal entering an app input (the backend's buffer for that port this cycle), the
/// line, the delay this plan wants and the buffer the delayed signal is written to (which the
/// input's mix reads instead of the source's). `BitwiseCopyable`: no reference on the audio path.
struct DelayStep: BitwiseCopyable {
    let state: UnsafeMutablePointer<CompensationState>
    /// A connection's source; unused for an outside signal.
    let source: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let delay: Int
    /// For an outside signal: its index in the plan's `externalInputs`; -1 for a connection.
    let externalIndex: Int32

    /// Frames over which a change of delay fades from the old tap to the new one (~10 ms at 48 kHz).
    static let fadeFrames = 512

    /// Writes this cycle's `source` (nil: silence) into the ring and the delayed signal into
    /// `output`, unless the line holds only silence and no source comes, which leaves `output`
    /// as it was and the line not `audible`.
    /// - Realtime: safe.
    @inline(__always)
    func run(_ source: UnsafePointer<Float>?, frames: Int) {
        let line = state
        let ring = line.pointee.ring, mask = line.pointee.mask
        let write = line.pointee.write
        if let source {
            line.pointee.silentRun = 0
            let first = min(frames, mask + 1 - write)
            (ring + write).update(from: source, count: first)
            if first < frames { ring.update(from: source + first, count: frames - first) }
        } else {
            let reach = max(delay, line.pointee.current, line.pointee.previous)
            if line.pointee.silentRun >= reach && line.pointee.fadeRemaining == 0 {
                // Every tap reads silence: a new delay needs no fade.
                line.pointee.current = delay
                line.pointee.audible = false
                return
            }
            let first = min(frames, mask + 1 - write)
            (ring + write).update(repeating: 0, count: first)
            if first < frames { ring.update(repeating: 0, count: frames - first) }
            line.pointee.silentRun = min(line.pointee.silentRun + frames, mask + 1)
        }
        line.pointee.audible = true
        // The new delay arrives with the plan; an earlier fade finishes first.
        if delay != line.pointee.current && line.pointee.fadeRemaining == 0 {
            line.pointee.previous = line.pointee.current
            line.pointee.current = delay
            line.pointee.fadeRemaining = Self.fadeFrames
        }
        let current = line.pointee.current
        let fading = line.pointee.fadeRemaining
        if fading == 0 {
            let read = (write - current) & mask
            let head = min(frames, mask + 1 - read)
            output.update(from: ring + read, count: head)
            if head < frames { (output + head).update(from: ring, count: frames - head) }
        } else {
            let previous = line.pointee.previous
            let step = 1 / Float(Self.fadeFrames)
            for frame in 0..<frames {
                let remaining = max(fading - frame, 0)
                let old = Float(remaining) * step
                let position = write + frame
                output[frame] = ring[(position - current) & mask] * (1 - old) + ring[(position - previous) & mask] * old
            }
            line.pointee.fadeRemaining = max(fading - frames, 0)
        }
        line.pointee.write = (write + frames) & mask
    }
}

/// The compensation lines of one plan: per connection, and per app input for the outside
/// signal entering it (``GraphLatency/outsideDelay(_:)``); nil where nothing is delayed.
public struct CompensationLineSet {
    /// By connection, in graph order.
    public var connections: [CompensationLine?]
    /// By app input, every app's inputs in app order (as ``PlanCompiler`` numbers them).
    public var outside: [CompensationLine?]

    /// No compensation anywhere.
    public static func none(_ graph: Graph) -> CompensationLineSet {
        CompensationLineSet(connections: Array(repeating: nil, count: graph.connections.count),
                            outside: Array(repeating: nil, count: graph.apps.reduce(0) { $0 + $1.layout.inputs.count }))
    }

    var all: [CompensationLine] { connections.compactMap { $0 } + outside.compactMap { $0 } }
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
