import AudioGraph
import ControlSocket

/// What happens to a link's bridge, as its supervisor and the engine see it.
public enum BridgeEvent: Equatable, Sendable {
    /// The bridge process started with this pid.
    case started(pid: Int32)
    /// It printed a line.
    case line(BridgeSignal)
    /// It ended (or could not start): why, in words.
    case exited(String)
    /// It starts again after this many seconds.
    case restartScheduled(after: Double)
    /// The engine bound the bridge's JACK client to the link's app (true) or saw it leave.
    case bound(Bool)
}

/// One link end's state, derived from its bridge's events alone (so it is tested from recorded
/// output, without a network): what `status` shows and what `linkState` events announce.
public struct LinkMonitor: Sendable {
    /// In `status`'s words.
    public typealias State = AppStatus.Link.State

    /// A change of state, with what caused it in words.
    public struct Change: Equatable, Sendable {
        public let from: State
        public let to: State
        public let reason: String

        public init(from: State, to: State, reason: String) {
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    public let link: LinkEnd
    public private(set) var state = State.starting
    /// When `state` was entered (the session clock).
    public private(set) var since: Double
    public private(set) var pid: Int32?
    /// Times the bridge was started again after it ended.
    public private(set) var restarts = 0
    /// Times audio stopped crossing while the link was running (the sender went, the buffer ran
    /// dry, the bridge ended).
    public private(set) var dropouts = 0
    /// Quarter seconds in which the receive buffer ran dry (silence filled the gap).
    public private(set) var underruns = 0
    /// Seconds from the sender's first packet to the lock, the last time it locked.
    public private(set) var lockedAfter: Double?
    public private(set) var sender: (address: String, channels: Int, sampleRate: Int)?
    /// The last quarter second's resampler figures (receiving end, while running).
    public private(set) var statistics: (error: Double, ratio: Double, fewestFrames: Int)?
    /// Why the bridge last ended, and its last line of its own before that.
    public private(set) var lastExit: String?
    public private(set) var lastMessage: String?
    /// Whether the engine has bound the bridge's JACK client to the app.
    public private(set) var bound = false
    private var heardSenderAt: Double?

    public init(link: LinkEnd, at time: Double) {
        self.link = link
        since = time
    }

    /// Takes one event; returns the change of state it made, if any.
    public mutating func note(_ event: BridgeEvent, at time: Double) -> Change? {
        switch event {
        case .started(let pid):
            self.pid = pid
            sender = nil
            if state == .restarting { restarts += 1 }
            return move(to: .starting, at: time, "\(link.executableName) started (pid \(pid))")
        case .exited(let why):
            pid = nil
            bound = false
            lastExit = why
            statistics = nil
            return move(to: .restarting, at: time, why)
        case .restartScheduled(let seconds):
            return move(to: .restarting, at: time, "\(lastExit ?? "\(link.executableName) ended"); starting again in \(Self.seconds(seconds))")
        case .bound(let isBound):
            bound = isBound
            guard link.direction == .send else { return nil }
            return isBound ? move(to: .running, at: time, "sending \(Self.channels(link.channels)) to \(link.address)")
                : move(to: .starting, at: time, "its JACK client left")
        case .line(let signal):
            return take(signal, at: time)
        }
    }

    private mutating func take(_ signal: BridgeSignal, at time: Double) -> Change? {
        switch signal {
        case .waiting:
            sender = nil
            return move(to: .waiting, at: time, "listening on \(link.address) for a sender")
        case .sender(let address, let channels, let rate):
            sender = (address, channels, rate)
            heardSenderAt = time
            return move(to: .locking, at: time, "sender \(address): \(Self.channels(channels)) at \(rate) Hz; locking to its clock")
        case .syncing:
            if heardSenderAt == nil { heardSenderAt = time }
            return move(to: .locking, at: time, "locking to the sender's clock")
        case .receiving:
            lockedAfter = heardSenderAt.map { time - $0 }
            heardSenderAt = nil
            return move(to: .running, at: time, "locked" + (lockedAfter.map { " after \(Self.seconds($0))" } ?? ""))
        case .senderEnded:
            return move(to: .lost, at: time, "the sender stopped")
        case .pause(let seconds):
            return move(to: .lost, at: time, "the receiver lost its lock; it locks again in \(Self.seconds(seconds))")
        case .fatal:
            lastMessage = "Fatal error, terminating."
            return nil
        case .statistics(_, let error, let ratio, let fewest):
            statistics = (error, ratio, fewest)
            if fewest < 0 {
                underruns += 1
                return move(to: .lost, at: time, "the receive buffer ran dry (\(-fewest) frames short): is the sender still there?")
            }
            if state == .lost { return move(to: .running, at: time, "the receive buffer holds audio again") }
            return nil
        case .other(let text):
            if !text.isEmpty { lastMessage = text }
            return nil
        }
    }

    /// The engine ends the bridge to start it again (``LinkSupervisor``): `reason` says why, and
    /// is its last exit until it starts.
    public mutating func restarting(at time: Double, _ reason: String) -> Change? {
        lastExit = reason
        statistics = nil
        // The sender was this run's: the next run's is its own.
        sender = nil
        return move(to: .restarting, at: time, reason)
    }

    private mutating func move(to next: State, at time: Double, _ reason: String) -> Change? {
        guard next != state else { return nil }
        if state == .running { dropouts += 1 }
        let change = Change(from: state, to: next, reason: reason)
        state = next
        since = time
        return change
    }

    /// `1 channel`, `2 channels`.
    static func channels(_ count: Int) -> String { count == 1 ? "1 channel" : "\(count) channels" }

    /// `0.5 s`, `2 s`.
    static func seconds(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) s" : "\(rounded) s"
    }
}
