import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// Half a minute of graph swaps, ducking, interruptions and resumptions every 250 ms, through
    /// `tools/soak` with the release engine: no xrun of ours, no failed command, bounded memory.
    /// The suite runs one JACK test at a time, so this is a check, not the endurance figure:
    /// `tools/soak 2` (docs/reliability.md) is the two-minute run whose figures the docs quote.
    @Suite("A soak", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct SoakTests {
        /// The number after `label` on the report line that starts with it.
        static func number(after label: String, in report: String) -> Int? {
            guard let line = report.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
            return line.dropFirst(label.count).split(whereSeparator: { !$0.isNumber && $0 != "-" }).first.flatMap { Int($0) }
        }

        @Test("tools/soak 0.5: 0 xruns caused by iaa, every command succeeds, resident memory grows < 2 MB")
        func halfAMinute() throws {
            let result = try runCommand(Repository.path("tools/soak"), ["0.5", "-s", JackHarness.server ?? ""],
                                        environment: ["IAA_BIN": Repository.releaseBinary])
            let report = result.stdout
            print(report) // the figures, in the CI log
            #expect(result.status == 0, "tools/soak failed:\n\(report)\n\(result.stderr)")
            let rounds = try #require(Self.number(after: "rounds:", in: report), "\(report)")
            #expect(rounds >= 10, "only \(rounds) rounds of actions ran:\n\(report)")
            #expect(Self.number(after: "failed commands:", in: report) == 0, "\(report)")
            #expect(report.contains("engine alive:      yes"), "\(report)")
            #expect(report.contains("(caused by iaa: 0)"), "\(report)")
            let cycles = try #require(Self.number(after: "cycles:", in: report), "\(report)")
            #expect(cycles > 30 * 48_000 / 256 * 9 / 10, "the engine ran only \(cycles) cycles in half a minute")
            let memory = try #require(report.split(separator: "\n").first { $0.hasPrefix("resident memory:") }, "\(report)")
            let growth = try #require(memory.split(separator: "(").last.flatMap { Self.number(after: "growth", in: String($0)) }, "\(report)")
            #expect(growth < 2_048, "resident memory grew by \(growth) kB")
            #expect(report.hasSuffix("PASS\n"), "\(report)")
        }
    }
}
