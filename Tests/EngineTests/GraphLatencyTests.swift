import AudioGraph
import RenderCore
import Engine
import GraphFormat
import Testing

/// The arithmetic of plugin delay compensation and of what JACK is told (docs/latency.md), on
/// built-in apps given latencies by hand: `a` and `b` in a chain beside a direct path from `tone`
/// into the mixer, and `fx` after the mixer.
@Suite("Graph latency: where paths meet, and the ranges along them")
struct GraphLatencyTests {
    static let text = """
        { "format": "iaa-graph/1", "name": "paths",
          "apps": [ { "id": "tone", "plugin": "builtin:oscillator" },
                    { "id": "a", "plugin": "builtin:passthrough" }, { "id": "b", "plugin": "builtin:passthrough" },
                    { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } },
                    { "id": "fx", "plugin": "builtin:passthrough" } ],
          "connections": [ { "from": "tone:out", "to": "a:in" }, { "from": "a:out", "to": "b:in" },
                           { "from": "b:out", "to": "mix:in_1" }, { "from": "tone:out", "to": "mix:in_2" },
                           { "from": "mix:out", "to": "fx:in" } ] }
        """
    /// tone, a, b, mix, fx.
    static let own = [0, 100, 28, 0, 64]

    func graph() throws -> Graph {
        try #require(GraphFile.load(text: Self.text, file: "paths.json", registry: GraphLoading.registry).graph)
    }

    @Test("every app's inputs meet at its latest path; only the earlier connection is delayed")
    func aligned() throws {
        let graph = try graph()
        let latency = GraphLatency(graph, own: Self.own)
        #expect(latency.arrival == [0, 0, 100, 128, 128])
        #expect((0..<5).map(latency.output) == [0, 100, 128, 128, 192])
        // Connections in file order: tone→a, a→b, b→mix, tone→mix (the direct path), mix→fx.
        #expect(latency.delay == [0, 0, 0, 128, 0])
    }

    @Test("without compensation nothing is delayed, and an app's arrival is its latest path")
    func notCompensated() throws {
        let latency = GraphLatency(try graph(), own: Self.own, compensates: false)
        #expect(latency.delay == [0, 0, 0, 0, 0])
        #expect(latency.arrival == [0, 0, 100, 128, 128])
    }

    @Test("JACK's ranges: one value where paths are aligned, the spread of the paths where they are not")
    func ranges() throws {
        let graph = try graph()
        for compensates in [true, false] {
            let latency = GraphLatency(graph, own: Self.own, compensates: compensates)
            let ports = PlanCompiler.externalPorts(of: graph)
            let paths = LatencyPaths(graph, latency: latency, ports: ports)
            let fxOut = try #require(ports.firstIndex { $0.appID == "fx" && $0.direction == .output })
            let toneOut = try #require(ports.firstIndex { $0.appID == "tone" && $0.direction == .output })
            // Nothing outside feeds the graph: the oscillator starts the clock.
            let capture = paths.captureRanges { _ in nil }
            #expect(capture[toneOut] == 0...0)
            #expect(capture[fxOut] == (compensates ? 192...192 : 64...192))
            // Played 512 frames after fx's output leaves: a's input is heard that much later,
            // plus everything after it.
            let aIn = try #require(ports.firstIndex { $0.appID == "a" && $0.direction == .input })
            let playback = paths.playbackRanges { $0 == fxOut ? 512...512 : nil }
            #expect(playback[aIn] == 704...704)
            // An outside signal entering the mixer is delayed by 128 to meet the chain when
            // compensated, so it is heard that much later.
            let mixIn2 = try #require(ports.firstIndex { $0.appID == "mix" && $0.portName == "in_2" })
            #expect(playback[mixIn2] == (compensates ? 704...704 : 576...576))
            let toneIn = capture.indices.filter { ports[$0].direction == .input }
            #expect(toneIn.allSatisfy { capture[$0] == nil }, "capture ranges are set on outputs only")
        }
    }

    @Test("an outside signal meets the paths inside: delayed by its app's arrival, so JACK's range at the end is one value")
    func outsideSignal() throws {
        // The graph above without its oscillator: a and b in a chain into the mixer's in_1,
        // whose in_2 and a's input are fed from outside.
        let graph = try #require(GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "outside",
              "apps": [ { "id": "a", "plugin": "builtin:passthrough" }, { "id": "b", "plugin": "builtin:passthrough" },
                        { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } },
                        { "id": "fx", "plugin": "builtin:passthrough" } ],
              "connections": [ { "from": "a:out", "to": "b:in" }, { "from": "b:out", "to": "mix:in_1" },
                               { "from": "mix:out", "to": "fx:in" } ] }
            """, file: "outside.json", registry: GraphLoading.registry).graph)
        let ports = PlanCompiler.externalPorts(of: graph)
        func port(_ app: String, _ name: String) throws -> Int {
            try #require(ports.firstIndex { $0.appID == app && $0.portName == name })
        }
        let (aIn, mixIn2, bIn, fxOut) = (try port("a", "in"), try port("mix", "in_2"), try port("b", "in"), try port("fx", "out"))
        for compensates in [true, false] {
            let latency = GraphLatency(graph, own: [100, 28, 0, 64], compensates: compensates)
            // a starts the graph (0); b's paths arrive at 100 (through a), the mixer's at 128.
            #expect((0..<4).map(latency.outsideDelay) == (compensates ? [0, 100, 128, 128] : [0, 0, 0, 0]))
            // The same capture, 256 frames old, into a's input and the mixer's: the chain's
            // 128 and the mixer's outside signal delayed by 128 leave together.
            let paths = LatencyPaths(graph, latency: latency, ports: ports)
            let capture = paths.captureRanges { [aIn, mixIn2].contains($0) ? 256...256 : nil }
            #expect(capture[fxOut] == (compensates ? 448...448 : 320...448))
            // Into b alone: delayed to meet what comes through a, which nothing feeds, so its
            // path starts at 0 and leaves fx at 192.
            let intoB = paths.captureRanges { $0 == bIn ? 256...256 : nil }
            #expect(intoB[fxOut] == (compensates ? 192...448 : 192...348))
            // Backwards: what enters b's port is heard after fx (512), fx, b and its own delay.
            let playback = paths.playbackRanges { $0 == fxOut ? 512...512 : nil }
            #expect(playback[bIn] == (compensates ? 704...704 : 604...604))
        }
    }
}
