/// The `get` reply (PROTOCOL.md, `get`): an app's parameters with their values now. The engine
/// writes it from this type and `iaa get` reads it back.
public struct ParameterReading: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var value: Double
        public var min: Double
        public var max: Double
        public var defaultValue: Double
        /// The unit as the engine names it: `generic`, `hertz`, `linearGain`, `decibels`, `seconds`,
        /// `milliseconds`, `percent` or `boolean`.
        public var unit: String

        public init(name: String, value: Double, min: Double, max: Double, defaultValue: Double, unit: String) {
            self.name = name
            self.value = value
            self.min = min
            self.max = max
            self.defaultValue = defaultValue
            self.unit = unit
        }

        /// The unit as a person reads it beside a value (`Hz`, `dB`); empty for none.
        public var symbol: String {
            switch unit {
            case "hertz": "Hz"
            case "decibels": "dB"
            case "seconds": "s"
            case "milliseconds": "ms"
            case "percent": "%"
            case "linearGain": "linear gain"
            default: ""
            }
        }
    }

    public var app: String
    public var parameters: [Parameter]

    public init(app: String, parameters: [Parameter]) {
        self.app = app
        self.parameters = parameters
    }

    public var json: ControlJSON {
        .object([("app", .string(app)), ("parameters", .array(parameters.map { parameter in
            .object([("name", .string(parameter.name)), ("value", .number(parameter.value)), ("min", .number(parameter.min)),
                     ("max", .number(parameter.max)), ("default", .number(parameter.defaultValue)), ("unit", .string(parameter.unit))])
        }))])
    }

    /// Reads a reply; nil when it is not one.
    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let elements = json["parameters"]?.arrayValue else { return nil }
        var parameters: [Parameter] = []
        for element in elements {
            guard let name = element["name"]?.stringValue, let value = element["value"]?.doubleValue,
                  let min = element["min"]?.doubleValue, let max = element["max"]?.doubleValue,
                  let fallback = element["default"]?.doubleValue else { return nil }
            parameters.append(Parameter(name: name, value: value, min: min, max: max, defaultValue: fallback,
                                        unit: element["unit"]?.stringValue ?? "generic"))
        }
        self.init(app: app, parameters: parameters)
    }
}
