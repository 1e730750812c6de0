import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// The control link between machines carried by OpenSSH, on one machine: a private sshd on
    /// loopback that accepts one key, the satellite reaching its primary through the `ssh -N -L`
    /// it runs itself (docs/links.md).
    @Suite("A satellite's primary through ssh", .serialized,
           .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd"),
                    "needs root to run a private sshd (tools/test runs as root in CI and installs openssh-server)"))
    struct SatelliteSSHTests {
        typealias Side = LinkTests.Side

        /// sshd on 127.0.0.1, accepting the key `client` only, and an ssh_config for it per key.
        final class PrivateSSHD {
            let directory: String
            let port = 22_000 + Int(getpid() % 2_000)

            init(in directory: String) throws {
                self.directory = directory
                for key in ["host", "client", "wrong"] {
                    #expect(try runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(directory)/\(key)"]).status == 0)
                }
                try FileManager.default.copyItem(atPath: "\(directory)/client.pub", toPath: "\(directory)/authorized_keys")
                let hostKey = try String(contentsOfFile: "\(directory)/host.pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
                try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: "\(directory)/known_hosts", atomically: true, encoding: .utf8)
                try """
                    Port \(port)
                    ListenAddress 127.0.0.1
                    HostKey \(directory)/host
                    PidFile \(directory)/sshd.pid
                    AuthorizedKeysFile \(directory)/authorized_keys
                    StrictModes no
                    UsePAM no
                    PasswordAuthentication no
                    KbdInteractiveAuthentication no
                    PermitRootLogin prohibit-password
                    AllowStreamLocalForwarding yes
                    """.write(toFile: "\(directory)/sshd_config", atomically: true, encoding: .utf8)
                try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
                // sshd forks into the background itself and writes its pid file once it listens.
                let started = try runCommand("/usr/sbin/sshd", ["-f", "\(directory)/sshd_config", "-E", "\(directory)/sshd.log"])
                try #require(started.status == 0, "sshd: \(started.stderr)")
                _ = waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: "\(directory)/sshd.pid") }
            }

            /// An ssh_config naming this server `head-unit`, with `key`.
            func config(key: String) throws -> String {
                let file = "\(directory)/config-\(key)"
                try """
                    Host head-unit
                        HostName 127.0.0.1
                        Port \(port)
                        User root
                        IdentityFile \(directory)/\(key)
                        IdentitiesOnly yes
                        UserKnownHostsFile \(directory)/known_hosts
                        StrictHostKeyChecking yes
                    """.write(toFile: file, atomically: true, encoding: .utf8)
                return file
            }

            func stop() {
                guard let text = try? String(contentsOfFile: "\(directory)/sshd.pid", encoding: .utf8),
                      let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
                kill(pid, SIGTERM)
                _ = waitUntil(seconds: 5) { kill(pid, 0) != 0 }
            }
        }

        @Test("with another key the satellite is refused with ssh's words and decides alone; with the authorized key it joins through ssh and the primary decides; the tunnel killed, it falls back and joins again")
        func throughSSH() throws {
            let directory = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let sshd = try PrivateSSHD(in: directory.path)
            defer { sshd.stop() }
            let head = try Side("sx", graph: SatelliteTests.primaryGraph, in: directory)
            defer { head.stop() }
            let primary = "ssh://head-unit\(head.socket)"
            let wrong = try Side("sw", graph: SatelliteTests.satelliteGraph, in: directory,
                                 arguments: ["--join", primary, "--join-ssh-config", try sshd.config(key: "wrong")])
            defer { wrong.stop() }
            // Falls back at once (nothing answers yet), then says why once ssh has given up.
            var refused: ControlJSON?
            let sayswhy = waitUntil(seconds: 10) {
                refused = try? ControlClient(path: wrong.socket).call("status", params: [:]).get()["satellite"]
                return refused?["reason"]?.stringValue?.contains("Permission denied (publickey)") == true
            }
            #expect(sayswhy && refused?["state"]?.stringValue == "fallback", "\(String(describing: refused))")
            #expect(refused?["reason"]?.stringValue?.hasPrefix("ssh to head-unit failed: root@127.0.0.1: Permission denied (publickey)") == true)
            wrong.stop()

            let rear = try Side("sy", graph: SatelliteTests.satelliteGraph, in: directory,
                                arguments: ["--join", primary, "--join-ssh-config", try sshd.config(key: "client")])
            defer { rear.stop() }
            let joined = try SatelliteTests().satelliteState(rear, until: "joined")
            #expect(joined?["state"]?.stringValue == "joined", "\(String(describing: joined))\n\(rear.engine.stderr)")
            #expect(joined?["primary"]?.stringValue == primary)
            _ = try ControlClient(path: rear.socket).call("session.activate", params: ["app": "rearNav"]).get()
            #expect(try SatelliteTests().awaitGain(head, "music", 0.25), "the primary decides through the tunnel")
            // The control link cut (the tunnel killed): the satellite falls back, the primary ends
            // the satellite's sessions (its music back up), and the tunnel restarted, it joins again.
            let tunnel = try runCommand("pgrep", ["-f", "ssh -N .*sy-primary.sock"]).stdout.split(separator: "\n").compactMap { pid_t($0) }
            try #require(tunnel.count == 1, "the satellite's ssh: \(tunnel)")
            kill(tunnel[0], SIGKILL)
            #expect(try SatelliteTests().satelliteState(rear, until: "fallback")?["state"]?.stringValue == "fallback")
            #expect(try SatelliteTests().awaitGain(head, "music", 1), "the primary ended the satellite's sessions")
            let rejoined = try SatelliteTests().satelliteState(rear, until: "joined")
            #expect(rejoined?["state"]?.stringValue == "joined" && rejoined?["joins"]?.intValue == 2, "\(String(describing: rejoined))")
            #expect(try SatelliteTests().awaitGain(head, "music", 0.25), "rearNav, still active here, is active on the primary again")
        }
    }
}
