/// One connection's compensation delay line (``GraphLatency``): a ring the audio thread writes
/// the source's output into and reads back `delay` frames later.
///
/// The line outlives plans, like a node slot: a plan that keeps the connection keeps its line and
/// the audio it holds, so a change of delay (a node's latency moved) fades from the old tap to
/// the new one instead of starting from silence. Its ring has room for twice what it was made
/// for, so most changes fit; one that does not gets a new line. Control side creates and frees;
/// the state is the audio thread's.
public final class CompensationLine {
    package let state: UnsafeMutablePointer<CompensationState>
    /// Frames the ring holds; a power of two.
    let capacity: Int
    private let ring: UnsafeMutablePointer<Float>
    /// Control side: the longest delay any plan asked of this line. The audio thread may still
    /// read that far back while it fades (it finishes a fade before starting the next), so a
    /// plan may reuse the line only if the ring holds this and the new delay.
    private(set) var reach: Int

    /// A line with room for `delay` frames of delay behind cycles of `maximumFrames`, starting
    /// at `delay` (`aligned`: nothing has played yet) or at 0, fading to it over its first cycles.
    package init(delay: Int, maximumFrames: Int, aligned: Bool) {
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
    package func take(_ delay: Int, maximumFrames: Int) -> Bool {
        guard max(delay, reach) + maximumFrames <= capacity else { return false }
        reach = max(delay, reach)
        return true
    }
}

/// The audio thread's state of a ``CompensationLine``.
package struct CompensationState {
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
package struct DelayStep: BitwiseCopyable {
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

    package init(state: UnsafeMutablePointer<CompensationState>, source: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, delay: Int, externalIndex: Int32) {
        self.state = state
        self.source = source
        self.output = output
        self.delay = delay
        self.externalIndex = externalIndex
    }
}

/// The compensation lines of one plan: per connection, and per app input for the outside
/// signal entering it (``GraphLatency/outsideDelay(_:)``); nil where nothing is delayed.
public struct CompensationLineSet {
    /// By connection, in graph order.
    public var connections: [CompensationLine?]
    /// By app input, every app's inputs in app order (as ``PlanCompiler`` numbers them).
    public var outside: [CompensationLine?]

    package var all: [CompensationLine] { connections.compactMap { $0 } + outside.compactMap { $0 } }

    package init(connections: [CompensationLine?], outside: [CompensationLine?]) {
        self.connections = connections
        self.outside = outside
    }
}
