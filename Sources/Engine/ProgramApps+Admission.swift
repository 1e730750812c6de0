import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import Nodes

/// Programs the graph does not name (docs/programs.md, "Admitting programs the graph does not
/// name"): with a `programs.admit` block, a JACK client that no program app matches, or a
/// `program.attach` for an app the graph does not have, becomes a program app added to the
/// running graph with the block's session, while every other app keeps its session. The app
/// is removed when its program is gone. Without the block they are refused, as before.
extension ProgramApps {
    /// Admits every client of `clients` that no program app matches and `programs.admit` allows,
    /// in one install; refuses (once, with an event) those whose process or number it does not
    /// allow. Clients the graph deals with otherwise are left alone: the server's own (physical)
    /// ports, clients its `jack.connections` rules name, clients that play nothing yet, and other
    /// iaa engines (a process running this binary), whose own connections would be undone.
    func admitUnnamedClients(_ clients: [String]) {
        guard let admission = host.graph.admission else { return }
        let named = host.graph.apps.compactMap(\.program)
        let physical = Set([ExternalEndpoint.physicalPlayback, .physicalCapture, .physicalMIDICapture]
            .flatMap(host.backend.resolve).map(Self.client(ofPort:)))
        let ruled = Set(host.graph.externalConnections.compactMap { connection -> String? in
            guard case .port(let name) = connection.endpoint else { return nil }
            return Self.client(ofPort: name)
        })
        var newApps: [App] = []
        var processes: [String: ProcessIdentity] = [:]
        for client in clients where admission.binding.matches(client: client) {
            guard !named.contains(where: { $0.matches(client: client) }), !physical.contains(client), !ruled.contains(client),
                  !roster.unadmitted.contains(where: { $0.name == client }) else { continue }
            let ports = host.backend.audioPorts(ofClient: client)
            guard !ports.outputs.isEmpty || (admission.binding.inputs > 0 && !ports.inputs.isEmpty) else { continue }
            let process = host.backend.process(ofClient: client)
            if let executable = process?.executable, executable == Self.ownExecutable {
                roster.unadmitted.append(.init(name: client, pid: process?.pid, reason: "it runs this engine's binary (another iaa engine)"))
                continue
            }
            if let refusal = admissionRefusal(admission, process: process, noProcess: "its process cannot be found (it is not a jack2 client of this server, or has gone), and programs.admit names a uid or executable",
                                              admitted: host.graph.admittedApps.map(\.id) + newApps.map(\.id)) {
                roster.unadmitted.append(.init(name: client, pid: process?.pid, reason: refusal.reason, limited: refusal.limited))
                publish(.refused(app: nil, client: client, pid: process.map { Int($0.pid) },
                                 reason: "JACK client \"\(client)\" is not admitted: \(refusal.reason)"))
                continue
            }
            let id = ProgramAdmission.appID(for: client) { taken in host.graph.appIndex(taken) != nil || newApps.contains { $0.id == taken } }
            newApps.append(admission.app(id: id, jackClient: client, type: ProgramNode.nodeType))
            processes[id] = process
        }
        guard !newApps.isEmpty else { return }
        do {
            try add(newApps, by: .jack) { app in (client: app.program?.jackClient ?? "", pid: processes[app.id].map { Int($0.pid) }) }
        } catch {
            for app in newApps {
                let reason = "JACK client \"\(app.program?.jackClient ?? "")\" is not admitted: \(Self.reason(error))"
                roster.unadmitted.append(.init(name: app.program?.jackClient ?? "", pid: processes[app.id]?.pid, reason: reason))
                publish(.refused(app: nil, client: app.program?.jackClient ?? "", pid: processes[app.id].map { Int($0.pid) }, reason: reason))
            }
        }
    }

