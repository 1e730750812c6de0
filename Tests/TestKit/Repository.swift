import Foundation

/// The package's files and built binaries, found from this file's path so that tests run from
/// any directory.
public enum Repository {
    /// The package root.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// An absolute path for a package-relative one.
    public static func path(_ relative: String) -> String {
        root + "/" + relative
    }

    /// The text of a package-relative file, or nil when it cannot be read.
    public static func read(_ relative: String) -> String? {
        try? String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// The graph files of a folder as sorted package-relative paths: its JSON files except the
    /// schema, timelines (`NAME.timeline.json`) and grants files (`NAME.grants.json`).
    public static func graphFiles(in folder: String) -> [String] {
        jsonFiles(in: folder).filter { !$0.hasSuffix(".timeline.json") && !$0.hasSuffix(".grants.json") }
    }

    /// The timelines of a folder (`NAME.timeline.json`, which drive graph `NAME.json`).
    public static func timelineFiles(in folder: String) -> [String] {
        jsonFiles(in: folder).filter { $0.hasSuffix(".timeline.json") }
    }

    private static func jsonFiles(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(folder))) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "graph.schema.json" }.sorted().map { folder + "/" + $0 }
    }

    /// The `iaa` binary the tests run: `$IAA_BIN` (tools/test sets it to the release build it has
    /// just built), else the debug build `swift test` builds.
    public static var binary: String {
        environment("IAA_BIN") ?? debugBinary
    }

    /// The debug build, for the test that shows what the real-time counter sees in one.
    public static var debugBinary: String {
        path(".build/debug/iaa")
    }

    /// The release build the real-time tests measure: `$IAA_RELEASE_BIN`, else `.build/release/iaa`.
    public static var releaseBinary: String {
        environment("IAA_RELEASE_BIN") ?? path(".build/release/iaa")
    }

    /// What a test that needs them says when `releaseProductsAreCurrent()` is false.
    public static let staleReleaseProducts = "the release binary, the session library or the man page generator is missing or older than the sources: run tools/test, which builds them first"

    /// Whether the release `iaa`, the session library and a man page generator are built and no
    /// older than the sources: tests that run tools/install need them, and cannot build them while
    /// `swift test` holds the build folder (tools/test builds them first).
    public static func releaseProductsAreCurrent() throws -> Bool {
        try runCommand("/bin/sh", ["-c", """
            cd "\(root)" && test -x .build/release/iaa && test -x .build/release/libiaa-session.so \
            && { test -x .build/release/generate-manual || test -x .build/debug/generate-manual; } \
            && test -z "$(find Sources Package.swift -newer .build/release/iaa -print -quit)" \
            && test -z "$(find Sources/CIAASession Package.swift -newer .build/release/libiaa-session.so -print -quit)"
            """]).status == 0
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
