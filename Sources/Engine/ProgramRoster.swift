import ControlSocket

/// The engine's knowledge of the outside processes behind program apps: which JACK clients are
/// bound to which app and how they are wired, which were refused, and which control connection
/// speaks for each app. Control side only (the control queue).
struct ProgramRoster {
    /// A JACK client bound to a program app.
    struct Client {
        let name: String
        /// Nil until its process is found (looked up again for a while: see `awaitingProcess`).
        var process: ProcessIdentity?
        /// When it was bound (the session clock).
        var since: Double = 0
        /// The connections the engine made for it: [source, destination].
        var routed: [[String]] = []
        /// Its audio ports that have no app port to go to (more outputs than the app's `outputs`).
        var unrouted: [String] = []
    }

    /// A client whose name matched but whose process may not be the app (or, among
    /// `unadmitted`, may not join the graph under `programs.admit`).
    struct Refusal {
        let name: String
        let pid: Int32?
        let reason: String
        /// Refused only because the graph's admission limit was reached: considered again when
        /// an admitted app leaves.
        var limited = false

        /// As `status` lists it.
        var status: ProgramRefusal { ProgramRefusal(name: name, pid: pid.map(Int.init), reason: reason) }
    }

    /// A session-library connection speaking for an app.
    struct Attachment {
        let connection: UInt64
        let process: ProcessIdentity
        /// The app's gain as last told on its stream (a satellite follows it: `announceDecisions`).
        var decided: Float?
    }

    /// Bound clients per app id, in the order they were found.
    var clients: [String: [Client]] = [:]

    /// The connections the engine made for program apps, each with its app.
    var routedBy: [[String]: String] {
        var routed: [[String]: String] = [:]
        for (app, clients) in clients { for client in clients { for pair in client.routed { routed[pair] = app } } }
        return routed
    }
    var refused: [String: [Refusal]] = [:]
    var attached: [String: Attachment] = [:]
    /// Clients no app names that `programs.admit` refused (by process, or for the limit).
    var unadmitted: [Refusal] = []
    /// Set when JACK refused a routing connection (a client whose ports exist before it
    /// activates): the next control tick routes again.
    var retryDue = false

    /// The app a bound client belongs to.
    func app(ofClient name: String) -> String? {
        clients.first { $0.value.contains { $0.name == name } }?.key
    }

    /// The app a control connection speaks for.
    func app(ofConnection connection: UInt64) -> String? {
        attached.first { $0.value.connection == connection }?.key
    }

    /// How long a bound client whose process was not found is looked up again: long enough for
    /// a program that is still starting, or one whose predecessor is still exiting.
    static let identifyFor: Double = 10

    /// Whether a client bound less than `identifyFor` ago has no process yet.
    func awaitingProcess(at time: Double) -> Bool {
        clients.values.contains { $0.contains { $0.process == nil && time - $0.since < Self.identifyFor } }
    }

    func isKnown(_ client: String, app: String) -> Bool {
        clients[app, default: []].contains { $0.name == client } || refused[app, default: []].contains { $0.name == client }
    }

    /// Forgets a client that left the server; returns the app it was bound to, if any.
    mutating func remove(client name: String) -> (app: String, client: Client)? {
        for app in refused.keys { refused[app]?.removeAll { $0.name == name } }
        unadmitted.removeAll { $0.name == name }
        guard let app = app(ofClient: name), let index = clients[app]?.firstIndex(where: { $0.name == name }),
              let client = clients[app]?.remove(at: index) else { return nil }
        return (app, client)
    }

    /// Forgets everything about an app that left the graph (an admitted app removed, an app
    /// `apply` dropped).
    mutating func forget(app: String) {
        clients[app] = nil
        refused[app] = nil
        attached[app] = nil
    }
}
