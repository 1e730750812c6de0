import ArgumentParser
import ControlSocket

/// `iaa ports [-c] [-p] [-t] [-l] [FILTER…]`: the engine's JACK ports, in jack_lsp's layout.
struct Ports: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the engine's JACK ports with jack_lsp's flags and layout.",
        discussion: """
            One full port name per line; each flag adds lines under it, in jack_lsp's order: \
            connections (indented three spaces), latency, properties and type (indented with a tab). \
            A port is listed when its name contains every FILTER.
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(name: [.short, .customLong("connections")], help: "List the connections of each port.")
    var connections = false

    @Flag(name: [.short, .customLong("properties")], help: "Show the port's direction (input, or output).")
    var properties = false

    @Flag(name: [.short, .customLong("type")], help: "Show the port's type.")
    var type = false

    @Flag(name: [.short, .customLong("latency")], help: "Show the port's playback and capture latency ranges in frames, as jack_lsp -l does.")
    var latency = false

    @Flag(help: "Print the engine's ports document as JSON (filtered when FILTERs are given).")
    var json = false

    @Argument(help: "Substrings every listed port name must contain.")
    var filters: [String] = []

    func run() throws {
        let ports = try engine.connect().call(.ports).elements.compactMap(PortListing.init(json:)).filter { port in
            filters.allSatisfy { port.name.contains($0) }
        }
        if json {
            Output.line(ControlJSON.array(ports.map(\.json)).text)
        } else {
            for port in ports { Output.line(lines(for: port).joined(separator: "\n")) }
        }
    }

    /// jack_lsp prints a port's connections, then latency, then properties, then type.
    func lines(for port: PortListing) -> [String] {
        var lines = [port.name]
        let input = port.direction == .input
        if connections {
            lines += port.connections.map { "   " + $0 }
        }
        if latency {
            lines.append("\tport playback latency = [ \(port.playback.lowerBound) \(port.playback.upperBound) ] frames")
            lines.append("\tport capture latency = [ \(port.capture.lowerBound) \(port.capture.upperBound) ] frames")
        }
        if properties {
            lines.append("\tproperties: " + (input ? "input," : "output,"))
        }
        if type {
            lines.append("\t" + port.type)
        }
        return lines
    }
}
