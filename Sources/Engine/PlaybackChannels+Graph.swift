import AudioGraph
import OfflineBackend

extension PlaybackChannels {
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
}
