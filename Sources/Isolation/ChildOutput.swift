import RenderCore
#if canImport(Glibc)
import Glibc
#endif

/// An isolated child's stdout and stderr, relayed to the engine's stderr one line at a time as
/// `iaa: app "trem" (isolated child 1234) says: …`, so nothing a plugin prints can pass for a
/// line of the engine's own log. Supervisor thread only.
///
/// Control characters, C1 controls and Unicode's direction overrides are escaped (`\x1B`,
/// `\r`, `\u{202E}`), so a line cannot move the cursor, recolour the terminal or rewrite what
/// came before it; a line is cut after ``maximumLineBytes`` bytes (then `…`); at most
/// ``linesPerSecond`` lines a second are written and the rest counted and reported in one line.
/// The pipe is non-blocking at both ends: reading never waits, and a child that prints faster
/// than this drains it loses lines rather than stalling.
final class ChildOutput {
    static let maximumLineBytes = 500
    static let linesPerSecond = 50

    private let descriptor: Int32
    private let prefix: String
    private let source: String
    private var line: [UInt8] = []
    /// The current line passed the cap: the rest of it up to its newline is skipped.
    private var cut = false
    private var windowStart: UInt64 = 0
    private var writtenInWindow = 0
    private var dropped = 0
    private var open = true

    convenience init(descriptor: Int32, app: String, pid: Int32) {
        self.init(descriptor: descriptor, source: "app \"\(Self.escaped(Array(app.utf8)))\" (isolated child \(pid))")
    }

    /// Lines tagged `iaa: <source> says: `; `source` is already escaped.
    init(descriptor: Int32, source: String) {
        self.descriptor = descriptor
        self.source = source
        prefix = "iaa: \(source) says: "
    }

    /// Whether the pipe may still deliver anything (false once the child's last writer closed it:
    /// a pipe at its end is always readable, so polling it then would spin).
    var isOpen: Bool { open }

    /// The descriptor to poll, or -1 once the pipe is at its end.
    var pollDescriptor: Int32 { open ? descriptor : -1 }

    /// Reads what the pipe holds now (at most a few pipe-fulls) and writes the whole lines.
    /// False when it stopped with more to read.
    @discardableResult
    func drain() -> Bool {
        guard open else { return true }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        for _ in 0..<8 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                take(buffer[0..<count])
            } else if count == 0 {
                open = false
                return true
            } else if errno != EINTR {
                return true  // EAGAIN: nothing more now
            }
        }
        return false
    }

    /// After the child ended: what is left in the pipe, a last line without its newline, and the
    /// count of lines dropped.
    func finish() {
        var rounds = 0
        while !drain() && rounds < 64 { rounds += 1 }
        if !line.isEmpty || cut { emit() }
        reportDropped()
    }

    private func take(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit()
                continue
            }
            if line.count < Self.maximumLineBytes {
                line.append(byte)
            } else {
                cut = true
            }
        }
    }

    private func emit() {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let text = Self.escaped(line) + (cut ? "…" : "")
        line.removeAll(keepingCapacity: true)
        cut = false
        let now = MonotonicClock.nanoseconds()
        if now &- windowStart >= 1_000_000_000 {
            reportDropped()
            windowStart = now
            writtenInWindow = 0
        }
        guard writtenInWindow < Self.linesPerSecond else {
            dropped += 1
            return
        }
        writtenInWindow += 1
        Self.writeToStandardError(prefix + text)
    }

    private func reportDropped() {
        guard dropped > 0 else { return }
        Self.writeToStandardError("iaa: \(source): \(dropped) more line\(dropped == 1 ? "" : "s") of its output dropped (at most \(Self.linesPerSecond) a second are shown)")
        dropped = 0
    }

    /// `bytes` as text fit for one log line: invalid UTF-8 as U+FFFD, a backslash doubled, and
    /// every character that could steer a terminal written as an escape.
    static func escaped(_ bytes: [UInt8]) -> String {
        var result = ""
        result.reserveCapacity(bytes.count)
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x09: result += "\\t"
            case 0x0D: result += "\\r"
            case 0x00..<0x20, 0x7F..<0xA0:
                result += "\\x" + hex(scalar.value, digits: 2)
            // Direction marks and overrides, and the line and paragraph separators.
            case 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{" + hex(scalar.value, digits: 4) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// One `write` per line, so lines from several children and the engine do not interleave.
    private static func writeToStandardError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let step = bytes[written...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if step < 0 && errno == EINTR { continue }
            guard step > 0 else { return }
            written += step
        }
    }
}
