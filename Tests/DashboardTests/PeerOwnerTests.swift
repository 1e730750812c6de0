#if canImport(Glibc)
import Glibc
#endif
@testable import Dashboard
import Testing

@Suite("Peer owner")
struct PeerOwnerTests {
    /// Two connections over loopback as /proc/net/tcp lists them: 127.0.0.1:40000 → :8737 owned
    /// by uid 1000, and the server's end owned by uid 0.
    static let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:2221 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 20 4 30 10 -1
           1: 0100007F:9C40 0100007F:2221 01 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0000000000000000 20 4 30 10 -1
        """

    static let server = PeerOwner.Endpoint(address: [127, 0, 0, 1], port: 8737)
    static let client = PeerOwner.Endpoint(address: [127, 0, 0, 1], port: 40000)

    @Test("the peer's socket is the one whose ends are ours reversed; its uid column is its owner")
    func table() {
        #expect(PeerOwner.uid(peer: Self.client, local: Self.server, table: Self.table) == 1000)
        #expect(PeerOwner.uid(peer: Self.server, local: Self.client, table: Self.table) == 0)
        #expect(PeerOwner.uid(peer: PeerOwner.Endpoint(address: [127, 0, 0, 1], port: 40001), local: Self.server, table: Self.table) == nil)
    }

    @Test("IPv6 addresses, and IPv4 in its mapped form, are read as the kernel writes them")
    func ipv6() {
        let mapped = PeerOwner.endpoint("0000000000000000FFFF00000100007F:9C40")
        #expect(mapped == PeerOwner.Endpoint(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1], port: 40000))
        #expect(PeerOwner.same(mapped!, Self.client))
        #expect(PeerOwner.endpoint("00000000000000000000000001000000:0050")?.address.last == 1)  // ::1
        #expect(PeerOwner.endpoint("nonsense") == nil)
    }

    @Test("a real loopback connection: the kernel's table names this process's user")
    func live() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        #expect(bound == 0)
        #expect(listen(listener, 1) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) } }
        #expect(connected == 0)
        var clientAddress = sockaddr_in()
        var clientLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &clientAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &clientLength) } }
        let server = PeerOwner.Endpoint(address: [127, 0, 0, 1], port: Int(UInt16(bigEndian: address.sin_port)))
        let peer = PeerOwner.Endpoint(address: [127, 0, 0, 1], port: Int(UInt16(bigEndian: clientAddress.sin_port)))
        #expect(PeerOwner.uid(peer: peer, local: server) == getuid())
    }
}
