import AudioGraph
import ControlSocket

/// What `apply` changes: apps added, removed or changed (type, configuration, parameters or
/// session), and internal and JACK connections added or removed.
struct GraphDiff {
    var appsAdded: [String] = []
    var appsRemoved: [String] = []
    var appsChanged: [String] = []
    /// Apps whose plugin library was rebuilt since it was loaded: their nodes get the new code.
    var appsReloaded: [String] = []
    var connectionsAdded: [String] = []
    var connectionsRemoved: [String] = []
    var jackConnectionsAdded: [String] = []
    var jackConnectionsRemoved: [String] = []
    /// `jack.expose` changed: ports are registered or unregistered.
    var exposeChanged = false

    init(old: Graph, new: Graph) {
        let oldApps = Dictionary(uniqueKeysWithValues: old.apps.map { ($0.id, $0) })
        let newIDs = Set(new.apps.map(\.id))
        for app in new.apps {
            guard let before = oldApps[app.id] else { appsAdded.append(app.id); continue }
            if before.type.id != app.type.id || before.configuration != app.configuration
                || before.parameters != app.parameters || before.session != app.session || before.role != app.role {
                appsChanged.append(app.id)
            }
            if before.type.id == app.type.id, before.type.code != app.type.code { appsReloaded.append(app.id) }
        }
        appsRemoved = old.apps.map(\.id).filter { !newIDs.contains($0) }
        let oldConnections = Set(old.connections.map { Self.text($0, in: old) })
        let newConnections = Set(new.connections.map { Self.text($0, in: new) })
        connectionsAdded = new.connections.map { Self.text($0, in: new) }.filter { !oldConnections.contains($0) }
        connectionsRemoved = old.connections.map { Self.text($0, in: old) }.filter { !newConnections.contains($0) }
        let oldJack = old.externalConnections.map { Self.text($0, in: old) }
        let newJack = new.externalConnections.map { Self.text($0, in: new) }
        jackConnectionsAdded = newJack.filter { !oldJack.contains($0) }
        jackConnectionsRemoved = oldJack.filter { !newJack.contains($0) }
        exposeChanged = old.exposure.patterns != new.exposure.patterns
    }

    static func text(_ connection: Connection, in graph: Graph) -> String {
        let (from, to) = graph.names(connection)
        return connection.gain == 1 ? "\(from) -> \(to)" : "\(from) -> \(to) (gain \(connection.gain))"
    }

    static func text(_ connection: ExternalConnection, in graph: Graph) -> String {
        let ports = connection.ports.map { address -> String in
            let app = graph.apps[address.app]
            let spec = connection.isMIDI ? app.layout.midiInputs[address.port]
                : connection.direction == .toExternal ? app.layout.outputs[address.port] : app.layout.inputs[address.port]
            return "\(app.id):\(spec.name)"
        }.joined(separator: ",")
        return connection.direction == .toExternal ? "\(ports) -> \(connection.endpoint)" : "\(connection.endpoint) -> \(ports)"
    }

    /// The diff as the protocol carries it.
    var message: ApplyReply.Diff {
        ApplyReply.Diff(appsAdded: appsAdded, appsRemoved: appsRemoved, appsChanged: appsChanged, appsReloaded: appsReloaded,
                        connectionsAdded: connectionsAdded, connectionsRemoved: connectionsRemoved,
                        jackConnectionsAdded: jackConnectionsAdded, jackConnectionsRemoved: jackConnectionsRemoved,
                        exposeChanged: exposeChanged)
    }
}

extension Graph {
    /// `APP:PORT` names of both ends of an internal connection.
    func names(_ connection: Connection) -> (String, String) {
        let from = apps[connection.from.app], to = apps[connection.to.app]
        return ("\(from.id):\(from.layout.outputs[connection.from.port].name)", "\(to.id):\(to.layout.inputs[connection.to.port].name)")
    }
}
