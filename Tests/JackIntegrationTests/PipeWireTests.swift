import AudioFiles
import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// iaa under PipeWire's JACK (`pw-jack`), as most desktops run it now: a private, headless
    /// PipeWire daemon (its own XDG_RUNTIME_DIR), the engine's ports seen by PipeWire's jack_lsp,
    /// its audio recorded by PipeWire's jack_rec, its control socket answering.
    @Suite("iaa under PipeWire's JACK", .serialized,
           .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire")
                        && FileManager.default.isExecutableFile(atPath: "/usr/bin/pw-jack"),
                    "needs pipewire and pipewire-jack, which tools/test installs"))
    struct PipeWireTests {
        /// The amplitude of the sine at `frequency` in `samples` (a least-squares fit over whole
        /// periods), and the RMS of what is left once that sine is taken out.
        static func sineAndRest(_ samples: [Float], frequency: Double, sampleRate: Double) -> (amplitude: Double, rest: Double) {
            // Whole periods: 440 Hz at 48 kHz repeats every 1200 frames (11 periods), where the
            // sine and cosine sums are exactly orthogonal.
            let whole = Int((sampleRate / frequency * 11).rounded())
            let count = samples.count / whole * whole
            guard count > 0 else { return (0, 0) }
            let omega = 2 * Double.pi * frequency / sampleRate
            var sine = 0.0, cosine = 0.0
            for n in 0..<count {
                sine += Double(samples[n]) * sin(omega * Double(n))
                cosine += Double(samples[n]) * cos(omega * Double(n))
            }
            let (a, b) = (2 * sine / Double(count), 2 * cosine / Double(count))
            var power = 0.0
            for n in 0..<count {
                let left = Double(samples[n]) - a * sin(omega * Double(n)) - b * cos(omega * Double(n))
                power += left * left
            }
            return ((a * a + b * b).squareRoot(), (power / Double(count)).squareRoot())
        }

        @Test("pw-jack iaa run registers the graph's ports in PipeWire and plays the same signal as under jackd")
        func runsUnderPwJack() throws {
            let runtime = try JackHarness.temporaryDirectory()
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
            defer { try? FileManager.default.removeItem(at: runtime) }
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            environment["JACK_DEFAULT_SERVER"] = nil
            environment["PIPEWIRE_LOG_SYSTEMD"] = "false"

            func start(_ arguments: [String], log: String) throws -> Process {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: arguments[0])
                process.arguments = Array(arguments.dropFirst())
                process.environment = environment
                _ = FileManager.default.createFile(atPath: runtime.appendingPathComponent(log).path, contents: nil)
                process.standardOutput = try FileHandle(forWritingTo: runtime.appendingPathComponent(log))
                process.standardError = process.standardOutput
                try process.run()
                return process
            }
            func stop(_ process: Process) {
                #expect(process.end(with: SIGTERM), "\(process.arguments ?? []) did not exit within 15 s of SIGTERM")
            }
            func pwJack(_ arguments: [String]) throws -> CommandResult {
                try runCommand("/usr/bin/pw-jack", arguments, environment: environment.compactMapValues { $0 },
                               removing: ["JACK_DEFAULT_SERVER"])
            }

            let daemon = try start(["/usr/bin/pipewire"], log: "pipewire.log")
            defer { stop(daemon) }
            #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: runtime.appendingPathComponent("pipewire-0").path) },
                    "PipeWire did not create its socket")
            let socket = runtime.appendingPathComponent("engine.sock").path
            // pw-jack execs the program, so the process is the engine itself.
            let engine = try start(["/usr/bin/pw-jack", Repository.binary, "run", Repository.path("graphs/demo.json"),
                                    "-n", "t-pw", "--socket", socket], log: "engine.log")
            defer { stop(engine) }
            let engineLog = { (try? String(contentsOf: runtime.appendingPathComponent("engine.log"), encoding: .utf8)) ?? "" }
            #expect(waitUntil(seconds: 10) { engineLog().contains("iaa: running 'demo' as JACK client 't-pw'") }, "\(engineLog())")
            let ports = try pwJack(["jack_lsp"]).stdout.split(separator: "\n").map(String.init)
            #expect(ports.contains("t-pw:mix.out") && ports.contains("t-pw:tone-gain.in"), "\(ports)")

            let file = runtime.appendingPathComponent("pw.wav").path
            #expect(try pwJack(["jack_rec", "-f", file, "-d", "2", "t-pw:mix.out"]).status == 0)
            let recorded = try SoundFileReader(path: file).readAll()[0].dropFirst(4_800)
            // The demo's mix, each of its two paths measured apart: the whole level cannot tell
            // them (tone and noise give RMS 0.181, the tone alone 0.177). The 440 Hz tone at
            // -6 dB is a sine of amplitude 0.251; what is left once it is taken out is the noise,
            // uniform at 25 % of 0.25, RMS 0.0625/√3 = 0.0361 (0 without the noise path).
            let (tone, rest) = Self.sineAndRest(Array(recorded), frequency: 440, sampleRate: 48_000)
            #expect(abs(tone - 0.2506) < 0.01, "the 440 Hz tone's amplitude: \(tone)")
            #expect(abs(rest - 0.0361) < 0.006, "the noise's RMS, the tone taken out: \(rest)")

            let status = try ControlClient(path: socket).call("status", params: [:]).get()
            #expect(status["jack"]?["client"]?.stringValue == "t-pw")
            stop(engine)
            #expect(engine.terminationStatus == 0, "\(engineLog())")
            #expect(!(try pwJack(["jack_lsp"]).stdout.contains("t-pw:")))
        }
    }
}
