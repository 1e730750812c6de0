import Foundation
import Links
import Synchronization
import Testing
import TestKit

/// The bridge's keeper with a stand-in bridge: a shell script that talks like zita-n2j, fails
/// once, and then runs until it is stopped.
@Suite("Keeping a bridge process running")
struct BridgeProcessTests {
    @Test("an exit is reported with the bridge's last words, it starts again after 0.5 s, and stop ends it and its thread")
    func restartsAndStops() throws {
        let directory = try makeTemporaryDirectory("bridge")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + "/bridge.sh", runs = directory + "/runs"
        try """
            #!/bin/sh
            echo run >> \(runs)
            echo "Waiting for info packet..."
            if [ "$(wc -l < \(runs))" -eq 1 ]; then echo "Failed to open socket."; exit 3; fi
            exec sleep 30
            """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let events = Mutex<[(BridgeEvent, ContinuousClock.Instant)]>([])
        let bridge = BridgeProcess(executable: script, arguments: []) { event in events.withLock { $0.append((event, .now)) } }
        func seen() -> [BridgeEvent] { events.withLock { $0.map(\.0) } }
        let deadline = ContinuousClock.now + .seconds(10)
        while seen().filter({ if case .started = $0 { true } else { false } }).count < 2 || seen().count < 7,
              ContinuousClock.now < deadline { usleep(10_000) }
        let list = seen()
        try #require(list.count >= 7, "\(list)")
        guard case .started(let first) = list[0], case .started(let second) = list[5] else {
            Issue.record("\(list)")
            return
        }
        #expect(Array(list[1...4]) == [.line(.waiting), .line(.other("Failed to open socket.")),
                                      .exited("bridge.sh exited with status 3 (its last words: \"Failed to open socket.\")"),
                                      .restartScheduled(after: 0.5)])
        #expect(list[6] == .line(.waiting))
        let pause = events.withLock { $0[5].1 - $0[4].1 }
        #expect(pause >= .milliseconds(450) && pause < .seconds(2), "restarted after \(pause)")
        #expect(first != second && kill(second, 0) == 0)
        bridge.stop()
        #expect(kill(second, 0) != 0 && errno == ESRCH, "the bridge outlived stop")
        let count = seen().count
        usleep(700_000)
        #expect(seen().count == count, "nothing is started after stop: \(seen().suffix(3))")
    }
}
