import LocatedJSON
import AudioSession

extension Validator {
    /// The graph's policy settings: the written ones, range-checked, over the defaults.
    mutating func policy() -> PolicyConfiguration {
        var policy = PolicyConfiguration()
        let written = description.policy
        if let literal = written.duckLevel,
           let decibels = decibels(literal, at: "/policy/duckLevel") {
            if withinRange(decibels > -96 && decibels <= 0, at: "/policy/duckLevel",
                           "\"duckLevel\" is \(Self.text(decibels)) dB, outside its range: above -96 dB and at most 0 dB",
                           hint: "ducking lowers other apps; use a level such as \"-12dB\"") {
                policy.duckLevelDecibels = decibels
            }
        }
        if let literal = written.rampTime,
           let seconds = seconds(literal, at: "/policy/rampTime", example: "10ms") {
            if withinRange(seconds > 0 && seconds <= 1, at: "/policy/rampTime",
                           "\"rampTime\" is \(Self.text(seconds)) s, outside its range: above 0 s and at most 1 s",
                           hint: "use a ramp such as \"10ms\"") {
                policy.rampSeconds = seconds
            }
        }
        if let literal = written.backgroundTaskTime,
           let seconds = seconds(literal, at: "/policy/backgroundTaskTime", example: "30s") {
            if withinRange(seconds > 0 && seconds <= 600, at: "/policy/backgroundTaskTime",
                           "\"backgroundTaskTime\" is \(Self.text(seconds)) s, outside its range: above 0 s and at most 600 s",
                           hint: "use a time such as \"30s\"") {
                policy.backgroundTaskSeconds = seconds
            }
        }
        return policy
    }

    /// Decibels from a number or a string such as `"-12dB"` (a unit is required in a string, so
    /// that `"-12"` is not mistaken for a linear gain).
    private mutating func decibels(_ literal: ValueLiteral, at pointer: String) -> Double? {
        switch literal {
        case .number(let number):
            return number
        case .text(let text):
            let body = Substring(text).trimmingWhitespace()
            if body.lowercased().hasSuffix("db"), let number = Self.decimal(body.dropLast(2)) { return number }
            sink.error(.invalidValue, at: pointer, "\(JSONText.quoted(text)) is not a level in decibels",
                       hint: "write a number of decibels or a string such as \"-12dB\"")
            return nil
        }
    }

    /// Seconds from a number or a string such as `"10ms"` or `"0.01s"`; an error at `pointer` otherwise.
    mutating func seconds(_ literal: ValueLiteral, at pointer: String, example: String) -> Double? {
        switch literal {
        case .number(let number):
            return number
        case .text(let text):
            let body = Substring(text).trimmingWhitespace()
            if body.hasSuffix("ms"), let number = Self.decimal(body.dropLast(2)) { return number / 1000 }
            if body.hasSuffix("s"), let number = Self.decimal(body.dropLast()) { return number }
            sink.error(.invalidValue, at: pointer, "\(JSONText.quoted(text)) is not a duration",
                       hint: "write a number of seconds or a string such as \"\(example)\"")
            return nil
        }
    }

    /// A finite decimal number such as `-12`, `0.5` or `+3`; not `inf`, `nan` or hex, which
    /// `Double.init` would also take.
    private static func decimal(_ text: Substring) -> Double? {
        let body = text.trimmingWhitespace()
        guard let first = body.unicodeScalars.first,
              first == "+" || first == "-" || first == "." || ("0"..."9").contains(first),
              !body.contains(where: { $0 == "x" || $0 == "X" }),
              let number = Double(body), number.isFinite else { return nil }
        return number
    }
}
