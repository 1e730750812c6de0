#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the value spellings users type in graph files and `iaa set`: `0.5`, `50%`, `-6dB`,
/// `+3 dB`.
public enum ParameterValue {
    /// How a value was written, so that the validator can warn about decibels on a frequency.
    enum Notation: Equatable {
        case plain, percent, decibels
    }

    /// The value `text` means, as a linear number, or nil when it is not one of the spellings or
    /// is not finite.
    ///
    /// Decibels become a linear gain (`-6dB` ≈ 0.501); a percentage becomes a fraction (`50%` →
    /// 0.5). Spaces around the number and before the unit are allowed; the unit is
    /// case-insensitive (`dB`, `db`).
    public static func parse(_ text: String) -> Float? {
        parseWithNotation(text)?.value
    }

    static func parseWithNotation(_ text: String) -> (value: Float, notation: Notation)? {
        var body = Substring(text).trimmingWhitespace()
        var notation = Notation.plain
        if body.lowercased().hasSuffix("db") {
            body = body.dropLast(2)
            notation = .decibels
        } else if body.hasSuffix("%") {
            body = body.dropLast()
            notation = .percent
        }
        body = body.trimmingWhitespace()
        // Float() also takes `inf`, `nan` and hex; a value the user types is a decimal number.
        guard let first = body.unicodeScalars.first, first == "+" || first == "-" || first == "."
                || ("0"..."9").contains(first),
              !body.contains(where: { $0 == "x" || $0 == "X" }),
              let number = Float(body), number.isFinite else { return nil }
        let value: Float = switch notation {
        case .plain: number
        case .percent: number / 100
        case .decibels: powf(10, number / 20)
        }
        return value.isFinite ? (value, notation) : nil
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}
