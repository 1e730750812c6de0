#if canImport(Glibc)
import Glibc
#endif

/// Which user owns the other end of a TCP connection made on this machine: the control socket
/// serves only the engine's own user (`SO_PEERCRED`), and the dashboard keeps that rule for the
/// browsers and scripts that reach it over loopback. TCP has no peer credentials, but the
/// kernel lists every socket of the network namespace with its owner in `/proc/net/tcp` and
/// `/proc/net/tcp6`: the peer's socket is the one whose local end is our remote end and whose
/// remote end is our local end.
public enum PeerOwner {
    /// One end of a connection: the address's bytes in network order (4 or 16) and the port.
    public struct Endpoint: Sendable, Equatable {
        public var address: [UInt8]
        public var port: Int

        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }
    }

    /// The uid owning the socket whose local end is `peer` and remote end is `local`, or nil
    /// when no such socket is listed (the peer is on another machine).
    public static func uid(peer: Endpoint, local: Endpoint) -> uid_t? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = readFile(table) else { continue }
            if let uid = uid(peer: peer, local: local, table: text) { return uid }
        }
        return nil
    }

    /// The same lookup in a table's text (`/proc/net/tcp`'s format: `sl local_address
    /// rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …`).
    public static func uid(peer: Endpoint, local: Endpoint, table: String) -> uid_t? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, let ownEnd = endpoint(fields[1]), let otherEnd = endpoint(fields[2]),
                  same(ownEnd, peer), same(otherEnd, local) else { continue }
            return uid_t(fields[7])
        }
        return nil
    }

    /// `0100007F:1F90`: the address as the kernel prints it (32-bit words in the machine's order,
    /// which is little-endian on every machine iaa runs on) and the port.
    static func endpoint(_ field: Substring) -> Endpoint? {
        let parts = field.split(separator: ":")
        guard parts.count == 2, parts[0].count == 8 || parts[0].count == 32, let port = Int(parts[1], radix: 16) else { return nil }
        var bytes: [UInt8] = []
        var rest = parts[0][...]
        while !rest.isEmpty {
            guard let word = UInt32(rest.prefix(8), radix: 16) else { return nil }
            bytes += withUnsafeBytes(of: word.littleEndian) { Array($0) }
            rest = rest.dropFirst(8)
        }
        return Endpoint(address: bytes, port: port)
    }

    /// Equal ends, an IPv4 address and its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`) alike.
    static func same(_ a: Endpoint, _ b: Endpoint) -> Bool {
        a.port == b.port && mappedToIPv6(a.address) == mappedToIPv6(b.address)
    }

    private static func mappedToIPv6(_ address: [UInt8]) -> [UInt8] {
        address.count == 4 ? [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + address : address
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
