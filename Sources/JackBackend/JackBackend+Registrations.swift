import CJack

extension JackBackend {
    /// Port and client registrations anywhere on the server call `onGraphChange`, so the engine
    /// can make the graph's JACK connections to a program that starts (or restarts) after it.
    /// Nothing here asks the server anything: these callbacks run on JACK's notification thread.
    func installRegistrationCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_port_registration_callback(clientHandle, { _, registered, arg in
            guard let arg, registered != 0 else { return }
            Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue().onGraphChange?()
        }, me)
        jack_set_client_registration_callback(clientHandle, { _, registered, arg in
            guard let arg, registered != 0 else { return }
            Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue().onGraphChange?()
        }, me)
    }

    /// Every port on the server now, of every client (for "did you mean" against live ports).
    public func allPortNames() -> [String] {
        guard let list = jack_get_ports(clientHandle, nil, nil, 0) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var cursor = list
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }

    /// True when `source` is connected to `destination` now.
    public func isConnected(_ source: String, _ destination: String) -> Bool {
        guard let port = jack_port_by_name(clientHandle, source) else { return false }
        return jack_port_connected_to(port, destination) != 0
    }
}
