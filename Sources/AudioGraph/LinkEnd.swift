/// One end of an audio link between two machines: the graph's `link` block. A link end is a
/// program app whose program is a zita-njbridge process the engine starts and keeps running
/// (`zita-j2n` sends the app's inputs over UDP, `zita-n2j` receives into its outputs with
/// adaptive resampling). docs/links.md has the design.
public struct LinkEnd: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable {
        /// The graph's audio into `in_K` leaves for the other machine.
        case send
        /// Audio from the other machine comes out of `out_K`.
        case receive
    }

    /// How `zita-j2n` puts samples on the wire (zita-n2j reads any of them).
    public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
        case int16 = "16bit"
        case int24 = "24bit"
        case float
    }

    public let direction: Direction
    /// The receiving machine's address (both ends name the receiver, as zita-njbridge does): a
    /// host name, an IPv4 address, or an IPv6 one. The receiver listens on it.
    public let host: String
    /// The UDP port; the receiver also binds the next one (zita-n2j's sync socket).
    public let port: Int
    public let channels: Int
    /// Receive: extra buffering beyond the two periods, in milliseconds (zita-n2j's `--buff`).
    public let bufferMilliseconds: Int
    /// Send: the sample format on the wire.
    public let format: SampleFormat
    /// Receive: the only sender's address audio is taken from (zita-n2j plays whoever reaches its
    /// port first); nil takes any.
    public let from: String?

    public init(direction: Direction, host: String, port: Int, channels: Int = 2, bufferMilliseconds: Int = 10,
                format: SampleFormat = .int24, from: String? = nil) {
        self.direction = direction
        self.host = host
        self.port = port
        self.channels = channels
        self.bufferMilliseconds = bufferMilliseconds
        self.format = format
        self.from = from
    }

    /// The most channels zita-njbridge carries.
    public static let maximumChannels = 64
    public static let bufferRange = 0...4000

    /// The bridge program this end runs.
    public var executableName: String { direction == .send ? "zita-j2n" : "zita-n2j" }

    /// The JACK client name the engine gives the bridge of app `app` (the program binding
    /// matches it exactly; the engine also checks that the client is the process it started).
    public static func bridgeClient(of app: String) -> String { app + "-link" }

    /// `host:port` as written, IPv6 in brackets.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The bridge's arguments after its path: client name, server, channels, then the address.
    public func arguments(client: String, server: String?) -> [String] {
        var arguments = ["--jname", client]
        if let server { arguments += ["--jserv", server] }
        switch direction {
        case .send:
            arguments += ["--chan", String(channels), "--" + format.rawValue]
        case .receive:
            arguments += ["--chan", channels == 1 ? "1" : "1-\(channels)", "--buff", String(bufferMilliseconds), "--info"]
        }
        return arguments + [host, String(port)]
    }

    /// The latency a receiving end adds between the sender's JACK ports and its own, in frames
    /// at `sampleRate`: the extra buffer. zita-n2j holds the audio that long after a packet
    /// arrives, its resampler's delay included, measured against the sender's timestamps, so the
    /// two machines' periods do not add to it (each machine's own ports already count its
    /// period in JACK's capture and playback latencies). The network's delay is not known to
    /// either end; on a local network it is well under a millisecond. Zero for a sending end:
    /// the receiver counts the link.
    public func latency(sampleRate: Double) -> Int {
        direction == .receive ? Int((Double(bufferMilliseconds) * sampleRate / 1000).rounded()) : 0
    }
}
