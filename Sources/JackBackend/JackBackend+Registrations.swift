import CJack

extension JackBackend {
    /// Port and client registrations anywhere on the server call `onRegistration` with the new
    /// port's full name or the new client's name, so the engine can make the graph's JACK
    /// connections to a program that starts (or restarts) after it. `jack_port_by_id` and
    /// `jack_port_name` read the client's copy of the graph; nothing here asks the server anything,
    /// which could deadlock jack2 from this thread (JACK's notification thread).
    func installRegistrationCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_port_registration_callback(clientHandle, { id, registered, arg in
            guard let arg, registered != 0 else { return }
            let backend = Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue()
            guard let port = jack_port_by_id(backend.clientHandle, id), let name = jack_port_name(port) else { return }
            backend.onRegistration?(String(cString: name))
        }, me)
        jack_set_client_registration_callback(clientHandle, { name, registered, arg in
            guard let arg, let name else { return }
            let backend = Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue()
            if registered != 0 {
                backend.onRegistration?(String(cString: name))
            } else {
                backend.onClientGone?(String(cString: name))
            }
        }, me)
    }

    /// Every port on the server now, of every client (for "did you mean" against live ports).
    public func allPortNames() -> [String] {
        ports(flags: 0, type: nil)
    }

    /// True when `source` is connected to `destination` now.
    public func isConnected(_ source: String, _ destination: String) -> Bool {
        guard let port = jack_port_by_name(clientHandle, source) else { return false }
        return jack_port_connected_to(port, destination) != 0
    }
}
