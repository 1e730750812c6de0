import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import Nodes

/// Programs speaking for their apps over the control socket (the session library): attaching by
/// identity, one owner per app, and a session that ends with its program. The session requests
/// themselves are the ordinary ones (`session.activate`…), decoded by `sessionAction` and applied
/// by the one `AudioSessionController`, like the command line's and the timelines'.
extension ProgramApps {
    /// What a connection attached to an app may still ask: reading, and acting for its own app.
    enum OwnedRequest {
        case read
        case ownApp
        case refused
    }

    static func ownership(of method: ControlMethod?) -> OwnedRequest {
        switch method {
        case .status?, .dump?, .ports?, .graph?, .get?, .events?, .top?, .meters?: return .read
        case let method? where method.isOneAppSessionAction: return .ownApp
        case .sessionGet?, .preferredBuffer?, .attach?: return .ownApp
        default: return .refused
        }
    }

    /// Refuses a request from a connection attached to an app when it acts beyond that app.
    /// Connections that attached to nothing (the command line) act for the engine's user, as before.
    func checkOwner(_ request: ControlRequest) throws {
        guard let owned = roster.app(ofConnection: request.connection) else { return }
        let named = request["app"]?.stringValue
        switch Self.ownership(of: ControlMethod(rawValue: request.method)) {
        case .read: return
        case .ownApp where named == nil || named == owned: return
        case .ownApp:
            throw ControlError(.notOwner, "this connection speaks for app \"\(owned)\" (program.attach); it cannot act for app \"\(named ?? "")\"",
                               field: "app")
        case .refused:
            throw ControlError(.notOwner, "this connection speaks for app \"\(owned)\" (program.attach); \"\(request.method)\" acts beyond its own session",
                               field: "method")
        }
    }

    /// `program.attach`: binds the connection to a program app its process may be, and turns it
    /// into the stream of that app's session events.
    /// An app the graph does not have is admitted first when its `programs.admit` allows the
    /// process (`admitAttaching`).
    func attach(_ request: ControlRequest) throws -> ControlReply {
        let name = try host.decoder.string(request, "app")
        if let owned = roster.app(ofConnection: request.connection) {
            throw ControlError(.notOwner, "this connection already speaks for app \"\(owned)\"", field: "app")
        }
        let running = ProcessIdentity(pid: request.peer.pid).executable
        // The process that connected must be the program now: one that connected, forked and then
        // let its parent exec the app's program would otherwise attach as that program.
        if let connected = request.peer.executable, connected != running {
            throw ControlError(.notOwner, "process \(request.peer.pid) connected running \(connected) and runs \(running ?? "nothing it can be told by") now; attach from a connection the program itself opened",
                               field: "app")
        }
        let process = ProcessIdentity(pid: request.peer.pid, uid: request.peer.uid, executable: running)
        let app = try host.graph.appIndex(name).map { host.graph.apps[$0] } ?? admitAttaching(name, process: process)
        guard let binding = app.program else {
            let names = host.graph.apps.filter { $0.program != nil }.map(\.id)
            throw ControlError(.notAProgram, "app \"\(app.id)\" runs in the engine, not in a program (program apps: \(names.isEmpty ? "none" : names.joined(separator: ", ")))",
                               field: "app")
        }
        if let reason = binding.refusal(uid: process.uid, executable: process.executable) ?? admittedOwnerRefusal(app, process) {
            publish(.refused(app: app.id, client: nil, pid: Int(process.pid), reason: reason))
            throw ControlError(.notOwner, "process \(process.pid) may not speak for app \"\(app.id)\": \(reason)", field: "app")
        }
        if let holder = roster.attached[app.id] {
            throw ControlError(.appInUse, "process \(holder.process.pid) speaks for app \"\(app.id)\" already; one program at a time",
                               field: "app")
        }
        roster.attached[app.id] = .init(connection: request.connection, process: process)
        publish(.attached(app: app.id, pid: Int(process.pid), executable: process.executable))
        return .stream(topic: EventPublisher.programTopic(app.id),
                       initial: ProgramAttachReply(app: app.id, pid: Int(process.pid),
                                                   session: host.sessions.policy.state(of: app.id).map(SessionLog.status)).json)
    }

    /// Why `process` may not speak for admitted app `app`, or nil. An admitted app's identity is
    /// its program's: once a JACK client is bound to it, only that client's process may attach
    /// (another process of the same user would otherwise end its session by attaching and
    /// closing); bound clients whose process is unknown admit nobody. An app admitted by
    /// `program.attach` has no client and is removed when its attacher leaves.
    private func admittedOwnerRefusal(_ app: App, _ process: ProcessIdentity) -> String? {
        guard app.program?.admitted == true, let clients = roster.clients[app.id], !clients.isEmpty else { return nil }
        let pids = clients.compactMap(\.process?.pid)
        guard !pids.contains(process.pid) else { return nil }
        let names = clients.map { "\"\($0.name)\"" }.joined(separator: ", ")
        guard !pids.isEmpty else {
            return "app \"\(app.id)\" was admitted for JACK client \(names), whose process cannot be told, so no process may speak for it"
        }
        return "app \"\(app.id)\" was admitted for JACK client \(names) (pid \(pids.map(String.init).joined(separator: ", "))); only that program may speak for it"
    }

    /// `session.get`: one app's session as it is now.
    func sessionState(_ request: ControlRequest) throws -> ControlReply {
        let (_, app) = try host.decoder.app(request)
        guard let state = host.sessions.policy.state(of: app.id) else {
            throw ControlError(GraphErrorCode.unmanagedApp, "app \"\(app.id)\" has no session", field: "app")
        }
        return .result(SessionGetReply(app: app.id, session: SessionLog.status(state)).json)
    }

    /// A control connection closed: when it spoke for an app, the app's program is gone, and its
    /// session is terminated as Apple ends a killed app's (the apps it interrupted are told).
    func connectionClosed(_ connection: UInt64) {
        host.checkOnQueue()
        guard let app = roster.app(ofConnection: connection), let attachment = roster.attached.removeValue(forKey: app) else { return }
        let wasActive = host.sessions.policy.state(of: app)?.active ?? false
        publish(.detached(app: app, pid: Int(attachment.process.pid), wasActive: wasActive))
        if host.sessions.policy.state(of: app) != nil { host.publisher.publish(host.applySession(.terminate(app: app), at: host.now).events) }
        removeAdmittedIfGone(app, reason: "its program closed its session (pid \(attachment.process.pid))")
        announceDecisions()
    }

    /// The primary's side of one policy across machines (docs/links.md): each attached app whose
    /// decided gain changed gets a line on its program stream (`{"t", "decision": {"app", "gain",
    /// …}}`), which is what a satellite follows.
    func announceDecisions() {
        for app in roster.attached.keys.sorted() {
            guard let state = host.sessions.policy.state(of: app), roster.attached[app]?.decided != state.gain else { continue }
            roster.attached[app]?.decided = state.gain
            let decision = ProgramDecision(app: app, gain: Double(state.gain), active: state.active, ducked: state.ducked,
                                           interrupted: state.interrupted)
            host.publisher.publish(ProgramStreamLine.decision(decision, at: host.now).json, topic: EventPublisher.programTopic(app))
        }
    }
}
