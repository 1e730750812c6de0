import CLiblo
import Foundation

/// A client of New Session Manager (NSM), as RaySession, Agordejo and nsmd drive it: announces
/// itself to the server at `NSM_URL`, is told where its session files live (`open`), and when to
/// save them (`save`). The protocol is OSC over UDP (liblo); everything here runs on one thread
/// of its own, never on the audio thread.
///
/// iaa keeps its session as one graph file, `PATH/graph.json` for the `PATH` that `open` gives:
/// the engine runs it, and `save` writes the running engine's graph (`iaa dump --graph`) there.
public final class NSMClient: @unchecked Sendable {
    /// What `open` asks for: the folder for our files, the name to show and the JACK client name.
    public struct Open: Sendable {
        public let path: String
        public let displayName: String
        public let clientID: String
    }

    public enum Message: Sendable {
        case open(Open)
        case save
        case announced(serverName: String)
        case failed(String)
    }

    private let server: lo_server
    private let address: lo_address
    private var inbox: [Message] = []

    /// Connects to the server `url` names (`osc.udp://HOST:PORT/`), or nil when it is not an OSC URL.
    public init?(url: String) {
        guard let address = lo_address_new_from_url(url), let server = lo_server_new(nil, nil) else { return nil }
        self.address = address
        self.server = server
        let context = Unmanaged.passUnretained(self).toOpaque()
        lo_server_add_method(server, "/nsm/client/open", "sss", { _, _, argv, _, _, context in
            guard let argv, let context else { return 0 }
            let client = Unmanaged<NSMClient>.fromOpaque(context).takeUnretainedValue()
            client.inbox.append(.open(Open(path: String(cString: CLiblo_argString(argv, 0)),
                                           displayName: String(cString: CLiblo_argString(argv, 1)),
                                           clientID: String(cString: CLiblo_argString(argv, 2)))))
            return 0
        }, context)
        lo_server_add_method(server, "/nsm/client/save", "", { _, _, _, _, _, context in
            guard let context else { return 0 }
            Unmanaged<NSMClient>.fromOpaque(context).takeUnretainedValue().inbox.append(.save)
            return 0
        }, context)
        lo_server_add_method(server, "/reply", nil, { _, types, argv, argc, _, context in
            guard let argv, let context, let types, argc >= 3, String(cString: types).hasPrefix("sss") else { return 0 }
            guard String(cString: CLiblo_argString(argv, 0)) == "/nsm/server/announce" else { return 0 }
            let client = Unmanaged<NSMClient>.fromOpaque(context).takeUnretainedValue()
            client.inbox.append(.announced(serverName: String(cString: CLiblo_argString(argv, 2))))
            return 0
        }, context)
        lo_server_add_method(server, "/error", nil, { _, types, argv, argc, _, context in
            guard let argv, let context, let types, argc >= 3, String(cString: types).hasPrefix("sis") else { return 0 }
            let client = Unmanaged<NSMClient>.fromOpaque(context).takeUnretainedValue()
            client.inbox.append(.failed("\(String(cString: CLiblo_argString(argv, 0))): \(CLiblo_argInt(argv, 1)) "
                                            + String(cString: CLiblo_argString(argv, 2))))
            return 0
        }, context)
    }

    deinit {
        lo_server_free(server)
        lo_address_free(address)
    }

    /// `/nsm/server/announce`: our name, capabilities (none beyond the required ones), executable,
    /// the API version we speak (1.2) and our pid.
    public func announce(executable: String) {
        send("/nsm/server/announce", ["iaa", ":", executable], integers: [1, 2, Int32(getpid())])
    }

    /// `/reply PATH MESSAGE` for a request that succeeded.
    public func reply(to path: String, _ message: String) {
        send("/reply", [path, message])
    }

    /// `/error PATH CODE MESSAGE` (NSM's code -1 is a general error).
    public func fail(_ path: String, _ message: String) {
        let outgoing = lo_message_new()
        lo_message_add_string(outgoing, path)
        lo_message_add_int32(outgoing, -1)
        lo_message_add_string(outgoing, message)
        lo_send_message_from(address, server, "/error", outgoing)
        lo_message_free(outgoing)
    }

    /// The next message, waiting up to `milliseconds` for one.
    public func receive(milliseconds: Int32) -> Message? {
        if inbox.isEmpty { lo_server_recv_noblock(server, milliseconds) }
        return inbox.isEmpty ? nil : inbox.removeFirst()
    }

    private func send(_ path: String, _ strings: [String], integers: [Int32] = []) {
        let outgoing = lo_message_new()
        for string in strings { lo_message_add_string(outgoing, string) }
        for integer in integers { lo_message_add_int32(outgoing, integer) }
        lo_send_message_from(address, server, path, outgoing)
        lo_message_free(outgoing)
    }
}
