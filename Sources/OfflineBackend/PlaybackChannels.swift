/// Which app outputs are heard on each playback channel: as the graph's external connections
/// say (the engine reads them), or chosen by hand.
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

    /// Channels chosen by hand (`--port APP:PORT`), one port per channel.
    public static func ports(_ references: [PortReference]) -> PlaybackChannels {
        PlaybackChannels(channels: references.map { [$0] })
    }

    /// `system:playback_3` → 2.
    public static func playbackIndex(_ name: String) -> Int? {
        let prefix = "system:playback_"
        guard name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)), number >= 1 else { return nil }
        return number - 1
    }
}
