import AudioGraph
import Engine
import NodeKit
import Nodes
import OfflineBackend
import Testing

/// Which app outputs the offline backend puts on each channel of a rendered file.
@Suite("PlaybackChannels.of")
struct PlaybackChannelsTests {
    typealias Reference = PlaybackChannels.PortReference

    /// The built-ins plus `test:stereo`, a node with outputs `out_1` and `out_2` to glob over.
    static let registry: NodeRegistry = {
        var registry = NodeRegistry(BuiltinNodes.types)
        registry.register(NodeType(
            id: "test:stereo", displayName: "Stereo", summary: "Two outputs.",
            layout: { _ in NodeLayout(inputs: [], outputs: [.output("out_1"), .output("out_2")]) },
            make: { _ in PassthroughNode() }))
        return registry
    }()

    /// The channels of a graph with an oscillator `osc`, a stereo `st` and the given JACK connections.
    static func channels(_ jack: String, channelCount: Int = 2) throws -> PlaybackChannels? {
        let graph = try loadGraph(graphJSON(
            apps: """
                { "id": "osc", "plugin": "builtin:oscillator" },
                { "id": "st", "plugin": "test:stereo" }
                """,
            jack: jack), registry: registry)
        return PlaybackChannels.of(graph, channelCount: channelCount)
    }

    @Test("@playback with one port feeds that port to both channels")
    func monoToBoth() throws {
        let channels = try Self.channels(#"{ "from": "osc:out", "to": "@playback" }"#)
        let osc = Reference(app: "osc", port: "out")
        #expect(channels == PlaybackChannels(channels: [[osc], [osc]]))
    }

    @Test("@playback with two ports (st:out_*) pairs them with the channels in order")
    func pairsInOrder() throws {
        let channels = try Self.channels(#"{ "from": "st:out_*", "to": "@playback" }"#)
        #expect(channels == PlaybackChannels(channels: [
            [Reference(app: "st", port: "out_1")], [Reference(app: "st", port: "out_2")],
        ]))
    }

    @Test("system:playback_2 feeds channel 1 only")
    func namedPlaybackPort() throws {
        let channels = try Self.channels(#"{ "from": "osc:out", "to": "system:playback_2" }"#)
        #expect(channels == PlaybackChannels(channels: [[], [Reference(app: "osc", port: "out")]]))
    }

    @Test("ports sharing a channel are all summed into it")
    func sharedChannel() throws {
        let channels = try Self.channels("""
            { "from": "osc:out", "to": "system:playback_1" },
            { "from": "st:out_1", "to": "system:playback_1" }
            """)
        #expect(channels?.channels.first == [Reference(app: "osc", port: "out"), Reference(app: "st", port: "out_1")])
        #expect(channels?.channels.last == [])
    }

    @Test("a graph with nothing going to playback has no channels")
    func nothingToPlayback() throws {
        #expect(try Self.channels(#"{ "from": "osc:out", "to": "jack_rec:in_1" }"#) == nil)
        #expect(try Self.channels(#"{ "from": "osc:out", "to": "system:playback_3" }"#) == nil,
                "a playback port beyond the channel count is not heard")
    }

    @Test("a wider bus spreads a mono @playback to every channel")
    func widerBus() throws {
        let channels = try #require(try Self.channels(#"{ "from": "osc:out", "to": "@playback" }"#, channelCount: 4))
        #expect(channels.channels.count == 4)
        #expect(channels.channels.allSatisfy { $0 == [Reference(app: "osc", port: "out")] })
    }
}
