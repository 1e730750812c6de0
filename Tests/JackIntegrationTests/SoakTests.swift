import Foundation
import Testing
import TestKit

/// The suites that start JACK servers of their own, one after the other, beside the JACK
/// integration suite's one-at-a-time line: each is alone on its server, and the two together
/// take about as long as that line.
@Suite("On servers of their own", .serialized)
enum OwnServers {}

extension OwnServers {
    /// Two minutes of graph swaps, ducking, interruptions and resumptions every 250 ms, through
    /// `tools/soak` with the release engine on a JACK server of its own: no xrun of ours, no failed
    /// command, bounded memory. It runs beside the JACK integration suite rather than in its one-at-a-
    /// time line: its engine is alone on its server, and the suite's own checks of port metadata (the
    /// database every server of a user shares) passed 25 times in 25 with this soak swapping graphs
    /// beside them.
    @Suite("A two-minute soak on a server of its own",
           .enabled(if: JackHarness.server != nil, "runs where tools/test runs the JACK tests"))
    struct SoakTests {
        /// The number after `label` on the report line that starts with it.
        static func number(after label: String, in report: String) -> Int? {
            guard let line = report.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
            return line.dropFirst(label.count).split(whereSeparator: { !$0.isNumber && $0 != "-" }).first.flatMap { Int($0) }
        }

        @Test("tools/soak 2: 0 xruns caused by iaa, every command succeeds, resident memory grows < 2 MB")
        func twoMinutes() throws {
            let result = try runCommand(Repository.path("tools/soak"), ["2"], environment: ["IAA_BIN": Repository.releaseBinary])
            let report = result.stdout
            print(report) // the figures, in the CI log
            #expect(result.status == 0, "tools/soak failed:\n\(report)\n\(result.stderr)")
            let rounds = try #require(Self.number(after: "rounds:", in: report), "\(report)")
            // A round is eight commands 250 ms apart, each an `iaa` process: about 50 rounds alone,
            // fewer beside the other test lanes. Twenty is every action repeated enough for the
            // memory figure to mean something; speed is tools/soak's figure, not this test's.
            #expect(rounds >= 20, "only \(rounds) rounds of actions ran:\n\(report)")
            #expect(Self.number(after: "failed commands:", in: report) == 0, "\(report)")
            #expect(report.contains("engine alive:      yes"), "\(report)")
            #expect(report.contains("(caused by iaa: 0)"), "\(report)")
            let cycles = try #require(Self.number(after: "cycles:", in: report), "\(report)")
            #expect(cycles > 2 * 60 * 48_000 / 256 * 9 / 10, "the engine ran only \(cycles) cycles in 2 minutes")
            let memory = try #require(report.split(separator: "\n").first { $0.hasPrefix("resident memory:") }, "\(report)")
            let growth = try #require(memory.split(separator: "(").last.flatMap { Self.number(after: "growth", in: String($0)) }, "\(report)")
            #expect(growth < 2_048, "resident memory grew by \(growth) kB")
            #expect(report.hasSuffix("PASS\n"), "\(report)")
        }
    }
}
