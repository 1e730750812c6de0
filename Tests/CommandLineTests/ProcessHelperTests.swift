import Foundation
import Testing
import TestKit

/// The deadlines every test that starts a program relies on: a hang fails its test, not the run.
@Suite("The tests' own process helpers")
struct ProcessHelperTests {
    @Test("a command past its timeout is killed and named in the error, with what it printed")
    func commandTimesOut() throws {
        let started = ContinuousClock.now
        let error = #expect(throws: CommandTimedOut.self) {
            try runCommand("/bin/sh", ["-c", "echo waiting; exec sleep 30"], timeout: 0.5)
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.description.hasPrefix("/bin/sh -c echo waiting; exec sleep 30 did not finish within 0.5 s and was killed") == true)
        #expect(error?.printed.stdout == "waiting\n")
        #expect(error?.printed.status == SIGKILL)
    }

    /// `sh -c "TRAP; echo ready; …"` looping until a signal ends it, once it has said ready. Through
    /// sh, which unblocks the signals: a child inherits those its test thread blocks, SIGTERM among them.
    func looping(trap: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap \(trap) TERM; echo ready; while :; do sleep 0.05; done"]
        let ready = Pipe()
        process.standardOutput = ready
        try process.run()
        _ = ready.fileHandleForReading.availableData
        return process
    }

    @Test("end sends its signal and says whether that ended the process; one that ignores it is killed")
    func endEscalates() throws {
        let polite = try looping(trap: "'exit 3'")
        #expect(polite.end(with: SIGTERM, within: 5))
        #expect(polite.terminationReason == .exit && polite.terminationStatus == 3)

        let stubborn = try looping(trap: "''")
        #expect(!stubborn.end(with: SIGTERM, within: 0.3))
        #expect(!stubborn.isRunning && stubborn.terminationStatus == SIGKILL)
    }
}
