import Foundation

/// Where the client verbs write: data on stdout, diagnostics on stderr (as JACK's tools do), with
/// colour only on a terminal and never when `NO_COLOR` is set (no-color.org).
enum Output {
    /// ANSI styles; empty strings when colour is off, so callers never branch on it.
    struct Style: Sendable {
        let on: String
        static let bold = Style(on: "\u{1B}[1m")
        static let red = Style(on: "\u{1B}[31m")
        static let green = Style(on: "\u{1B}[32m")
        static let yellow = Style(on: "\u{1B}[33m")
        static let dim = Style(on: "\u{1B}[2m")
    }

    /// True when stdout is a terminal (tables that redraw, colour).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// Colour for a stream: a terminal that is not `dumb`, and `NO_COLOR` unset or empty.
    static func colours(_ fd: Int32) -> Bool {
        if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return isatty(fd) != 0
    }

    /// `text` in `style` when writing to a terminal that takes colour.
    static func styled(_ text: String, _ style: Style, stderr: Bool = false) -> String {
        colours(stderr ? STDERR_FILENO : STDOUT_FILENO) ? style.on + text + "\u{1B}[0m" : text
    }

    /// One line of data on stdout, flushed so pipes (`iaa events --follow | jq`) see it at once.
    static func line(_ text: String) {
        // Unbuffered, so each line reaches a pipe at once and the order with stderr is kept.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// One line on stderr, as it is.
    static func diagnostic(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `iaa: MESSAGE` on stderr.
    static func error(_ message: String) {
        diagnostic("iaa: " + message)
    }

    /// `iaa: error[CODE]: MESSAGE` on stderr, the `error` word in red on a terminal.
    static func refusal(code: String, message: String) {
        diagnostic("iaa: " + styled("error", .red, stderr: true) + "[\(code)]: \(message)")
    }

    /// `iaa: warning: MESSAGE` on stderr.
    static func warning(_ message: String) {
        diagnostic("iaa: " + styled("warning", .yellow, stderr: true) + ": \(message)")
    }

    /// A number as people read it: integers without a fraction, others with up to 6 significant digits.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return fixed(value, significant: 6)
    }

    /// `value` with `decimals` digits after the point (`1.00`, `3.1`), for gains and loads.
    static func fixed(_ value: Double, decimals: Int) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : number(value)
    }

    private static func fixed(_ value: Double, significant: Int) -> String {
        String(format: "%.\(significant)g", value)
    }
}
