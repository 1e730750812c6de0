import Foundation
import Testing
import TestKit

/// Runs the built `iaa` binary (`Repository.binary`).
enum IAACommand {
    /// A started `iaa`, for the streaming verbs the test has to feed while it runs.
    final class Running {
        let process = Process()
        let directory: String

        init(_ arguments: [String], environment: [String: String]) throws {
            try #require(FileManager.default.isExecutableFile(atPath: Repository.binary),
                         "no iaa binary at \(Repository.binary): run `swift build` first, or set IAA_BIN")
            directory = try makeTemporaryDirectory("cli")
            // Files rather than pipes: a full pipe can never block the child while we wait for it.
            for name in ["stdout", "stderr"] {
                try #require(FileManager.default.createFile(atPath: directory + "/" + name, contents: nil))
            }
            process.executableURL = URL(fileURLWithPath: Repository.binary)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
            // NO_COLOR as the default: output compared as text must not depend on the test's terminal.
            var env = ProcessInfo.processInfo.environment
            env["NO_COLOR"] = "1"
            process.environment = env.merging(environment) { $1 }.filter { !$0.value.isEmpty }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/stdout"))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/stderr"))
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Waits for the exit, killing the process after `timeout` so a hang fails the test instead of the run.
        func finish(timeout: Duration = .seconds(20)) throws -> CommandResult {
            if !process.waitForExit(seconds: timeout / .seconds(1)) {
                Issue.record("iaa \(process.arguments ?? []) did not finish within \(timeout)")
            }
            return CommandResult(status: process.terminationStatus,
                                 stdout: try String(contentsOfFile: directory + "/stdout", encoding: .utf8),
                                 stderr: try String(contentsOfFile: directory + "/stderr", encoding: .utf8))
        }

        /// What the process has written to stdout so far.
        var stdoutSoFar: String { (try? String(contentsOfFile: directory + "/stdout", encoding: .utf8)) ?? "" }
    }

    /// Runs `iaa ARGUMENTS` to the end. An empty value in `environment` removes that variable.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try Running(arguments, environment: environment).finish()
    }
}
