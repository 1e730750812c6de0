import Foundation

/// Diagnostics go to stderr, data to stdout, as JACK's and PipeWire's tools do.
public enum StandardError {
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// True when stderr is a terminal (progress bars and colour are for people only).
    public static var isTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}

extension StandardError {
    /// Rewrites the current terminal line (for progress bars).
    public static func writeInPlace(_ text: String, newline: Bool = false) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text + (newline ? "\n" : "")).utf8))
    }
}
