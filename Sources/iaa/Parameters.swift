import ArgumentParser
import ControlSocket

/// `iaa get APP [PARAM]`: parameter values with their ranges, like mod-host's param_get.
struct GetParameter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show an app's parameters: value, range, default and unit.",
        discussion: "One line per parameter: `name = value  (min…max, default d, unit)`.")

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app's id.")
    var app: String

    @Argument(help: "One parameter (all when left out).")
    var param: String?

    @Flag(help: "Print the reply document as JSON.")
    var json = false

    func run() throws {
        let result = try engine.connect().call(.get(app: app, param: param))
        if json {
            Output.line(result.text)
            return
        }
        for parameter in ParameterReading(json: result)?.parameters ?? [] {
            Output.line(Self.line(for: parameter))
        }
    }

    /// `frequency = 440  (20…20000, default 440, Hz)`.
    static func line(for parameter: ParameterReading.Parameter) -> String {
        var details = ["\(Output.number(parameter.min))…\(Output.number(parameter.max))", "default \(Output.number(parameter.defaultValue))"]
        if !parameter.symbol.isEmpty { details.append(parameter.symbol) }
        return "\(parameter.name) = \(Output.number(parameter.value))  (\(details.joined(separator: ", ")))"
    }
}

/// `iaa set APP PARAM VALUE`: changes one parameter of a running app.
struct SetParameter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set an app's parameter.",
        usage: "iaa set [--name <name>] [--socket <path>] <app> <param> <value>",
        discussion: """
            VALUE is a number in the parameter's unit (`880`, `0.5`), a share of its range (`50%`), or a \
            gain in decibels (`-6dB`). The engine parses it, so the value set is printed back.
            """)

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app's id.")
    var app: String

    @Argument(help: "The parameter's name.")
    var param: String

    /// Takes what looks like an option too, so `-6dB` and `-0.5` need no `--` before them.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("0.5, 50% or -6dB.", valueName: "value"))
    var values: [String] = []

    var value: String { values.first ?? "" }

    func validate() throws {
        if values.count != 1 { throw ValidationError(values.isEmpty ? "give the VALUE to set" : "give one VALUE, not \(values.count)") }
    }

    func run() throws {
        // Sent as a string whatever it looks like: the engine owns the one parser of `%` and `dB`.
        let result = try engine.connect().call(.set(app: app, param: param, value: .text(value)))
        guard let reply = SetReply(json: result) else {
            Output.line(result.text)
            return
        }
        Output.line("\(reply.app) \(reply.param) = \(Output.number(reply.value))")
    }
}
