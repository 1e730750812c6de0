import AudioGraph

/// Which app outputs are heard on each playback channel, as the graph's external connections say.
///
/// Offline there is no sound card, so `@playback` and `system:playback_N` become the channels of
/// the rendered file: several app ports pair with channels in order, a single one feeds them all.
public struct PlaybackChannels: Sendable, Equatable {
    /// For each channel, the app outputs (app id, port name) summed into it.
    public let channels: [[PortReference]]

    public struct PortReference: Sendable, Hashable {
        public let app: String
        public let port: String

        public init(app: String, port: String) {
            self.app = app
            self.port = port
        }
    }

    public init(channels: [[PortReference]]) {
        self.channels = channels
    }

    /// The channels of `graph`'s playback connections, `channelCount` channels wide.
    /// Returns nil when nothing in the graph goes to playback.
    public static func of(_ graph: Graph, channelCount: Int = 2) -> PlaybackChannels? {
        var channels = Array(repeating: [PortReference](), count: channelCount)
        var any = false
        for connection in graph.externalConnections where connection.direction == .toExternal {
            let ports = connection.ports.map { address -> PortReference in
                let app = graph.apps[address.app]
                return PortReference(app: app.id, port: app.layout.outputs[address.port].name)
            }
            switch connection.endpoint {
            case .physicalPlayback:
                if ports.count == 1 {
                    for channel in channels.indices { channels[channel].append(ports[0]) }
                } else {
                    for (channel, port) in zip(channels.indices, ports) { channels[channel].append(port) }
                }
                any = true
            case .port(let name):
                guard let channel = playbackIndex(name), channel < channelCount else { continue }
                channels[channel].append(contentsOf: ports)
                any = true
            case .physicalCapture, .physicalMIDICapture:
                continue
            }
        }
        return any ? PlaybackChannels(channels: channels) : nil
    }

    /// Channels chosen by hand (`--port APP:PORT`), one port per channel.
    public static func ports(_ references: [PortReference]) -> PlaybackChannels {
        PlaybackChannels(channels: references.map { [$0] })
    }

    /// `system:playback_3` → 2.
    static func playbackIndex(_ name: String) -> Int? {
        let prefix = "system:playback_"
        guard name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)), number >= 1 else { return nil }
        return number - 1
    }
}
