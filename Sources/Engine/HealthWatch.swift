/// What the engine has told about its health, and so what is new to tell: xruns since the last
/// look (JACK's, those iaa caused, those the system caused by preempting it), the audio thread
/// getting stuck in a cycle or running again, an app muted or bypassed for a fault, the cycles
/// an isolated app's child left unanswered. It decides; the core reads the backend's counters
/// into it on every tick and publishes what it returns.
struct HealthWatch {
    /// Xrun counters: every xrun JACK reported, the cycles iaa overran, those only the clock saw.
    struct Xruns: Equatable {
        var all: Int64 = 0
        var ours: Int64 = 0
        var preempted: Int64 = 0
    }

    /// A stall seen or ended.
    enum StallChange: Equatable {
        case began(app: String?, seconds: Double)
        case ended
    }

    private(set) var announced = Xruns()
    private(set) var stalled = false
    private(set) var faulted: Set<String> = []
    /// Each isolated app's late cycles as last told.
    private(set) var lateCycles: [String: UInt64] = [:]

    /// The xruns since the last call, or nil when there are none. A counter lower than before
    /// means a new backend (after a server restart), which counts from zero: nothing is told
    /// for that step, and counting goes on from the new values.
    mutating func newXruns(_ now: Xruns) -> Xruns? {
        guard now != announced else { return nil }
        defer { announced = now }
        guard now.all >= announced.all, now.ours >= announced.ours, now.preempted >= announced.preempted else { return nil }
        return Xruns(all: now.all - announced.all, ours: now.ours - announced.ours, preempted: now.preempted - announced.preempted)
    }

    /// A stall's start or end, once each: `stall` is the backend's now.
    mutating func stallChange(_ stall: (app: String?, seconds: Double)?) -> StallChange? {
        guard (stall != nil) != stalled else { return nil }
        stalled = stall != nil
        return stall.map { .began(app: $0.app, seconds: $0.seconds) } ?? .ended
    }

    /// Whether app `id`'s fault is new (to be told once); false once it was.
    mutating func newFault(_ id: String) -> Bool {
        faulted.insert(id).inserted
    }

    /// The cycles app `id`'s child left unanswered since the last call, or nil when none; `total`
    /// is its node's count now. A count lower than before is a new node that counts from zero (an
    /// `apply` that changed the app; a reload's node counts on from the old one's).
    mutating func newLateCycles(_ id: String, total: UInt64) -> UInt64? {
        let told = lateCycles.updateValue(total, forKey: id) ?? 0
        let new = total >= told ? total - told : total
        return new > 0 ? new : nil
    }

    /// App `id` was re-enabled: its next fault is told again.
    mutating func cleared(_ id: String) {
        faulted.remove(id)
    }
}