    /// `program.attach` for an app the graph does not have: with `programs.admit`, the app is
    /// admitted (its JACK client, if it has one, is the one named like the app); without it, or
    /// when the block refuses the process, the request is refused and nothing changes.
    func admitAttaching(_ name: String, process: ProcessIdentity) throws -> App {
        guard let admission = host.graph.admission else {
            throw ControlError(.unknownApp, "no app \"\(name)\" (apps: \(host.graph.apps.map(\.id).joined(separator: ", "))); the graph admits no programs it does not name: add \"programs\": {\"admit\": {…}} to it to admit them (docs/programs.md)",
                               field: "app")
        }
        guard ProgramAdmission.isAppID(name) else {
            throw ControlError(.notAdmitted, "\"\(name)\" is not an app id: letters, digits, '_' and '-' only", field: "app")
        }
        guard admission.binding.matches(client: name) else {
            throw ControlError(.notAdmitted, "the graph admits programs named \"\(admission.binding.jackClient ?? "")\" (programs.admit.jackClient), not \"\(name)\"",
                               field: "app")
        }
        if let refusal = admissionRefusal(admission, process: process, noProcess: "", admitted: host.graph.admittedApps.map(\.id)) {
            publish(.refused(app: nil, client: nil, pid: Int(process.pid), reason: "app \"\(name)\" is not admitted: \(refusal.reason)"))
            throw ControlError(.notAdmitted, "process \(process.pid) may not join the graph as app \"\(name)\": \(refusal.reason)", field: "app")
        }
        let app = admission.app(id: name, jackClient: name, type: ProgramNode.nodeType)
        do {
            try add([app], by: .attach) { _ in (client: nil, pid: Int(process.pid)) }
        } catch {
            throw ControlError(.notAdmitted, "app \"\(name)\" cannot be added to the running graph: \(Self.reason(error))", field: "app")
        }
        return host.graph.apps[host.graph.appIndex(name) ?? 0]
    }

    /// Why `programs.admit` does not let a process (nil: not found) join as one more app, with
    /// the apps `admitted` in now (those of this pass included); nil when it does.
    private func admissionRefusal(_ admission: ProgramAdmission, process: ProcessIdentity?, noProcess: String,
                                  admitted: [String]) -> (reason: String, limited: Bool)? {
        let binding = admission.binding
        if binding.uid != nil || binding.executable != nil {
            guard let process else { return (noProcess, false) }
            if let reason = binding.refusal(uid: process.uid, executable: process.executable) {
                return (reason.replacing("the app's program.", with: "programs.admit."), false)
            }
        }
        guard admitted.count < admission.limit else {
            return ("the graph admits at most \(admission.limit) programs at once (programs.admit.limit), and \(admitted.count) are in (\(admitted.joined(separator: ", ")))", true)
        }
        return nil
    }

    /// Installs the running graph with `newApps` added after every app, keeping every session,
    /// and announces each with `programAdmitted`; `program` names its JACK client (nil for an
    /// attach) and process.
    private func add(_ newApps: [App], by source: ProgramEvent.Admission, program: (App) -> (client: String?, pid: Int?)) throws {
        var grown = host.graph
        for app in newApps {
            switch grown.admitting(app) {
            case .success(let next): grown = next
            case .failure(let error): throw ControlError(error.code, error.hint.map { "\(error.message); \($0)" } ?? error.message)
            }
        }
        let (events, setups) = try host.installAdopting(grown, sameSessions: true)
        for app in newApps {
            let outcome = setups[app.id]
            let (client, pid) = program(app)
            publish(.admitted(app: app.id, client: client, pid: pid, by: source, session: host.sessions.policy.state(of: app.id).map(SessionLog.status),
                              refused: outcome?.error.map { "('\($0.code.fourCC)') \($0.message)" }, warnings: outcome?.warnings ?? []))
        }
        host.publisher.publish(events)
    }

