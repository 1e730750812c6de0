import AudioSession

/// Why a live change to a graph was refused; the running graph stays as it was.
public struct GraphEditError: Error, Sendable, CustomStringConvertible {
    public let code: GraphErrorCode
    public let message: String
    public let hint: String?

    public var description: String { hint.map { "\(message)\n  hint: \($0)" } ?? message }
}

extension Graph {
    /// The graph with `connection` added, when it closes no cycle, is new, and meets Inter-App
    /// Audio's conditions (the first violation is the error), against the live sessions when
    /// `live` is the running policy.
    public func connecting(_ connection: Connection, live: SessionPolicy? = nil) -> Result<Graph, GraphEditError> {
        if connections.contains(where: { $0.from == connection.from && $0.to == connection.to }) {
            return .failure(GraphEditError(code: .duplicateConnection,
                                           message: "\(describe(connection)) is already connected", hint: nil))
        }
        let edited = connections + [connection]
        guard case .success(let order) = order(for: edited) else {
            return .failure(GraphEditError(code: .cycle, message: "\(describe(connection)) would close a cycle",
                                           hint: "a graph renders each app once per cycle; feed back through a delay outside the graph"))
        }
        let graph = with(connections: edited, order: order)
        if let violation = InterAppAudioRules.check(connection, in: graph, live: live).first {
            return .failure(GraphEditError(code: violation.code, message: violation.message, hint: violation.hint))
        }
        return .success(graph)
    }

    /// The graph with every one of `connections` added in turn; the first refusal is the error.
    public func connecting(_ connections: [Connection], live: SessionPolicy? = nil) -> Result<Graph, GraphEditError> {
        var edited = self
        for connection in connections {
            switch edited.connecting(connection, live: live) {
            case .success(let next): edited = next
            case .failure(let error): return .failure(error)
            }
        }
        return .success(edited)
    }

    /// The graph without the given connections (each matched by its ends).
    public func removing(_ removed: [Connection]) -> Graph {
        let edited = connections.filter { connection in !removed.contains { $0.from == connection.from && $0.to == connection.to } }
        guard case .success(let order) = order(for: edited) else {
            preconditionFailure("removing connections cannot create a cycle")
        }
        return with(connections: edited, order: order)
    }

    /// The graph without the connection `from → to`.
    public func disconnecting(from: PortAddress, to: PortAddress) -> Result<Graph, GraphEditError> {
        let edited = connections.filter { !($0.from == from && $0.to == to) }
        guard edited.count < connections.count else {
            return .failure(GraphEditError(code: .unknownPort,
                                           message: "\(describe(Connection(from: from, to: to))) is not connected", hint: nil))
        }
        guard case .success(let order) = order(for: edited) else {
            preconditionFailure("removing a connection cannot create a cycle")
        }
        return .success(with(connections: edited, order: order))
    }

    /// The graph with parameter `index` of app `app` at `value` (range-checked by the caller):
    /// a plan compiled again for the running graph starts from the values `set` gave it.
    public func settingParameter(_ index: Int, ofApp app: Int, to value: Float) -> Graph {
        var graph = self
        graph.apps[app].parameters[index] = value
        return graph
    }

    /// The graph without every one of `connections` (`from → to`, in turn); the first that is not
    /// connected is the error.
    public func disconnecting(_ connections: [Connection]) -> Result<Graph, GraphEditError> {
        var edited = self
        for connection in connections {
            switch edited.disconnecting(from: connection.from, to: connection.to) {
            case .success(let next): edited = next
            case .failure(let error): return .failure(error)
            }
        }
        return .success(edited)
    }

    /// `a:out -> b:in`.
    public func describe(_ connection: Connection) -> String {
        let source = apps[connection.from.app], destination = apps[connection.to.app]
        return "\(source.id):\(source.layout.outputs[connection.from.port].name) -> \(destination.id):\(destination.layout.inputs[connection.to.port].name)"
    }

    /// The render order for these connections, or a cycle. Connections into inputs that read the
    /// previous cycle (a host's returns) do not order anything.
    func order(for connections: [Connection]) -> Result<[Int], GraphEditError> {
        var order = TopologicalOrder(appCount: apps.count)
        for connection in connections where !apps[connection.to.app].layout.inputs[connection.to.port].readsPreviousCycle {
            if order.add(from: connection.from.app, to: connection.to.app) != nil {
                return .failure(GraphEditError(code: .cycle, message: "cycle", hint: nil))
            }
        }
        return .success(order.order())
    }
}
