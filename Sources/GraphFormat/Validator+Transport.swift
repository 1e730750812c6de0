import AudioGraph

extension Validator {
    /// Tempos a graph may ask for, in beats per minute: the span DAWs and JACK clients handle well.
    static let tempoRange: ClosedRange<Double> = 20...300
    /// Beats per bar a graph may ask for (1/4 to 16/4).
    static let beatsPerBarRange: ClosedRange<Double> = 1...16

    /// The graph's host transport: the written settings, range-checked, over the defaults.
    mutating func transport() -> TransportConfiguration {
        var transport = TransportConfiguration()
        let written = description.transport
        if let tempo = written.tempo {
            if withinRange(Self.tempoRange.contains(tempo), at: "/transport/tempo",
                           "\"tempo\" is \(Self.text(tempo)) BPM, outside its range 20...300",
                           hint: "use a tempo from 20 to 300 beats per minute") {
                transport.tempo = tempo
            }
        }
        if let beats = written.beatsPerBar {
            if withinRange(Self.beatsPerBarRange.contains(beats), at: "/transport/beatsPerBar",
                           "\"beatsPerBar\" is \(Self.text(beats)), outside its range 1...16",
                           hint: "use from 1 to 16 beats per bar (4 for 4/4)") {
                transport.beatsPerBar = beats
            }
        }
        if let playing = written.playing { transport.playing = playing }
        if let master = written.timebaseMaster { transport.timebaseMaster = master }
        return transport
    }
}
