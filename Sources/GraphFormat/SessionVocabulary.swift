import LocatedJSON
import AudioSession
import Suggestions

/// Reads the audio-session vocabulary as graph and timeline files spell it: Apple's names for
/// categories, modes and options, and ours for entitlements and background modes.
///
/// Shared by the ``Validator`` (an app's `session`) and the timeline reader (`setCategory`), so
/// that a value means the same and is reported the same way in both files.
enum SessionVocabulary {
    /// A category, mode and options as one `session` object or `setCategory` entry sets them.
    struct CategoryChoice: Equatable {
        var category: SessionCategory
        var mode: SessionMode
        /// With `mixWithOthers` added when an option implies it.
        var options: Set<SessionOption>
    }

    /// The case of `T` spelt `text`, or nil after reporting `unknown WHAT "text"` at `pointer` with
    /// a did-you-mean, or else the list of valid names headed `listing`.
    static func value<T: RawRepresentable & CaseIterable>(_ text: String, _ what: String, listing: String,
                                                           at pointer: String, _ sink: inout DiagnosticSink) -> T?
        where T.RawValue == String {
        if let value = T(rawValue: text) { return value }
        let names = T.allCases.map(\.rawValue)
        sink.error(.invalidValue, at: pointer, "unknown \(what) \(JSONText.quoted(text))",
                   hint: Suggestion.hint(for: text, in: names) ?? "\(listing): " + names.joined(separator: ", "))
        return nil
    }

    /// Each name of `names` (the array at `pointer`) as a `T`, with its element's pointer; unknown
    /// names are reported and left out. `failed` is set when one was.
    static func values<T: RawRepresentable & CaseIterable>(_ names: [String], _ what: String, listing: String,
                                                            at pointer: @autoclosure () -> String,
                                                            _ sink: inout DiagnosticSink,
                                                            failed: inout Bool) -> [(value: T, pointer: String)]
        where T.RawValue == String {
        // Most apps list none: the array's pointer is made only for an array that has names.
        guard !names.isEmpty else { return [] }
        let pointer = pointer()
        return names.enumerated().compactMap { index, name in
            let elementPointer = JSONPointer.appending(pointer, index)
            guard let value: T = value(name, what, listing: listing, at: elementPointer, &sink) else {
                failed = true
                return nil
            }
            return (value, elementPointer)
        }
    }

    /// The `category`, `mode` and `options` of `object`, each defaulting as an unconfigured session
    /// does; nil when one of them was wrong (already reported).
    ///
    /// A mode the category does not support is a warning, as Apple documents: the session behaves
    /// as `default`. With `checkOptions`, an option the category does not accept is an error; a
    /// timeline leaves that to the policy, which refuses it at run time with `badParam`.
    static func categoryChoice(_ object: ObjectReader, _ sink: inout DiagnosticSink, categoryRequired: Bool,
                               checkOptions: Bool) -> CategoryChoice? {
        var failed = false
        var category: SessionCategory? = .default
        if let text = object.string("category", &sink, required: categoryRequired) {
            category = value(text, "category", listing: "categories",
                             at: JSONPointer.appending(object.pointer, "category"), &sink)
        } else if categoryRequired || object.member("category") != nil {
            category = nil
        }
        var mode: SessionMode? = .default
        if let text = object.string("mode", &sink) {
            let pointer = JSONPointer.appending(object.pointer, "mode")
            mode = value(text, "mode", listing: "modes", at: pointer, &sink)
            if let mode, let category { checkMode(mode, category: category, at: pointer, &sink) }
        } else if object.member("mode") != nil {
            mode = nil
        }
        var options: Set<SessionOption> = []
        if let names = object.strings("options", &sink) {
            let pointer = JSONPointer.appending(object.pointer, "options")
            let written: [(value: SessionOption, pointer: String)] =
                values(names, "option", listing: "options", at: pointer, &sink, failed: &failed)
            for option in written {
                if checkOptions, let category, !option.value.categories.contains(category) {
                    reportOption(option.value, category: category, at: option.pointer, &sink)
                    failed = true
                }
                options.insert(option.value)
            }
            // Non-strings were reported by `strings`, which leaves them out.
            if names.count != object.member("options")?.elements?.count { failed = true }
        } else if object.member("options") != nil {
            failed = true
        }
        guard !failed, let category, let mode else { return nil }
        return CategoryChoice(category: category, mode: mode, options: implied(options))
    }

    /// `options` with `mixWithOthers` added when `duckOthers` or
    /// `interruptSpokenAudioAndMixWithOthers` implies it, as AVAudioSession does.
    static func implied(_ options: Set<SessionOption>) -> Set<SessionOption> {
        guard !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) else { return options }
        return options.union([.mixWithOthers])
    }

    private static func checkMode(_ mode: SessionMode, category: SessionCategory, at pointer: String,
                                  _ sink: inout DiagnosticSink) {
        guard !mode.categories.contains(category) else { return }
        let supported = SessionMode.allCases.filter { $0.categories.contains(category) }.map(\.rawValue)
        let categories = SessionCategory.allCases.filter { mode.categories.contains($0) }.map(\.rawValue)
        sink.warning(.unsupportedMode, at: pointer,
                     "category \(JSONText.quoted(category.rawValue)) does not support mode \(JSONText.quoted(mode.rawValue)), so the session behaves as mode \"default\" (\(category.rawValue) supports: \(supported.joined(separator: ", ")))",
                     hint: "mode \(JSONText.quoted(mode.rawValue)) needs category \(alternatives(categories))")
    }

    private static func reportOption(_ option: SessionOption, category: SessionCategory, at pointer: String,
                                     _ sink: inout DiagnosticSink) {
        let accepted = SessionOption.allCases.filter { $0.categories.contains(category) }.map(\.rawValue)
        let categories = SessionCategory.allCases.filter { option.categories.contains($0) }.map(\.rawValue)
        sink.error(.badOption, at: pointer,
                   "category \(JSONText.quoted(category.rawValue)) does not accept option \(JSONText.quoted(option.rawValue)) (accepts: \(accepted.isEmpty ? "none" : accepted.joined(separator: ", ")))",
                   hint: "option \(JSONText.quoted(option.rawValue)) needs category \(alternatives(categories))")
    }

    /// `a`, `a or b`, `a, b or c`.
    static func alternatives(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        let rest = names.dropLast()
        return rest.isEmpty ? last : rest.joined(separator: ", ") + " or " + last
    }
}
