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
