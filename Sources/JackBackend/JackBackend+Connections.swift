import AudioGraph
import CJack
#if canImport(Glibc)
import Glibc
#endif

/// What happened to one requested JACK connection.
public struct ConnectionOutcome: Sendable, CustomStringConvertible {
    /// The same result the control side sees through ``ControlBackend``.
    public typealias Result = PortConnectionResult

    public let source: String
    public let destination: String
    public let result: Result

    public var description: String {
        switch result {
        case .connected: return "connected \(source) -> \(destination)"
        case .alreadyConnected: return "already connected \(source) -> \(destination)"
        case .failed(let why): return "cannot connect \(source) -> \(destination): \(why)"
        }
    }
}

extension JackBackend {
    /// Makes the graph's external connections. A failure does not stop the others: each outcome
    /// says what happened, so the engine can warn and keep running.
    public func connect(_ connections: [ExternalConnection], in graph: Graph) -> [ConnectionOutcome] {
        var outcomes: [ConnectionOutcome] = []
        for connection in connections {
            let resolved = portPairs(connection, in: graph)
            for port in resolved.unmatched {
                outcomes.append(ConnectionOutcome(source: port, destination: "\(connection.endpoint)",
                                                  result: .failed("no such JACK port is present")))
            }
            outcomes += resolved.pairs.map { connect($0.source, $0.destination) }
        }
        return outcomes
    }

    /// Breaks the JACK connections that `connections` stand for now (what `apply` drops);
    /// returns the pairs that were connected and are not any more.
    public func disconnect(_ connections: [ExternalConnection], in graph: Graph) -> [(source: String, destination: String)] {
        connections.flatMap { portPairs($0, in: graph).pairs }.filter { disconnect($0.source, $0.destination) }
    }

    /// The JACK port pairs (source, destination) one graph connection means against the ports
    /// present now, and our ports whose outside end matches no port.
    public func portPairs(_ connection: ExternalConnection, in graph: Graph)
        -> (pairs: [(source: String, destination: String)], unmatched: [String]) {
        let ours = connection.ports.map { address -> String in
            let app = graph.apps[address.app]
            let spec = connection.isMIDI ? app.layout.midiInputs[address.port]
                : connection.direction == .toExternal ? app.layout.outputs[address.port] : app.layout.inputs[address.port]
            return fullName("\(app.id).\(spec.name)")
        }
        let theirs = resolve(connection.endpoint)
        guard !theirs.isEmpty else { return ([], ours) }
        let pairs = PortPairing.pairs(ours, theirs).map { mine, other in
            connection.direction == .toExternal ? (source: mine, destination: other) : (source: other, destination: mine)
        }
        return (pairs, [])
    }

    /// Connects two JACK ports by full name.
    public func connect(_ source: String, _ destination: String) -> ConnectionOutcome {
        let code = askingServer { jack_connect(clientHandle, source, destination) }
        switch code {
        case 0: return ConnectionOutcome(source: source, destination: destination, result: .connected)
        case EEXIST: return ConnectionOutcome(source: source, destination: destination, result: .alreadyConnected)
        default:
            let names: [String] = [source, destination]
            let missing = names.filter { jack_port_by_name(clientHandle, $0) == nil }
            let why = missing.isEmpty
                ? "JACK refused (error \(code)); if jackd runs with -a (self-connect restricted), connect from outside: jack_connect \(source) \(destination)"
                : "no JACK port named \(missing.map { "'\($0)'" }.joined(separator: " or "))"
            return ConnectionOutcome(source: source, destination: destination, result: .failed(why))
        }
    }

    /// The JACK port names an endpoint stands for right now.
    public func resolve(_ endpoint: ExternalEndpoint) -> [String] {
        switch endpoint {
        case .port(let name):
            return jack_port_by_name(clientHandle, name) == nil ? [] : [name]
        case .physicalPlayback:
            return ports(flags: CJack_port_is_physical() | CJack_port_is_input())
        case .physicalCapture:
            return ports(flags: CJack_port_is_physical() | CJack_port_is_output())
        case .physicalMIDICapture:
            return ports(flags: CJack_port_is_physical() | CJack_port_is_output(), type: CJack_default_midi_type())
        }
    }

    /// The names of the server's ports with `flags` and of `type` (nil: every type).
    func ports(flags: UInt, type: UnsafePointer<CChar>? = CJack_default_audio_type()) -> [String] {
        guard let list = jack_get_ports(clientHandle, nil, type, flags) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var cursor = list
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }
}
