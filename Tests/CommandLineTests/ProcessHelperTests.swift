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

    @Test("end sends its signal and says whether that ended the process; one that ignores it is killed")
    func endEscalates() throws {
        // Both through sh, which unblocks the signals: a child inherits those the test thread
        // that starts it blocks, SIGTERM among them.
        let polite = Process()
        polite.executableURL = URL(fileURLWithPath: "/bin/sh")
        polite.arguments = ["-c", "trap 'exit 3' TERM; echo ready; while :; do sleep 0.05; done"]
        let politeReady = Pipe()
        polite.standardOutput = politeReady
        try polite.run()
        _ = politeReady.fileHandleForReading.availableData
        #expect(polite.end(with: SIGTERM, within: 5))
        #expect(polite.terminationReason == .exit && polite.terminationStatus == 3)

        let stubborn = Process()
        stubborn.executableURL = URL(fileURLWithPath: "/bin/sh")
        stubborn.arguments = ["-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"]
        let ready = Pipe()
        stubborn.standardOutput = ready
        try stubborn.run()
        _ = ready.fileHandleForReading.availableData
        #expect(!stubborn.end(with: SIGTERM, within: 0.3))
        #expect(!stubborn.isRunning && stubborn.terminationStatus == SIGKILL)
    }
}
