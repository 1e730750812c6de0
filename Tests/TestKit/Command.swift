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

/// A command that had not finished when its time was up; it was killed.
public struct CommandTimedOut: Error, CustomStringConvertible {
    public let command: [String]
    public let seconds: Double
    /// What it had printed by then.
    public let printed: CommandResult

    public var description: String {
        "\(command.joined(separator: " ")) did not finish within \(String(format: "%g", seconds)) s and was killed; it had printed:\n\(printed.output)"
    }
}

/// Runs a program to completion. A bare name is looked up on PATH; `environment` is merged into
/// this process's and `removing` names variables to unset. Output goes through files, not pipes:
/// a full pipe would block the child while we wait for it. A program still running after
/// `timeout` seconds is killed and ``CommandTimedOut`` thrown: a hang fails its test, not the run.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String], directory: String? = nil,
                       environment: [String: String] = [:], removing: [String] = [],
                       timeout: Double = 600) throws -> CommandResult {
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
    let finished = process.waitForExit(seconds: timeout)
    try out.close()
    try err.close()
    let result = CommandResult(status: process.terminationStatus,
                               stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                               stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    guard finished else { throw CommandTimedOut(command: [executable] + arguments, seconds: timeout, printed: result) }
    return result
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
