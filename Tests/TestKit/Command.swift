import Foundation

/// What a finished command printed and how it ended.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Standard output, then standard error.
    public var output: String { stdout + stderr }

    /// Standard output's lines, without the empty one after the last newline.
    public var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Runs a program to completion. A bare name is looked up on PATH; `environment` is merged into
/// this process's and `removing` names variables to unset. Output goes through files, not pipes:
/// a full pipe would block the child while we wait for it.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String], directory: String? = nil,
                       environment: [String: String] = [:], removing: [String] = []) throws -> CommandResult {
    let folder = try makeTemporaryDirectory("command")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let outPath = folder + "/stdout", errPath = folder + "/stderr"
    for path in [outPath, errPath] { FileManager.default.createFile(atPath: path, contents: nil) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    for key in removing { merged[key] = nil }
    process.environment = merged
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return CommandResult(status: process.terminationStatus,
                         stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// Polls `condition` every 50 ms for up to `seconds`; true as soon as it holds.
public func waitUntil(seconds: Double = 3, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}
