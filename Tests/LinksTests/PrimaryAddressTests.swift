import Links
import Testing

@Suite("Where a satellite finds its primary")
struct PrimaryAddressTests {
    @Test("a socket path, or ssh://[USER@]HOST[:PORT]/PATH forwarded by ssh -N -L; anything else refused with the forms")
    func forms() throws {
        #expect(try PrimaryAddress("/run/user/1000/iaa/head.sock") == .socket("/run/user/1000/iaa/head.sock"))
        let remote = try PrimaryAddress("ssh://iaa@192.168.1.20:2222/run/user/1000/iaa/head.sock")
        #expect(remote == .ssh(destination: "iaa@192.168.1.20", port: 2222, remotePath: "/run/user/1000/iaa/head.sock"))
        #expect(remote.description == "ssh://iaa@192.168.1.20:2222/run/user/1000/iaa/head.sock")
        #expect(remote.sshArguments(localSocket: "/run/user/1000/iaa/rear-primary.sock", config: "/etc/iaa/ssh_config") == [
            "-N", "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
            "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=2", "-F", "/etc/iaa/ssh_config", "-p", "2222",
            "-L", "/run/user/1000/iaa/rear-primary.sock:/run/user/1000/iaa/head.sock", "--", "iaa@192.168.1.20",
        ])
        #expect(try PrimaryAddress("ssh://head-unit/h.sock") == .ssh(destination: "head-unit", port: nil, remotePath: "/h.sock"))
        #expect(PrimaryAddress.socket("/a").sshArguments(localSocket: "/b", config: nil) == nil)
        for wrong in ["head.sock", "ssh://head-unit", "ssh:///h.sock", "ssh://-oProxyCommand=x/h.sock", "ssh://h:99999/h.sock"] {
            #expect(throws: PrimaryAddress.Invalid.self, "\(wrong)") { try PrimaryAddress(wrong) }
        }
    }
}
