import Foundation
import Testing
import TestKit

/// tools/install installs what is built and current without building anything, and `--no-man`
/// installs no man pages.
@Suite("tools/install", .serialized)
struct InstallTests {
    @Test("with the release binary, the session library and a man page generator current, nothing is built; --no-man leaves the man pages out")
    func reusesBuiltProducts() throws {
        // tools/test builds these before the tests (a build cannot run while `swift test` holds .build).
        try #require(try Repository.releaseProductsAreCurrent(), "\(Repository.staleReleaseProducts)")
        let directory = try makeTemporaryDirectory("install")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A `swift` that fails: any build tools/install tries fails the install.
        try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"swift $*: tools/install built something\" >&2\nexit 1\n"
            .write(toFile: directory + "/bin/swift", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/bin/swift")
        let path = directory + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let install = Repository.path("tools/install")

        let bare = try runCommand(install, ["--prefix", directory + "/bare", "--no-man"], environment: ["PATH": path])
        #expect(bare.status == 0, "\(bare.stderr)")
        let manifest = (try? String(contentsOfFile: directory + "/bare/share/iaa/installed-files", encoding: .utf8)) ?? ""
        #expect(manifest.contains("bin/iaa\n") && manifest.contains("lib/libiaa-session.so\n"), "\(manifest)")
        #expect(!manifest.contains("share/man/"), "\(manifest)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/bare/share/man"))

        let full = try runCommand(install, ["--prefix", directory + "/full"], environment: ["PATH": path])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory + "/full/share/man/man1/iaa.1"))

        let help = try runCommand(install, ["--help"])
        #expect(help.stdout.contains("--no-man"), "\(help.stdout)")
    }
}
