import AudioGraph
import RenderCore
import ControlSocket
import Dispatch
import JackBackend
import Synchronization

/// The engine's JACK connections: the graph's connection rules it keeps true
/// (``ConnectionRules``), which connections it asked for itself (``ConnectionLedger``, so a
/// notification can say who made it), whether any of its outputs reaches outside (Apple's
/// route), and the burst of registrations JACK notifies, taken in one pass.
///
/// This component owns that state and reads the running graph and server through its
/// ``EngineHost``. What a change means to sessions, programs and kept state, the core decides
/// from what ``notified(_:_:connected:)`` returns. Confined to the control queue, except
/// ``registered(_:pass:)``, which JACK's notification thread calls.
final class EngineConnections: @unchecked Sendable {
    /// The graph's JACK connection rules, and what they remember (pairs removed by hand, refusals).
    var rules = ConnectionRules()
    private var ledger = ConnectionLedger()
    /// Whether any of our audio outputs is connected outside the engine: Apple's "route".
    private(set) var routeAvailable = true
    /// Set on JACK's notification thread when a port or client appeared; cleared by the pass it
    /// queued (one pass for a burst of registrations).
    private let passDue = Atomic<Bool>(false)
    /// The ports and clients that appeared since the last pass, by name.
    private let appeared = Mutex<[String]>([])
    let clientName: String
    private let queue: DispatchQueue
    private unowned let host: EngineHost

    init(host: EngineHost, clientName: String, queue: DispatchQueue) {
        self.host = host
        self.clientName = clientName
        self.queue = queue
    }

    /// What the connection rules are kept against now.
    var ground: ConnectionRules.Ground { ConnectionRules.Ground(graph: host.graph, backend: host.backend, clientName: clientName) }

    /// Makes the graph's JACK connection rules true now; warns about each rule whose port is
    /// missing (with the closest live port names) and each connection JACK refused. Missing ports
    /// leave their rule pending: it is made when the port appears.
    /// Rule connections removed by hand are made again too, unless `releasingHeld` is false (a
    /// start that resumed kept state holds what was removed before).
    func make(_ connections: [ExternalConnection], releasingHeld: Bool = true) -> [String] {
        if releasingHeld { rules.book.releaseAll() }
        var warnings = rules.pendingWarnings(connections, on: ground)
        for outcome in rules.make(connections, on: ground, ledger: &ledger, at: host.now) {
            if case .failed = outcome.result { warnings.append("\(outcome)") }
        }
        routeAvailable = outputsReachOutside()
        return warnings
    }

    /// Makes every connection rule true again (a port appeared, a refused one is due).
    func keepRules() {
        rules.keep(on: ground, ledger: &ledger, at: host.now)
    }

    /// Ports or clients appeared (`names`: full port names and client names): the rule
    /// connections removed by hand at those ends are made again with the rest.
    func appeared(_ names: [String]) {
        rules.book.release(appeared: names, ours: clientName + ":")
        keepRules()
    }

    /// JACK registered a port or client called `name`. On JACK's notification thread: the name is
    /// noted, and one pass is queued for every name noted until it runs (`pass` gets them).
    func registered(_ name: String, pass: @escaping @Sendable ([String]) -> Void) {
        appeared.withLock { $0.append(name) }
        guard !passDue.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            passDue.store(false, ordering: .releasing)
            pass(appeared.withLock { names in
                defer { names = [] }
                return names
            })
        }
    }

    /// What a connection notification means: whether the engine made it, and the route when it
    /// changed (our outputs lost their last connection outside, or gained their first).
    struct Notice {
        let ours: Bool
        let route: Bool?
    }

    /// JACK says `source -> destination` was connected or disconnected, by us or by anyone. A
    /// rule's pair removed by hand stays removed until its outside end appears again.
    func notified(_ source: String, _ destination: String, connected: Bool) -> Notice {
        let ours = ledger.notified([source, destination], connected: connected)
        // A connection the engine asked for was unheld when it asked (`willConnect`): its
        // notification may come after a later request removed the pair again and held it, and
        // unholding it then made a kept graph that connects what was acknowledged disconnected.
        if connected, !ours { rules.book.unhold([source, destination]) }
        if !connected, !ours { rules.removedByHand(source, destination, on: ground) }
        let available = outputsReachOutside()
        guard available != routeAvailable else { return Notice(ours: ours, route: nil) }
        routeAvailable = available
        return Notice(ours: ours, route: available)
    }

    private func outputsReachOutside() -> Bool {
        host.backend.livePorts().contains { !$0.isInput && !$0.connections.isEmpty && $0.type.contains("audio") }
    }

    /// The engine is about to ask JACK to make (`connecting`) or remove the pair, so its
    /// notification is attributed to iaa.
    func asking(_ source: String, _ destination: String, connecting: Bool) {
        ledger.asking([source, destination], connecting: connecting)
    }

    /// Connects two ports as the engine's own request (its notification says `by: iaa`).
    func connect(_ source: String, _ destination: String) -> ConnectionOutcome {
        ledger.connect([source, destination], on: host.backend)
    }

    /// Disconnects two ports as the engine's own request; false when they were not connected.
    func disconnect(_ source: String, _ destination: String) -> Bool {
        ledger.disconnect([source, destination], on: host.backend)
    }

    /// `iaa connect` of two JACK ports: its notification says `by: iaa`, and a rule's pair
    /// removed by hand and made again is a rule's connection again.
    func willConnect(_ pair: PortPair) {
        rules.book.unhold([pair.source, pair.destination])
        // A pair connected already gets no notification.
        guard !host.backend.isConnected(pair.source, pair.destination) else { return }
        asking(pair.source, pair.destination, connecting: true)
    }

    /// `iaa disconnect` of two JACK ports: its notification says `by: iaa`, and a rule's
    /// connection stays removed, as one removed by hand (``RuleBook``).
    func willDisconnect(_ pair: PortPair) {
        if host.backend.isConnected(pair.source, pair.destination) { asking(pair.source, pair.destination, connecting: false) }
        if rules.rule(of: pair.source, pair.destination, on: ground) != nil { rules.book.hold([pair.source, pair.destination]) }
    }

    /// Every connection to our ports there was, forgotten: what a restarted server gets back.
    func takeLive() -> Set<[String]> {
        ledger.takeLive()
    }

    /// The connections to our ports the rules make (`[source, destination]`).
    func rulePairs() -> Set<[String]> {
        Set(rules.states(on: ground).flatMap { state in state.pairs.map { [$0.source, $0.destination] } })
    }
}

/// The one way the engine connects or disconnects as itself: the ledger notes the request before
/// JACK is asked, and takes it back when JACK refuses (no notification will come for it).
extension ConnectionLedger {
    /// Asks `backend` to connect `pair` as the engine's own request: noted before JACK is asked,
    /// so the notification (which may come first) is attributed, and taken back when JACK refuses.
    mutating func connect(_ pair: [String], on backend: any LiveBackend) -> ConnectionOutcome {
        asking(pair, connecting: true)
        let outcome = backend.connect(pair[0], pair[1])
        if case .failed = outcome.result { refused(pair, connecting: true) }
        return outcome
    }

    /// `connect`'s counterpart: false when the pair was not connected.
    mutating func disconnect(_ pair: [String], on backend: any LiveBackend) -> Bool {
        asking(pair, connecting: false)
        guard backend.disconnect(pair[0], pair[1]) else {
            refused(pair, connecting: false)
            return false
        }
        return true
    }
}
