import CJack
import RenderCore
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

    public init(source: String, destination: String, result: Result) {
        self.source = source
        self.destination = destination
        self.result = result
    }

    public var description: String {
        switch result {
        case .connected: return "connected \(source) -> \(destination)"
        case .alreadyConnected: return "already connected \(source) -> \(destination)"
        case .failed(let why): return "cannot connect \(source) -> \(destination): \(why)"
        }
    }
}

extension JackBackend {
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

    /// Whether the server has a port of this full name now.
    public func hasPort(_ name: String) -> Bool {
        jack_port_by_name(clientHandle, name) != nil
    }

    /// The server's physical ports of one kind, in JACK's order.
    public enum PhysicalPorts: Sendable {
        /// Audio playback ports (inputs: `system:playback_N`).
        case playback
        /// Audio capture ports (outputs: `system:capture_N`).
        case capture
        /// MIDI inputs to the server (outputs: keyboards, controllers).
        case midiCapture
    }

    public func physicalPorts(_ kind: PhysicalPorts) -> [String] {
        switch kind {
        case .playback: ports(flags: CJack_port_is_physical() | CJack_port_is_input())
        case .capture: ports(flags: CJack_port_is_physical() | CJack_port_is_output())
        case .midiCapture: ports(flags: CJack_port_is_physical() | CJack_port_is_output(), type: CJack_default_midi_type())
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
