import Foundation
import Testing
import TestKit

/// Shell steps from the documentation, run as a reader pastes them, in a folder of the test's:
/// every process they start carries a mark in its environment, those put in the background are
/// written down by PID, and ``finish(_:)`` ends every one of them, also when the test failed.
final class DocumentedSteps {
    let directory: String
    let mark: String
    let log: String
    private let pids: String
    /// The script's own end: Process sees its child end only once every inherited copy of its
    /// descriptors is closed, and the programs the steps put in the background keep them.
    private let exitFile: String
    private let process = Process()

    /// `prologue` sets the scene (exports, `cd`); each of `blocks` is a documented block, run
    /// with a line recording the PID of each command it puts in the background.
    init(directory: String, markName: String, prologue: String, blocks: [String]) throws {
        self.directory = directory
        mark = markName + "=" + UUID().uuidString
        pids = directory + "/pids"
        log = directory + "/log"
        exitFile = directory + "/exit"
        _ = FileManager.default.createFile(atPath: pids, contents: nil)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let script = """
            trap 'echo $? >"\(exitFile)"' EXIT
            set -eu
            export \(mark) PIDS="\(pids)"
            \(prologue)
            \(blocks.map(Self.script).joined(separator: "\n"))
            """
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = process.standardOutput
        try process.run()
    }

    /// A block as run: the `apt-get` line left out (tools/test installs the packages), and
    /// `echo $! >>"$PIDS"` after each command it puts in the background.
    static func script(_ block: String) -> String {
        block.split(separator: "\n").filter { !$0.hasPrefix("apt-get ") }.map { line in
            let command = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
            let trimmed = command.trimmingCharacters(in: .whitespaces)
            return trimmed.hasSuffix("&") && !trimmed.hasSuffix("&&") ? line + "\necho $! >>\"$PIDS\"" : String(line)
        }.joined(separator: "\n")
    }

    /// The script's exit status once it has ended, else nil.
    var status: String? {
        (try? String(contentsOfFile: exitFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the steps printed so far.
    var output: String { (try? String(contentsOf: URL(fileURLWithPath: log), encoding: .utf8)) ?? "" }

    /// Ends the script if it still runs, every process it put in the background, then any other
    /// still marked (a foreground one after a timeout), until none is left; records an issue
    /// naming `what` when some outlived this.
    func finish(_ what: String) {
        if status == nil { kill(process.processIdentifier, SIGKILL) }
        let started = ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
        // SIGTERM first, and time to go: a JACK client killed while it closes can leave jack2's
        // metadata database locked, which hangs every later client of the lane's servers.
        for pid in started + Self.processes(marked: mark) { kill(pid, SIGTERM) }
        _ = waitUntil(seconds: 5) { Self.processes(marked: mark).isEmpty }
        for pid in started { kill(pid, SIGKILL) }
        let gone = waitUntil(seconds: 10) {
            let left = Self.processes(marked: mark)
            for pid in left { kill(pid, SIGKILL) }
            return left.isEmpty
        }
        #expect(gone, "processes of \(what) outlived the test: \(Self.processes(marked: mark))")
        process.waitUntilExit()
    }

    /// What the steps' processes are doing now (state, kernel wait channel, command), for a
    /// failure message when they do not finish.
    var stuck: String {
        Self.processes(marked: mark).map { pid in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first ?? "?"
            let channel = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?
                .split(separator: "\0").joined(separator: " ") ?? "?"
            return "\(pid) \(stat) \(channel) \(command)"
        }.joined(separator: "\n")
    }

    /// The processes whose environment holds `mark`.
    static func processes(marked mark: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { $0.elementsEqual(mark.utf8) }
        }
    }
}
