import Foundation
import Testing

/// Paths and the private server that tools/test provides.
enum JackHarness {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The private JACK server tools/test started, or nil when the tests run some other way.
    static var server: String? {
        ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var debugBinary: String {
        ProcessInfo.processInfo.environment["IAA_BIN"] ?? packageRoot.appendingPathComponent(".build/debug/iaa").path
    }

    static var releaseBinary: String {
        ProcessInfo.processInfo.environment["IAA_RELEASE_BIN"] ?? packageRoot.appendingPathComponent(".build/release/iaa").path
    }

    static func path(_ relative: String) -> String {
        packageRoot.appendingPathComponent(relative).path
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("iaa-jack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Polls `condition` every 50 ms for up to `seconds`; true as soon as it holds.
func waitUntil(seconds: Double = 3, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}

/// The result of a finished command.
struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs a command to completion (JACK's tools: jack_lsp, jack_connect, jack_rec).
@discardableResult
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                removing: [String] = []) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    for key in removing { merged[key] = nil }
    process.environment = merged
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
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
