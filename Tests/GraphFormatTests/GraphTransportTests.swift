import AudioGraph
import GraphFormat
import Testing

@Suite("The transport block of graph files")
struct GraphTransportTests {
    static func load(transport: String) -> GraphLoadResult {
        TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "t",
              "transport": \(transport),
              "apps": [] }
            """)
    }

    @Test("the transport block sets tempo, meter, playing and timebase master")
    func values() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/all-fields.json").graph)
        #expect(graph.transport == TransportConfiguration(tempo: 96.5, beatsPerBar: 3, playing: true, timebaseMaster: true))
    }

    @Test("absent settings keep the defaults: 120 BPM, 4 beats per bar, stopped, not timebase master")
    func defaults() throws {
        let graph = try #require(TestSupport.load("graphs/demo.json").graph)
        #expect(graph.transport == TransportConfiguration())
        let partial = try #require(Self.load(transport: #"{ "tempo": 90 }"#).graph)
        #expect(partial.transport == TransportConfiguration(tempo: 90))
    }

    @Test("the ranges' ends are allowed", arguments: [(20.0, 1.0), (300, 16), (133.33, 7)])
    func bounds(tempo: Double, beats: Double) throws {
        let graph = try #require(Self.load(transport: #"{ "tempo": \#(tempo), "beatsPerBar": \#(beats) }"#).graph)
        #expect(graph.transport.tempo == tempo && graph.transport.beatsPerBar == beats)
    }

    @Test("settings outside their range, of the wrong type or unknown are located errors")
    func errors() {
        let result = Self.load(transport: """
            { "tempo": 19.5, "beatsPerBar": 17, "playing": "yes", "timebaseMaster": 1, "bpm": 120 }
            """)
        #expect(result.errors.map(\.code) == [.outOfRange, .outOfRange, .wrongType, .wrongType, .unknownKey])
        #expect(result.errors.map(\.pointer) == [
            "/transport/tempo", "/transport/beatsPerBar", "/transport/playing", "/transport/timebaseMaster", "/transport/bpm",
        ])
        #expect(result.errors.first?.message == "\"tempo\" is 19.5 BPM, outside its range 20...300")
        #expect(result.errors[1].hint == "use from 1 to 16 beats per bar (4 for 4/4)")
        #expect(result.errors.last?.hint == "allowed keys: tempo, beatsPerBar, playing, timebaseMaster")
        #expect(Self.load(transport: "[]").errors.map(\.code) == [.wrongType])
        #expect(Self.load(transport: #"{ "tempo": "120bpm" }"#).errors.map(\.code) == [.wrongType])
    }

    @Test("a misspelt top-level transport key gets a did-you-mean")
    func misspelt() {
        let result = TestSupport.load(json: #"{ "format": "iaa-graph/1", "name": "t", "transprot": {}, "apps": [] }"#)
        #expect(result.errors.map(\.hint) == ["did you mean \"transport\"?"])
    }
}
