import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// The configuration and initial parameter values of an app of `type`: defaults, overridden
    /// by `params`; each bad entry is reported and left at its default.
    mutating func values(of app: AppDescription, type: NodeType) -> (NodeConfiguration, [Float]) {
        var parameters = type.parameters.map(\.defaultValue)
        var configuration: [String: Int] = [:]
        for spec in type.configuration { configuration[spec.name] = spec.defaultValue }
        let place = app.place
        for assignment in app.params {
            // The pointer is made only for a report (two strings per parameter were a tenth of
            // validating an app), from the app's place: capturing `app` copied all of it.
            if let index = type.parameterIndex(assignment.name) {
                if let value = Self.parameterValue(assignment.value, spec: type.parameters[index],
                                                   at: Self.parameterPointer(place, assignment.name), &sink) {
                    parameters[index] = value
                }
            } else if let spec = type.configuration.first(where: { $0.name == assignment.name }) {
                if let value = configurationValue(assignment.value, spec: spec, at: Self.parameterPointer(place, assignment.name)) {
                    configuration[spec.name] = value
                }
            } else {
                reportUnknownParameter(assignment.name, type: type, at: Self.parameterPointer(place, assignment.name))
            }
        }
        return (NodeConfiguration(configuration, state: pluginState(of: app, type: type)), parameters)
    }

    /// The app's `pluginState` when its type keeps state and the state belongs to it; else nil after reporting.
    private mutating func pluginState(of app: AppDescription, type: NodeType) -> String? {
        guard let state = app.pluginState else { return nil }
        let pointer = app.pointer + "/pluginState"
        guard let check = type.checkState else {
            sink.error(.invalidValue, at: pointer, atKey: true, "\(type.id) keeps no state beyond its parameters",
                       hint: "remove \"pluginState\"; only LV2 plugins with the LV2 state extension have one")
            return nil
        }
        if let problem = check(state) {
            sink.error(.invalidValue, at: pointer, "the plugin state cannot be restored: \(problem)",
                       hint: "write the state iaa dump --graph saved for this plugin, or remove \"pluginState\"")
            return nil
        }
        return state
    }

    private mutating func reportUnknownParameter(_ name: String, type: NodeType, at pointer: String) {
        let parameterNames = type.parameters.map(\.name)
        let configurationNames = type.configuration.map(\.name)
        var known: [String] = []
        if !parameterNames.isEmpty { known.append("parameters: " + parameterNames.joined(separator: ", ")) }
        if !configurationNames.isEmpty { known.append("configuration: " + configurationNames.joined(separator: ", ")) }
        let list = known.isEmpty ? "it has none" : known.joined(separator: "; ")
        sink.error(.unknownParameter, at: pointer, atKey: true,
                   "\(type.id) has no parameter \(JSONText.quoted(name)) (\(list))",
                   hint: Suggestion.hint(for: name, in: parameterNames + configurationNames))
    }

    /// The value `literal` gives a parameter, range-checked against `spec`; nil after reporting at
    /// `pointer`. Shared with timelines' `setParam`, so a value reads the same in both files.
    static func parameterValue(_ literal: ValueLiteral, spec: ParameterSpec, at pointer: @autoclosure () -> String,
                               _ sink: inout DiagnosticSink) -> Float? {
        let value: Float
        switch literal {
        case .number(let number):
            value = Float(number)
        case .text(let text):
            guard let parsed = ParameterValue.parseWithNotation(text) else {
                sink.error(.invalidValue, at: pointer(), "\(JSONText.quoted(text)) is not a value for \"\(spec.name)\"",
                           hint: "write a number, a percentage such as \"50%\" or decibels such as \"-6dB\"")
                return nil
            }
            if parsed.notation == .decibels, spec.unit != .linearGain {
                sink.warning(.invalidValue, at: pointer(),
                             "decibels on \"\(spec.name)\", whose unit is \(spec.unit.rawValue): \(JSONText.quoted(text)) means \(Self.text(parsed.value))",
                             hint: "decibels suit gains; write the value as a number")
            }
            value = parsed.value
        }
        guard value.isFinite, spec.range.contains(value) else {
            sink.error(.parameterOutOfRange, at: pointer(),
                       "\"\(spec.name)\" is \(Self.text(value)), outside its range \(Self.text(spec.range))\(Self.unitSuffix(spec.unit))",
                       hint: "use a value from \(Self.text(spec.range.lowerBound)) to \(Self.text(spec.range.upperBound))")
            return nil
        }
        return value
    }

    /// `/apps/N/params/NAME`, for a report about one of the app's parameters.
    static func parameterPointer(_ app: ElementPlace, _ name: String) -> String {
        JSONPointer.appending(app.pointer + "/params", name)
    }

    private mutating func configurationValue(_ literal: ValueLiteral, spec: ConfigurationSpec,
                                             at pointer: @autoclosure () -> String) -> Int? {
        guard case .number(let number) = literal else {
            sink.error(.wrongType, at: pointer(), "\"\(spec.name)\" is a configuration value and must be an integer, not a string",
                       hint: "write it without quotes")
            return nil
        }
        guard number.rounded() == number, abs(number) < 1e15 else {
            sink.error(.invalidValue, at: pointer(), "\"\(spec.name)\" must be an integer, not \(Self.text(number))")
            return nil
        }
        let value = Int(number)
        guard spec.range.contains(value) else {
            sink.error(.parameterOutOfRange, at: pointer(),
                       "\"\(spec.name)\" is \(value), outside its range \(spec.range.lowerBound)...\(spec.range.upperBound)",
                       hint: "use an integer from \(spec.range.lowerBound) to \(spec.range.upperBound)")
            return nil
        }
        return value
    }

    /// A number as people write it: `440`, not `440.0`.
    static func text(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func text(_ value: Float) -> String {
        if value.rounded() == value, abs(value) < 1e9 { return String(Int64(value)) }
        return String(value)
    }

    static func text(_ range: ClosedRange<Float>) -> String {
        "\(text(range.lowerBound))...\(text(range.upperBound))"
    }

    private static func unitSuffix(_ unit: ParameterSpec.Unit) -> String {
        switch unit {
        case .hertz: " Hz"
        case .decibels: " dB"
        case .seconds: " s"
        case .milliseconds: " ms"
        default: ""
        }
    }
}
