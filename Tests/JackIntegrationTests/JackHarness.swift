import Foundation
import Testing
import TestKit

/// The private server that tools/test provides (paths, folders, commands: TestKit).
enum JackHarness {
    /// The private JACK server tools/test started, or nil when the tests run some other way.
    static var server: String? {
        ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        URL(fileURLWithPath: try makeTemporaryDirectory("jack"))
    }
}

/// Runs a Python script that opens JACK clients (python3-jack-client) to its end and returns
/// what it did. The script leaves through `os._exit` once it has printed, without closing its
/// clients: libjack deadlocked in `jack_client_close` while the interpreter finalized a script's
/// clients (gdb: the main thread waiting on a mutex in it), which held a lane for good. The server
/// drops the clients of a process that has gone. A script that raises ends as usual.
func runJackPython(_ script: String, environment: [String: String] = [:], timeout: Double = 60) throws -> CommandResult {
    try runCommand("/usr/bin/python3", ["-c", script + "\nimport os, sys; sys.stdout.flush(); sys.stderr.flush(); os._exit(0)\n"],
                   environment: environment, timeout: timeout)
}

/// The port names `jack_lsp` lists (with `-c`, connections are indented under their port).
func jackPorts(_ extra: [String] = [], server: String? = nil) throws -> [String] {
    try runCommand("jack_lsp", (server.map { ["-s", $0] } ?? []) + extra).stdout.split(separator: "\n").map(String.init)
}

/// `jack_lsp -c` as a map from port to its connections.
func jackConnections() throws -> [String: [String]] {
    var map: [String: [String]] = [:]
    var current = ""
    for line in try jackPorts(["-c"]) {
        if line.hasPrefix(" ") {
            map[current, default: []].append(line.trimmingCharacters(in: .whitespaces))
        } else {
            current = line
            map[current] = map[current] ?? []
        }
    }
    return map
}
