import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// `iaa dump --graph > now.json && iaa validate now.json`, as `--help` promises, for every
    /// example graph while it runs, with real programs routed and admitted and a connection made
    /// outside the graph file: the file validates, keeps the graph's rules as written (`@capture`, `@playback`),
    /// holds none of the routes the engine makes for programs, and run again gives the same JACK
    /// ports and connections.
    @Suite("dump --graph round trips every example graph, programs running", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct DumpRoundTripTests {
        typealias Running = ControlPlaneTests.Running

        /// `jack_lsp -c` lines of the engine's ports and what each connects to, sorted.
        func ours(_ client: String) throws -> [String] {
            try jackConnections().filter { $0.key.hasPrefix(client + ":") }.map { "\($0.key) <- \($0.value.sorted())" }.sorted()
        }

        func jackRules(_ file: String) throws -> [[String]] {
            let parsed = try ControlJSONParser.parse(file)
            return (parsed["jack"]?["connections"]?.arrayValue ?? []).map { [$0["from"]?.stringValue ?? "", $0["to"]?.stringValue ?? ""] }
        }

        @Test("each example graph's dump validates, keeps its rules as written, omits program routes and runs again the same", arguments: Repository.graphFiles(in: "graphs"))
        func roundTrip(_ graph: String) throws {
            let client = "t-rt-" + (graph.split(separator: "/").last ?? "").replacingOccurrences(of: ".json", with: "")
            let running = try Running(graph: graph, client: client)
            defer { running.stop() }
            var programs: [ProgramProcess] = []
            defer { for program in programs { program.stop() } }
            var handMade: [String]?
            // The players below are the programs of graphs/programs.json's `music` (mpv*) and of
            // the apps it admits: a graph whose program apps are others (a link end, whose program
            // the engine starts; jack_latent_client; a satellite's apps, which speak for their
            // sessions only) runs without them.
            let apps = try running.result("status")["apps"]?.arrayValue ?? []
            if apps.contains(where: { $0["id"]?.stringValue == "music" && $0["program"] != .null && $0["link"] == .null }) {
                let tone = running.directory.appendingPathComponent("tone.wav").path
                #expect(try runCommand("sox", ["-n", "-r", "48000", "-c", "2", tone, "synth", "2", "sine", "440"]).status == 0)
                // mpv is the graph's `music` (mpv*); jack_simple_client is admitted (`*`).
                programs.append(try ProgramProcess("mpv", ["--no-config", "--no-video", "--no-terminal", "--ao=jack", "--jack-name=mpv-rt",
                                                           "--jack-autostart=no", "--loop=inf", tone]))
                programs.append(try ProgramProcess("jack_simple_client", ["rtplayer"]))
                #expect(try waitUntil(seconds: 10) {
                    try jackConnections()["\(client):music.play_1"]?.contains("mpv-rt:out_0") == true
                        && jackConnections()["\(client):rtplayer.play_1"]?.isEmpty == false
                }, "the programs were not routed: \(running.engine.stderr)")
                // jack_rec (inputs only: not admitted) connects itself to the speakers: a
                // connection made outside the graph file, which the dump keeps as a rule.
                let recording = running.directory.appendingPathComponent("rec.wav").path
                programs.append(try ProgramProcess("jack_rec", ["-f", recording, "-d", "60", "\(client):speakers.out"]))
                #expect(try waitUntil(seconds: 5) { try jackConnections()["jackrec:input1"]?.contains("\(client):speakers.out") == true })
                handMade = ["speakers:out", "jackrec:input1"]
                // iaa graph draws the programs' routes as theirs, the recorder's as made outside.
                let dot = try running.result("graph", ["format": "dot"])["dot"]?.stringValue ?? ""
                #expect(dot.contains("mpv-rt:out_0 -> \(client):music.play_1, the route of program app music"), "\(dot)")
                #expect(!dot.contains("mpv-rt:out_0 -> \(client):music.play_1, made outside"), "\(dot)")
                #expect(dot.contains("\(client):speakers.out -> jackrec:input1, made outside the graph file"), "\(dot)")
            }
            let file = try running.result("dump", ["graph": true])["file"]?.stringValue ?? ""
            let path = running.directory.appendingPathComponent("now.json").path
            try file.write(toFile: path, atomically: true, encoding: .utf8)
            let validated = try runCommand(Repository.binary, ["validate", path])
            #expect(validated.status == 0, "\(graph): \(validated.stderr)\n\(file)")

            let written = try jackRules(file)
            let original = try jackRules(try #require(Repository.read(graph)))
            for rule in original { #expect(written.contains(rule), "\(graph): rule \(rule) not written as the file has it: \(written)") }
            // An app's play_K / capture_K (the program's end of its route); system:capture_K is not one.
            func isProgramEnd(_ name: String) -> Bool {
                !name.hasPrefix("system:") && (name.contains("play_") || name.contains("capture_"))
            }
            for rule in written {
                #expect(!rule.contains(where: isProgramEnd), "\(graph): a program's route was written as a rule: \(rule)")
                #expect(!rule.contains { $0.hasPrefix("mpv-rt:") || $0.hasPrefix("rtplayer:") }, "\(graph): \(rule)")
            }
            if let handMade { #expect(written.contains(handMade), "\(graph): the connection made by hand is missing: \(written)") }

            let before = try ours(client)
            running.engine.stop()
            let again = try EngineProcess(graph: path, client: client, arguments: ["--socket", running.socket])
            defer { again.stop() }
            #expect(try waitUntil(seconds: 10) { try ours(client) == before },
                    "\(graph): run again, the engine's JACK ports differ:\nbefore \(before)\nafter  \((try? ours(client)) ?? [])")
        }
    }
}
