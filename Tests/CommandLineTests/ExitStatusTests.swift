import ControlSocket
import Foundation
import Testing
import TestKit

/// Exit statuses as docs/command-line.md sets them (wpctl's plus argument-parser's), and where
/// diagnostics go.
@Suite("iaa exit statuses and diagnostics", .serialized)
struct ExitStatusTests {
    @Test("no engine on the socket: the reason on stderr, exit 2", arguments: [
        ["status"], ["ports"], ["set", "tone", "gain", "0.5"], ["events"], ["top"],
    ])
    func unreachable(arguments: [String]) throws {
        let directory = NSTemporaryDirectory() + "iaa-cli-none-" + UUID().uuidString
        let result = try IAACommand.run(arguments + ["--socket", directory + "/iaa.sock"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("iaa: no iaa engine is running on socket \(directory)/iaa.sock"), "\(result.stderr)")
    }

    @Test("-n picks the socket named after the engine's client")
    func nameChoosesSocket() throws {
        let result = try IAACommand.run(["status", "-n", "nosuchengine"], environment: ["XDG_RUNTIME_DIR": "/nonexistent-iaa-test"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent-iaa-test/iaa/nosuchengine.sock"), "\(result.stderr)")
    }

    @Test("a refusal prints error[CODE], message and field, and exits 1")
    func refusal() throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(["session", "music", "activate"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            iaa: error[cannotInterruptOthers]: ('!int') app "music" is in the background and its category is not mixable
              field: app

            """)
        let invalid = try engine.iaa(["session", "nav", "set", "--category", "bogus"])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("iaa: error[invalidParams]: unknown category \"bogus\""))
        #expect(invalid.stderr.hasSuffix("\n  field: category\n"))
    }

    @Test("no such app or port exits 3", arguments: [
        ["get", "ghost"], ["set", "ghost", "gain", "1"], ["connect", "tone:out", "daw:in_9"], ["app", "ghost", "foreground"],
    ])
    func missingObject(arguments: [String]) throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(arguments)
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(#/^iaa: error\[unknown(App|Port)\]: /#))
    }

    @Test("an engine named like its JACK server is refused before it connects: jack2 would replace the server's socket with the client's")
    func clientNamedLikeServer() throws {
        let directory = try makeTemporaryDirectory("clash")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try IAACommand.run(["run", Repository.path("graphs/demo.json"), "-s", "rear-unit", "-n", "rear-unit", "--no-state"],
                                        environment: ["XDG_RUNTIME_DIR": directory])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the JACK client name \"rear-unit\" is the JACK server's name"), "\(result.stderr)")
        #expect(result.stderr.contains("-n rear-unit-iaa"))
    }

    @Test("usage mistakes exit 64 without asking the engine", arguments: [
        ["device", "silent", "maybe"], ["session", "nav", "set"], ["session", "nav", "activate", "--category", "playback"],
        ["app", "nav", "task"], ["interrupt", "begin", "--reason", "lunch"], ["remote", "rewind"], ["set", "tone", "gain"],
        ["graph", "--format", "svg"],
    ])
    func usage(arguments: [String]) throws {
        let engine = try CannedEngine()
        let result = try engine.iaa(arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(engine.requests.isEmpty)
    }

    @Test("NO_COLOR, or output that is not a terminal, never gets escape codes")
    func noColour() throws {
        let engine = try CannedEngine()
        for environment in [["NO_COLOR": "1"], ["NO_COLOR": "", "TERM": "xterm-256color"]] {
            for arguments in [["status"], ["session", "music", "activate"], ["device", "silent", "on"]] {
                let result = try engine.iaa(arguments, environment: environment)
                #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "\(arguments) \(environment)")
            }
        }
    }
}
