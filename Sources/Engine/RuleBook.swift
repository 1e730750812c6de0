/// Where the graph's JACK connection rules stand beyond what JACK itself shows: the pairs
/// someone removed by hand (left alone until the program at their outside end appears again, or
/// the graph is applied: jack-plumbing's moments), and the pairs JACK refused (tried again on
/// the clock, warned about once they keep failing). Pairs are `[source, destination]`. The core
/// asks it what to make and tells it what happened; it holds no port and calls no server.
struct RuleBook {
    /// How long JACK may refuse a rule's connection before it is warned about: a program's
    /// ports exist before it activates, and JACK refuses connections to them until then.
    static let warnAfter: Double = 2

    /// Rule pairs removed by hand.
    private(set) var held: Set<[String]> = []
    /// Rule pairs JACK refused, with when they first failed and whether that was warned about.
    private var failures: [[String]: (since: Double, warned: Bool)] = [:]

    /// Whether any pair is waiting for another try.
    var hasFailures: Bool { !failures.isEmpty }

    /// Whether the engine should try to make `pair` now (not while it is removed by hand).
    func shouldMake(_ pair: [String]) -> Bool { !held.contains(pair) }

    /// Someone removed a rule's pair by hand, or asked for it to be removed.
    mutating func hold(_ pair: [String]) { held.insert(pair) }

    /// `pair` was made again (by hand or by request): a rule stands for it again.
    mutating func unhold(_ pair: [String]) { held.remove(pair) }

    /// The graph is applied again: every rule is made again, removed ones included.
    mutating func releaseAll() { held = [] }

    /// Ports or clients appeared (full port names and client names): pairs removed by hand whose
    /// outside end is among them are made again. `ours` is the engine's `CLIENT:` prefix.
    mutating func release(appeared names: [String], ours: String) {
        held = held.filter { pair in
            let outside = pair.filter { !$0.hasPrefix(ours) }
            return !outside.contains { port in names.contains { $0 == port || port.hasPrefix($0 + ":") } }
        }
    }

    /// `pair` exists now (made, or found made): not failing.
    mutating func made(_ pair: [String]) { failures[pair] = nil }

    /// JACK refused `pair` at `time`; the first refusal's time is kept.
    mutating func refused(_ pair: [String], at time: Double) {
        if failures[pair] == nil { failures[pair] = (time, false) }
    }

    /// Whether a refusal of `pair` should be warned about now: once, after `warnAfter` seconds
    /// of refusals.
    mutating func shouldWarn(_ pair: [String], at time: Double) -> Bool {
        guard let failure = failures[pair], !failure.warned, time - failure.since >= Self.warnAfter else { return false }
        failures[pair]?.warned = true
        return true
    }

    /// Only `current` pairs stand for rules now: a pair whose port went away is pending, neither
    /// failing nor removed.
    mutating func keep(only current: Set<[String]>) {
        failures = failures.filter { current.contains($0.key) }
        held = held.filter(current.contains)
    }
}

/// What the engine knows of the connections to its ports that the server's notifications do not
/// say: which ones it asked for itself (so their notification says `by: iaa`), and every one
/// there is now, whoever made it (what a restarted server gets back).
struct ConnectionLedger {
    /// One request of the engine's not yet notified: a pair made, or removed.
    private struct Request: Hashable {
        let pair: [String]
        let connecting: Bool
    }

    /// Counted: the engine may make, remove and make a pair again before the first notification.
    private var asked: [Request: Int] = [:]
    private(set) var live: Set<[String]> = []

    /// The engine is about to ask for `pair` to be made (`connecting`) or removed.
    mutating func asking(_ pair: [String], connecting: Bool) { asked[Request(pair: pair, connecting: connecting), default: 0] += 1 }

    /// The server refused: no notification will come for that request.
    mutating func refused(_ pair: [String], connecting: Bool) { take(Request(pair: pair, connecting: connecting)) }

    /// The server says `pair` was connected or disconnected; true when the engine asked for it.
    mutating func notified(_ pair: [String], connected: Bool) -> Bool {
        if connected { live.insert(pair) } else { live.remove(pair) }
        return take(Request(pair: pair, connecting: connected))
    }

    /// The connections there were, forgotten: a new server starts with none.
    mutating func takeLive() -> Set<[String]> {
        defer { live = [] }
        return live
    }

    /// Removes one count of `request`; whether there was one.
    @discardableResult
    private mutating func take(_ request: Request) -> Bool {
        guard let count = asked[request] else { return false }
        asked[request] = count > 1 ? count - 1 : nil
        return true
    }
}
