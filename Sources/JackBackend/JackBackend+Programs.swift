import CJack

/// What the engine needs to route outside programs through program apps: their ports, their
/// connections, and JACK's word when they go away. Control side, except the callbacks' bodies.
extension JackBackend {
    /// The audio ports of client `name`, in JACK's order: (its outputs, its inputs).
    public func audioPorts(ofClient name: String) -> (outputs: [String], inputs: [String]) {
        let pattern = "^" + Self.regexEscaped(name) + ":"
        return (portNames(pattern: pattern, flags: CJack_port_is_output()), portNames(pattern: pattern, flags: CJack_port_is_input()))
    }

    /// Every port `port` is connected to now (any client's), or [] when it does not exist.
    public func connections(of port: String) -> [String] {
        guard let handle = jack_port_by_name(clientHandle, port),
              let list = jack_port_get_all_connections(clientHandle, handle) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var cursor = list
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }

    /// The names of the clients that have ports now, in JACK's port order.
    public func clientsWithPorts() -> [String] {
        var seen: Set<String> = []
        return allPortNames().compactMap { port in
            guard let colon = port.firstIndex(of: ":") else { return nil }
            let client = String(port[..<colon])
            return seen.insert(client).inserted ? client : nil
        }
    }

    private func portNames(pattern: String, flags: UInt) -> [String] {
        guard let list = jack_get_ports(clientHandle, pattern, CJack_default_audio_type(), flags) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var cursor = list
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }

    /// `text` as a POSIX extended regular expression matching itself (jack_get_ports takes one).
    static func regexEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
