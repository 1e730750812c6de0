/// What one line of a bridge's output means. zita-n2j prints its progress as plain lines
/// (`Waiting for info packet...`, `Syncing...`, `Receiving.`, `Transmitter terminated.`) and,
/// with `--info`, four figures four times a second: JACK periods in the quarter second, the
/// resampler loop's mean error in frames, its mean ratio correction, and the fewest frames the
/// receive buffer held (negative: it ran dry, and silence filled the gap). zita-j2n prints only
/// errors.
public enum BridgeSignal: Equatable, Sendable {
    /// The receiver listens and no sender has announced itself yet.
    case waiting
    /// A sender announced itself: its address, channels and rate.
    case sender(address: String, channels: Int, sampleRate: Int)
    /// The receiver is locking onto the sender's clock.
    case syncing
    /// Locked: the sender's audio is heard.
    case receiving
    /// The sender said goodbye, or went silent for a second.
    case senderEnded
    /// The receiver lost its lock and waits this long before locking again.
    case pause(seconds: Double)
    /// The bridge gives up (its JACK server went away, the period changed).
    case fatal
    /// One quarter second of `--info` figures.
    case statistics(cycles: Int, error: Double, ratio: Double, fewestFrames: Int)
    /// Anything else, as printed (an error of the bridge's own, such as a failed socket).
    case other(String)

    public init(line raw: Substring) {
        let line = raw.trimmed()
        switch line {
        case "Waiting for info packet...": self = .waiting
        case "Syncing...": self = .syncing
        case "Receiving.": self = .receiving
        case "Transmitter terminated.": self = .senderEnded
        case "Fatal error, terminating.": self = .fatal
        default: self = Self.parsed(line) ?? .other(String(line))
        }
    }

    private static func parsed(_ line: Substring) -> BridgeSignal? {
        let words = line.split(separator: " ")
        if line.hasPrefix("From "), words.count == 7, words[2] == ":", words[4] == "chan,", words[6] == "Hz",
           let channels = Int(words[3]), let rate = Int(words[5]) {
            return .sender(address: String(words[1]), channels: channels, sampleRate: rate)
        }
        if line.hasPrefix("Waiting for "), words.count == 4, words[3] == "seconds...", let seconds = Double(words[2]) {
            return .pause(seconds: seconds)
        }
        if words.count >= 4, let cycles = Int(words[0]), let error = Double(words[1]), let ratio = Double(words[2]),
           let fewest = Int(words[3]) {
            return .statistics(cycles: cycles, error: error, ratio: ratio, fewestFrames: fewest)
        }
        return nil
    }
}

extension Substring {
    /// Without the blanks zita-n2j pads its figures with (and a terminal's carriage return).
    fileprivate func trimmed() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
