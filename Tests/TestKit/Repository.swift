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

    /// The `iaa` binary the tests run: `$IAA_BIN` (tools/test sets it), else the debug build.
    public static var debugBinary: String {
        environment("IAA_BIN") ?? path(".build/debug/iaa")
    }

    /// The release build the real-time tests measure: `$IAA_RELEASE_BIN`, else `.build/release/iaa`.
    public static var releaseBinary: String {
        environment("IAA_RELEASE_BIN") ?? path(".build/release/iaa")
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
