import ArgumentParser
import ControlSocket
import GraphFormat

/// `iaa connect SRC DST [--gain G]`: a connection inside the graph or to any JACK port.
struct Connect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect two ports.",
        discussion: """
            SRC and DST are `APP:PORT` (inside the graph), a full JACK name (`system:playback_1`), a glob \
            that pairs channels in order (`synth:out_*`), or `@playback` / `@capture`. Prints each \
            connection made; one that already existed is reported, not refused.
            """)

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The output port.")
    var source: String

    @Argument(help: "The input port.")
    var destination: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Gain of an internal connection: 0.5, 50% or -6dB, as `iaa set` and graph files take it.",
                                                        valueName: "gain"))
    var gain: String?

    func validate() throws {
        if let gain, ParameterValue.parse(gain) == nil {
            throw ValidationError("--gain takes a linear gain (0.5), a percentage (50%) or decibels (-6dB); '\(gain)' is none of these")
        }
    }

    func run() throws {
        let linear = gain.flatMap(ParameterValue.parse).map(Double.init)
        let result = try engine.connect().call(.connect(from: source, to: destination, gain: linear))
        for made in ConnectionsReply(json: result)?.connections ?? [] {
            Output.line((made.already == true ? "already connected " : "connected ") + ConnectionText.describe(made))
        }
    }
}

/// `iaa disconnect SRC DST`.
struct Disconnect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect",
        abstract: "Disconnect two ports.",
        discussion: "Takes the same port forms as connect.")

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The output port.")
    var source: String

    @Argument(help: "The input port.")
    var destination: String

    func run() throws {
        let result = try engine.connect().call(.disconnect(from: source, to: destination))
        for removed in ConnectionsReply(json: result)?.connections ?? [] {
            Output.line("disconnected " + ConnectionText.describe(removed))
        }
    }
}

/// `from -> to`, marked `(JACK)` when it is a JACK connection outside the graph.
enum ConnectionText {
    static func describe(_ connection: ConnectionsReply.Connection) -> String {
        connection.isInternal ? "\(connection.from) -> \(connection.to)" : "\(connection.from) -> \(connection.to) (JACK)"
    }
}
