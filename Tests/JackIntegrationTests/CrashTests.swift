import Foundation
import Testing
import TestKit

extension OwnServers {
    /// `tools/crash-test`: the release engine killed with SIGKILL at seeded moments (right after
    /// it replaced its snapshot among them) while a client streams changes as fast as they are
    /// acknowledged, restarted each time as the systemd unit restarts it; after every restart
    /// each acknowledged change is there and no refused one is (docs/state.md).
    @Suite("Kills of the engine while changes stream in",
           .enabled(if: JackHarness.server != nil, "runs where tools/test runs the JACK tests"))
    struct CrashTests {
        @Test("tools/crash-test 60: every acknowledged change survives 60 kills, a third of them right after a snapshot; no refused one appears")
        func sixtyKills() throws {
            let result = try runCommand(Repository.path("tools/crash-test"), ["60", "--seed", "1"],
                                        environment: ["IAA_BIN": Repository.releaseBinary])
            print(result.stdout) // the figures, in the CI log
            #expect(result.status == 0, "tools/crash-test failed:\n\(result.stdout)\n\(result.stderr)")
            #expect(SoakTests.number(after: "restarts:", in: result.stdout) == 60, "\(result.stdout)")
            #expect(SoakTests.number(after: "losses:", in: result.stdout) == 0, "\(result.stdout)")
            // The moment the lost change of issue 49 needed: a snapshot just written.
            #expect((SoakTests.number(after: "after a snapshot:", in: result.stdout) ?? 0) >= 10, "\(result.stdout)")
            let acknowledged = try #require(SoakTests.number(after: "acknowledged changes:", in: result.stdout), "\(result.stdout)")
            #expect(acknowledged >= 3_000, "only \(acknowledged) changes were acknowledged in 60 lives")
        }

        /// The state folder on a 1 MB tmpfs (CI runs as root), full from the 20th kill to the
        /// 40th: changes are refused with `notDurable` meanwhile, and the engine always starts.
        @Test("tools/crash-test 60 --tiny-fs 1024: on a filesystem that fills up, refused changes never appear and none acknowledged is lost")
        func fullFilesystem() throws {
            let result = try runCommand(Repository.path("tools/crash-test"), ["60", "--seed", "2", "--tiny-fs", "1024"],
                                        environment: ["IAA_BIN": Repository.releaseBinary])
            print(result.stdout)
            #expect(result.status == 0, "tools/crash-test failed:\n\(result.stdout)\n\(result.stderr)")
            #expect(SoakTests.number(after: "losses:", in: result.stdout) == 0, "\(result.stdout)")
            #expect((SoakTests.number(after: "refused (notDurable):", in: result.stdout) ?? 0) > 0, "\(result.stdout)")
        }
    }
}
