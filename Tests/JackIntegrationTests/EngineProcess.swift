import Foundation
import Testing
import TestKit

/// A running `iaa run` under test: started, waited for until its ports exist, stopped with SIGTERM.
final class EngineProcess {
    let process = Process()
    let client: String
    private let stderrFile: URL
    /// The state folder made for this engine, removed with it.
    private let stateHome: String?

    /// Starts `iaa run GRAPH -n CLIENT` and returns once the engine says it is running (ports,
    /// metadata and connections are in place by then) and JACK lists its ports.
    /// Each engine keeps its state in a folder of its own (deleted with it), unless `environment`
    /// names one (`XDG_STATE_HOME`) or `arguments` do (`--state-folder`): no test resumes another's.
    init(graph: String, client: String, binary: String = Repository.binary,
         environment: [String: String] = [:], arguments: [String] = []) throws {
        self.client = client
        stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("iaa-\(client)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        stateHome = environment["XDG_STATE_HOME"] == nil ? try makeTemporaryDirectory("state") : nil
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", graph, "-n", client] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(stateHome.map { ["XDG_STATE_HOME": $0] } ?? [:]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if stderr.contains("iaa: running"),
               try jackPorts(server: environment["JACK_DEFAULT_SERVER"]).contains(where: { $0.hasPrefix("\(client):") }) { return }
            if !process.isRunning { break }
            usleep(50_000)
        }
        let log = stderr
        process.terminate()
        throw EngineProcessError(message: "iaa run \(graph) -n \(client) did not report running with its ports within 15 s; stderr:\n\(log)")
    }

    /// What the engine wrote on stderr so far.
    var stderr: String {
        (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    }

    /// Sends SIGTERM and waits for the exit; returns the exit status. An engine still running 15 s
    /// later is killed and the test fails, with what it said.
    @discardableResult
    func stop() -> Int32 {
        if !process.end(with: SIGTERM, within: 15) {
            Issue.record("iaa run -n \(client) did not exit within 15 s of SIGTERM and was killed; stderr:\n\(stderr)")
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: stderrFile)
        if let stateHome { try? FileManager.default.removeItem(atPath: stateHome) }
    }
}

struct EngineProcessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
