import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// `iaa web` against a running engine: the page in headless Chromium (Tests/Browser/dashboard.py
    /// drives it through chromium-driver), and the server's refusals with curl.
    @Suite("Dashboard", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct DashboardTests {
        typealias Running = ControlPlaneTests.Running

        /// `iaa web --listen 127.0.0.1:0` for the engine at `socket`: started, its address read
        /// from its first line, stopped by PID.
        final class WebProcess {
            let process = Process()
            let url: String
            private let folder: String

            init(socket: String) throws {
                folder = try makeTemporaryDirectory("web")
                let out = folder + "/stdout"
                _ = FileManager.default.createFile(atPath: out, contents: nil)
                process.executableURL = URL(fileURLWithPath: Repository.binary)
                process.arguments = ["web", "--socket", socket, "--listen", "127.0.0.1:0"]
                process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                process.standardError = FileHandle.nullDevice
                try process.run()
                var address: String?
                _ = waitUntil(seconds: 10) {
                    address = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").first.map(String.init)
                    return address != nil
                }
                guard let address else {
                    process.terminate()
                    throw EngineProcessError(message: "iaa web printed no address within 10 s")
                }
                url = address
            }

            /// `http://127.0.0.1:PORT`
            var origin: String { "http://" + url.dropFirst("http://".count).prefix { $0 != "/" } }
            var token: String { String(url.split(separator: "=").last ?? "") }

            func stop() {
                #expect(process.end(with: SIGTERM), "iaa dashboard did not exit within 15 s of SIGTERM")
                try? FileManager.default.removeItem(atPath: folder)
            }
        }

        /// The HTTP status curl got for `path` with these extra headers.
        static func status(_ web: WebProcess, _ path: String, _ headers: [String] = [], user: String? = nil) throws -> String {
            let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2"] + headers.flatMap { ["-H", $0] }
                + [web.origin + path]
            if let user {
                return try runCommand("setpriv", ["--reuid", user, "--regid", user, "--clear-groups", "curl"] + arguments).stdout
            }
            return try runCommand("curl", arguments).stdout
        }

        static let upgrade = ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]

        @Test("the demo's graph in Chromium; refused: no token (401), another Host (403), a WebSocket from another origin or none (403), another user (403)")
        func demoAndRefusals() throws {
            let running = try Running(graph: "graphs/demo.json", client: "t-web-no")
            defer { running.stop() }
            let web = try WebProcess(socket: running.socket)
            defer { web.stop() }
            #expect(try Self.status(web, "/") == "401")
            #expect(try Self.status(web, "/?token=\(web.token)") == "200")
            #expect(try Self.status(web, "/?token=\(web.token)", ["Host: attacker.example"]) == "403")
            #expect(try Self.status(web, "/ws?token=\(web.token)", Self.upgrade) == "403")
            #expect(try Self.status(web, "/ws?token=\(web.token)", Self.upgrade + ["Origin: http://attacker.example"]) == "403")
            #expect(try Self.status(web, "/ws", Self.upgrade + ["Origin: \(web.origin)"]) == "401")
            #expect(try Self.status(web, "/ws?token=\(web.token)", Self.upgrade + ["Origin: \(web.origin)"]) == "101")
            // The control socket's rule: only the engine's own user, the token notwithstanding.
            if getuid() != 65_534 {
                #expect(try Self.status(web, "/?token=\(web.token)", user: "65534") == "403")
            }

            let script = try Self.drive([web.url, running.socket, "--graph-only"])
            let page = try #require(script.stdoutLines.last.flatMap { try? ControlJSONParser.parse($0) }, "dashboard.py: \(script.output)")
            #expect(Set(page["apps"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["tone", "noise", "tone-gain", "noise-gain", "mix"])
            #expect(page["jackEdges"]?.arrayValue?.compactMap(\.stringValue).contains("mix:out -> @system:playback_1") == true)
        }

        /// Tests/Browser/dashboard.py with `arguments`; Chromium's profile and the folders it
        /// leaves behind on quitting go to a temporary folder of the test's, removed after.
        static func drive(_ arguments: [String]) throws -> CommandResult {
            let folder = try JackHarness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            return try runCommand("/usr/bin/python3", [Repository.path("Tests/Browser/dashboard.py")] + arguments,
                                  environment: ["TMPDIR": folder.path])
        }

        @Test("in Chromium: the graph, the meters, each duck and unduck shown, a parameter set from the page, a refusal as iaa prints it")
        func browser() throws {
            let running = try Running(graph: "graphs/headunit.json", client: "t-web")
            defer { running.stop() }
            let web = try WebProcess(socket: running.socket)
            defer { web.stop() }
            let script = try Self.drive([web.url, running.socket])
            let json = script.stdoutLines.last.flatMap { try? ControlJSONParser.parse($0) }
            let page = try #require(json, "dashboard.py: \(script.output)")

            #expect(page["withoutToken"]?.stringValue?.contains("needs the token") == true)
            #expect(Set(page["apps"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["music", "nav", "phone", "game", "speakers"])
            #expect(page["outsideClients"]?.arrayValue?.compactMap(\.stringValue) == ["system"])
            #expect(page["jackEdges"]?.arrayValue?.compactMap(\.stringValue).contains("speakers:out -> @system:playback_1") == true)
            #expect(page["link"]?.stringValue == "connected")
            #expect(page["musicState"]?.stringValue == "audible")
            #expect(page["duckedText"]?.stringValue?.hasPrefix("ducked -12.0 dB") == true)
            // The page showed every duck and unduck of the ten rounds (dashboard.py waits for each);
            // how fast is a figure, printed below and in docs/dashboard.md, not a pass or a fail.
            for key in ["duckState", "duckMeter", "unduckState", "unduckMeter"] {
                #expect(page[key]?["all"]?.arrayValue?.count == 10, "\(key): \(page[key]?.text ?? "missing")")
            }
            #expect(page["timeline"]?.arrayValue?.compactMap(\.stringValue).contains { $0.contains("music is ducked") } == true)
            #expect(page["refusal"]?.stringValue?.hasPrefix("error[unknownPort]: app \"speakers\" has no input \"in_99\"") == true)
            let frequency = try running.result("get", ["app": "music", "param": "frequency"])["parameters"]?.arrayValue?.first?["value"]
            #expect(abs((frequency?.doubleValue ?? 0) - 523.25) < 0.01)
            let figures = ["duckState", "duckMeter", "unduckState", "unduckMeter"].map { "\($0) \(page[$0]?["median"]?.text ?? "-")/\(page[$0]?["p99"]?.text ?? "-")" }
            print("dashboard: load \(page["loadMs"]?.text ?? "-") ms; median/p99 ms: \(figures.joined(separator: ", "))")
        }
    }
}
