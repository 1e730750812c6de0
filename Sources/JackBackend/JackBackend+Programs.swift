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
        guard let handle = jack_port_by_name(clientHandle, port) else { return [] }
        return Self.takeNames(jack_port_get_all_connections(clientHandle, handle))
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
        Self.takeNames(jack_get_ports(clientHandle, pattern, CJack_default_audio_type(), flags))
    }

    /// The names in a NULL-terminated list libjack allocated, which this frees.
    static func takeNames(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        return sequence(first: list) { $0 + 1 }.prefix { $0.pointee != nil }.map { String(cString: $0.pointee!) }
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
