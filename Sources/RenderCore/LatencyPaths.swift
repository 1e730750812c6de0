/// The graph's paths from JACK port to JACK port, for the backend's latency callback: what JACK
/// is told about every port the engine exposes, computed along the connections that really
/// exist (not every input to every output, which is what JACK assumes of a client that does not
/// say), with each node's latency and each connection's compensation delay.
///
/// JACK's convention: an output port's capture latency is how long ago its signal entered the
/// JACK graph at the capture side; an input port's playback latency is how long until what it
/// receives leaves at the playback side. So the capture pass runs forward from our input ports'
/// capture ranges (JACK sets those from whatever feeds them) and the playback pass backwards
/// from our output ports' playback ranges. Built on the control side; the passes run on JACK's
/// notification thread (never the audio thread).
public struct LatencyPaths: Sendable, Equatable {
    /// One app: its own latency, where its signal comes from and which of the plan's external
    /// ports (`RenderPlan.externalPorts` indices) it has.
    package struct Entry: Sendable, Equatable {
        package var own: Int
        /// A program app: its own latency is the program's (its sound arrives that late), which
        /// counts forwards from the program's port; backwards it is not the engine's to add.
        package var program: Bool
        /// Connections into the app that count (not the previous cycle's): source app, delay.
        package var sources: [Link] = []
        /// Connections out of the app that count: destination app, delay.
        package var destinations: [Link] = []
        /// Its exposed audio inputs whose outside signal enters here (not a program's own port,
        /// whose latency is the app's `own`), with the delay compensation gives that signal, and
        /// every exposed audio input.
        package var entryInputs: [Entrance] = []
        package var inputs: [Entrance] = []
        package var outputs: [Int] = []

        package init(own: Int, program: Bool) {
            self.own = own
            self.program = program
        }
    }

    /// One connection seen from one end: the app at the other end, and its compensation delay.
    package struct Link: Sendable, Equatable {
        package var app: Int
        package var delay: Int

        package init(app: Int, delay: Int) {
            self.app = app
            self.delay = delay
        }
    }

    /// One exposed input port (its external port index) and the delay its outside signal gets.
    package struct Entrance: Sendable, Equatable {
        package var port: Int
        package var delay: Int

        package init(port: Int, delay: Int) {
            self.port = port
            self.delay = delay
        }
    }

    let entries: [Entry]
    /// Apps, each after the apps that feed it.
    let order: [Int]
    /// How many external ports the plan has (audio and MIDI).
    public let portCount: Int

    /// Made by the plan compiler from a graph (AudioGraph's `LatencyPaths(graph, latency:, ports:)`).
    package init(entries: [Entry], order: [Int], portCount: Int) {
        self.entries = entries
        self.order = order
        self.portCount = portCount
    }

    /// The capture range of every exposed output port (by external port index; nil for the
    /// others), given the capture range JACK holds for each of our connected input ports (nil
    /// for one nothing feeds).
    public func captureRanges(inputs: (Int) -> ClosedRange<Int>?) -> [ClosedRange<Int>?] {
        var arrival = [ClosedRange<Int>](repeating: 0...0, count: entries.count)
        var result = [ClosedRange<Int>?](repeating: nil, count: portCount)
        for app in order {
            let entry = entries[app]
            var range: ClosedRange<Int>? = nil
            for port in entry.entryInputs {
                range = Self.union(range, inputs(port.port).map { Self.shifted($0, by: port.delay) })
            }
            for source in entry.sources {
                range = Self.union(range, Self.shifted(arrival[source.app], by: entries[source.app].own + source.delay))
            }
            arrival[app] = range ?? 0...0
            let leaving = Self.shifted(arrival[app], by: entry.own)
            for port in entry.outputs { result[port] = leaving }
        }
        return result
    }

    /// The playback range of every exposed input port (by external port index; nil for the
    /// others), given the playback range JACK holds for each of our connected output ports.
    public func playbackRanges(outputs: (Int) -> ClosedRange<Int>?) -> [ClosedRange<Int>?] {
        // Per app: how long after its output what it writes is heard.
        var leaving = [ClosedRange<Int>](repeating: 0...0, count: entries.count)
        var result = [ClosedRange<Int>?](repeating: nil, count: portCount)
        for app in order.reversed() {
            let entry = entries[app]
            var range: ClosedRange<Int>? = nil
            for port in entry.outputs { range = Self.union(range, outputs(port)) }
            for destination in entry.destinations {
                let own = entries[destination.app].program ? 0 : entries[destination.app].own
                range = Self.union(range, Self.shifted(leaving[destination.app], by: own + destination.delay))
            }
            leaving[app] = range ?? 0...0
            let heard = Self.shifted(leaving[app], by: entry.program ? 0 : entry.own)
            for port in entry.inputs { result[port.port] = Self.shifted(heard, by: port.delay) }
        }
        return result
    }

    static func union(_ a: ClosedRange<Int>?, _ b: ClosedRange<Int>?) -> ClosedRange<Int>? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
    }

    static func shifted(_ range: ClosedRange<Int>, by frames: Int) -> ClosedRange<Int> {
        (range.lowerBound + frames)...(range.upperBound + frames)
    }
}
