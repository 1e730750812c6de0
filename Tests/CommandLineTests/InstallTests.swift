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

    @Test("with no man page generator built, it says so, and how to skip it, before it starts building one")
    func saysItBuildsTheGenerator() throws {
        // A clone of its own: tools/install, sources, and a current release binary and session
        // library, but no generator. Its `swift` prints what it was asked and fails.
        let clone = try makeTemporaryDirectory("install-clone")
        defer { try? FileManager.default.removeItem(atPath: clone) }
        for folder in ["tools", "bin", "Sources/CIAASession", ".build/release"] {
            try FileManager.default.createDirectory(atPath: clone + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Repository.path("tools/install"), toPath: clone + "/tools/install")
        try "// sources\n".write(toFile: clone + "/Sources/CIAASession/session.c", atomically: true, encoding: .utf8)
        try "// package\n".write(toFile: clone + "/Package.swift", atomically: true, encoding: .utf8)
        let past = Date().addingTimeInterval(-60)
        for source in ["Sources/CIAASession/session.c", "Sources/CIAASession", "Sources", "Package.swift"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: clone + "/" + source)
        }
        for (path, text) in [(".build/release/iaa", "#!/bin/sh\nexit 0\n"), (".build/release/libiaa-session.so", ""),
                             ("bin/swift", "#!/bin/sh\necho \"swift $*: failed\" >&2\nexit 1\n")] {
            try text.write(toFile: clone + "/" + path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: clone + "/" + path)
        }
        let path = clone + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let install = try runCommand(clone + "/tools/install", ["--prefix", clone + "/prefix"], environment: ["PATH": path])
        #expect(install.status != 0, "\(install.stderr)")
        let said = install.stderr.range(of: "tools/install: no man page generator is built")
        let built = install.stderr.range(of: "swift build -c release --product generate-manual: failed")
        #expect(said != nil && built != nil && said!.lowerBound < built!.lowerBound, "\(install.stderr)")
        #expect(install.stderr.contains("--no-man skips the man pages"), "\(install.stderr)")
        // Only the generator was to be built: the binary and the library are current.
        #expect(!install.stderr.contains("--product iaa"), "\(install.stderr)")
    }
}