    /// Removes admitted app `id` once nothing of its program is left (no JACK client bound, no
    /// session-library connection): its session is terminated (the apps it ducked or
    /// interrupted hear it), its node and ports go, and clients refused for the limit are
    /// considered again. An admitted app is removed rather than kept "not running" because its
    /// identity is its program's: keeping it would grow the graph with every renamed client
    /// (`mpv-01`, `mpv-02`…) and hold places under the limit for programs that are gone.
    func removeAdmittedIfGone(_ id: String, reason: String) {
        guard let index = host.graph.appIndex(id), host.graph.apps[index].program?.admitted == true,
              (roster.clients[id] ?? []).isEmpty, roster.attached[id] == nil else { return }
        do {
            let events = try host.install(host.graph.removingAdmitted([id]), sameSessions: true)
            roster.forget(app: id)
            host.publisher.publish(events)
            publish(.removed(app: id, reason: reason))
        } catch {
            StandardError.warning("cannot remove admitted app \"\(id)\": \(Self.reason(error))")
            return
        }
        let waiting = roster.unadmitted.contains(where: \.limited)
        roster.unadmitted.removeAll(where: \.limited)
        if waiting { route() }
    }

    /// After a routing pass: admitted apps whose program could not be bound (it went away while
    /// being admitted) are removed, as when it exits.
    func removeUnboundAdmitted() {
        for app in host.graph.admittedApps where (roster.clients[app.id] ?? []).isEmpty && roster.attached[app.id] == nil {
            removeAdmittedIfGone(app.id, reason: "its program is gone")
        }
    }

    /// `newGraph` (a graph file being applied) with the running admitted apps that its own
    /// `programs.admit` still admits appended, each keeping its session; the others are
    /// returned to be dropped (their programs are routed again by the new graph's rules).
    func carryingAdmitted(into newGraph: Graph) -> (graph: Graph, dropped: [String]) {
        var result = newGraph
        var dropped: [String] = []
        for app in host.graph.admittedApps {
            guard let admission = result.admission, result.appIndex(app.id) == nil,
                  admission.binding.matches(client: app.program?.jackClient ?? app.id),
                  admission.binding.outputs == app.program?.outputs, admission.binding.inputs == app.program?.inputs,
                  result.admittedApps.count < admission.limit else {
                dropped.append(app.id)
                continue
            }
            let fresh = admission.app(id: app.id, jackClient: app.program?.jackClient, type: app.type)
            let carried = App(id: fresh.id, role: fresh.role, type: fresh.type, configuration: fresh.configuration, parameters: [],
                              layout: fresh.layout, session: app.session, program: fresh.program)
            guard case .success(let next) = result.admitting(carried) else {
                dropped.append(app.id)
                continue
            }
            result = next
        }
        return (result, dropped)
    }

    /// `status`'s `programs`: nil without `programs.admit`, else the block, the apps admitted
    /// now and the clients refused.
    func admissionStatus() -> AdmissionStatus? {
        guard let admission = host.graph.admission else { return nil }
        let binding = admission.binding
        func names(_ ports: [PortAddress], output: Bool) -> [String] {
            ports.map { address in
                let app = host.graph.apps[address.app]
                return "\(app.id):\((output ? app.layout.outputs : app.layout.inputs)[address.port].name)"
            }
        }
        return AdmissionStatus(
            admit: .init(jackClient: binding.jackClient, uid: binding.uid.map(Int.init), executable: binding.executable,
                         outputs: binding.outputs, inputs: binding.inputs, to: names(admission.to, output: false),
                         from: names(admission.from, output: true), limit: admission.limit),
            admitted: host.graph.admittedApps.map(\.id), refused: roster.unadmitted.map(\.status))
    }

    /// This engine's binary (`/proc/self/exe`).
    static let ownExecutable = ProcessIdentity(pid: getpid()).executable

    static func client(ofPort name: String) -> String {
        name.firstIndex(of: ":").map { String(name[..<$0]) } ?? name
    }

    static func reason(_ error: Error) -> String {
        (error as? ControlError)?.message ?? "\(error)"
    }
}
