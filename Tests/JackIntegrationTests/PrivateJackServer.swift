import Foundation
import TestKit

/// A JACK server of a test's own on the dummy driver, so killing it, or a client wedged inside
/// it, disturbs nothing else.
final class PrivateJackServer {
    let name: String
    /// jackd's own options, before the driver's (`-S`: synchronous mode).
    let options: [String]
    /// The size of its port table: 512, as tools/test-lane's servers have (each client locks it
    /// in memory), unless a test needs more.
    let portMax: Int
    var process: Process?

    init(prefix: String, options: [String] = [], portMax: Int = 512) {
        name = "\(prefix)-\(getpid())-\(UInt16.random(in: 0...9_999))"
        self.options = options
        self.portMax = portMax
    }

    func start() throws {
        let jackd = Process()
        jackd.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        jackd.arguments = ["-n", name, "--port-max", String(portMax)] + options + ["-d", "dummy", "-r", "48000", "-p", "256"]
        jackd.standardOutput = FileHandle.nullDevice
        jackd.standardError = FileHandle.nullDevice
        try jackd.run()
        process = jackd
        _ = try runCommand("jack_wait", ["-s", name, "-w", "-t", "10"])
    }

    /// SIGKILL, as the test means it; `stop` ends the server cleanly.
    func kill() {
        guard let process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM: jackd frees its slot in JACK's shared server table. A SIGKILLed server
    /// keeps its slot until a server of the same name starts, and the table has 8 slots.
    /// A server that has not gone 10 s later is killed, and says so: jackd can hang on its way
    /// out when a client died inside it, which is jackd's matter, not the test's.
    func stop() {
        guard let process, !process.end(with: SIGTERM, within: 10) else { return }
        FileHandle.standardError.write(Data("PrivateJackServer: jackd -n \(name) did not exit within 10 s of SIGTERM; killed\n".utf8))
    }

    func lsp() -> String {
        (try? runCommand("jack_lsp", ["-s", name, "-c"]).stdout) ?? ""
    }
}
