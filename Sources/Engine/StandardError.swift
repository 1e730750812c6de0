import Foundation

/// How much `iaa` says on stderr: `-q` keeps warnings and errors, `-v` adds what helps debugging
/// (every control request), and `IAA_LOG_LEVEL` (or `logLevel` in the configuration file) sets
/// the default.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error, warning, info, debug

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
        self = level
    }

    public static var names: String { allCases.map { "\($0)" }.joined(separator: ", ") }
}

/// Diagnostics go to stderr, data to stdout, as JACK's and PipeWire's tools do.
public enum StandardError {
    /// What is written; from `IAA_LOG_LEVEL` until a command's `-q`/`-v` sets it. Written once at
    /// start-up, before any thread that logs exists.
    nonisolated(unsafe) public static var level: LogLevel =
        ProcessInfo.processInfo.environment["IAA_LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? .info

    /// Writes `text` when the level lets it through (information by default).
    public static func write(_ text: String, level: LogLevel = .info) {
        guard level <= Self.level else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `iaa: warning: …`, shown unless the level is `error`.
    public static func warning(_ text: String) {
        write("iaa: warning: \(text)", level: .warning)
    }

    /// True when stderr is a terminal (progress bars and colour are for people only).
    public static var isTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}

extension StandardError {
    /// Rewrites the current terminal line (for progress bars).
    public static func writeInPlace(_ text: String, newline: Bool = false) {
        guard Self.level >= .info else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text + (newline ? "\n" : "")).utf8))
    }
}
