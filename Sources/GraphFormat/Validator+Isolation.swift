import AudioGraph
import LocatedJSON
import Suggestions
extension Validator {
    /// The app's `isolation`, else the graph's `isolation.default`; an unknown word is an error
    /// at the field that has it (and the app falls back to the engine's default).
    mutating func isolationChoice(_ app: AppDescription) -> IsolationChoice? {
        if let written = app.isolation {
            return choice(written, at: app.pointer + "/isolation")
        }
        return description.isolation.defaultChoice.flatMap { choice($0, at: "/isolation/default", report: false) }
    }

    /// The graph's `isolation` block, range-checked over the defaults.
    mutating func isolationConfiguration() -> IsolationConfiguration {
        var configuration = IsolationConfiguration()
        let written = description.isolation
        if let defaultChoice = written.defaultChoice {
            configuration.defaultChoice = choice(defaultChoice, at: "/isolation/default")
        }
        if let maxCrashes = written.maxCrashes {
            if withinRange(maxCrashes >= 1 && maxCrashes <= 1000 && maxCrashes.rounded() == maxCrashes, at: "/isolation/maxCrashes",
                           "\"maxCrashes\" is \(Self.text(maxCrashes)), outside its range: a whole number from 1 to 1000",
                           hint: "the number of faults within \"crashWindow\" after which the app stays off, such as 3") {
                configuration.maxCrashes = Int(maxCrashes)
            }
        }
        if let window = written.crashWindow, let seconds = seconds(window, at: "/isolation/crashWindow", example: "60s") {
            if withinRange(seconds > 0 && seconds <= 86_400, at: "/isolation/crashWindow",
                           "\"crashWindow\" is \(Self.text(seconds)) s, outside its range: above 0 s and at most 1 day",
                           hint: "use a window such as \"60s\"") {
                configuration.crashWindowSeconds = seconds
            }
        }
        return configuration
    }

    private mutating func choice(_ written: String, at pointer: String, report: Bool = true) -> IsolationChoice? {
        if let known = IsolationChoice(rawValue: written) { return known }
        let names = IsolationChoice.allCases.map(\.rawValue)
        if report {
            sink.error(.invalidValue, at: pointer, "unknown isolation \(JSONText.quoted(written))",
                       hint: Suggestion.hint(for: written, in: names)
                           ?? "write \"process\" (a child process of its own), \"none\" (inside the engine) or \"auto\" (by where the code comes from)")
        }
        return nil
    }
}
