import ArgumentParser
import ControlSocket

/// `iaa top`: per-app time per cycle, peak level and xruns, refreshing, like pw-top.
struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each app's share of the cycle, its peak level and the xruns, once a second.",
        discussion: """
            On a terminal the table is redrawn in place until Ctrl-C; with --json, or when stdout is not \
            a terminal, each update is printed as one JSON line.
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(help: "Print the updates as JSON Lines.")
    var json = false

    func run() throws {
        let table = !json && Output.stdoutIsTerminal
        let follower = StreamFollower(path: engine.socketPath, method: .top) { line in
            guard table, let update = try? ControlJSONParser.parse(line) else {
                Output.line(line)
                return
            }
            // Home and clear, then the table: a redraw without scrolling, as top does.
            Output.line("\u{1B}[H\u{1B}[2J" + TopTable.text(update))
        }
        try follower.follow(quiet: nil)
    }
}

/// One `top` update as a table.
enum TopTable {
    static func text(_ update: ControlJSON) -> String {
        let period = update["period"]?.doubleValue ?? 0
        let header = "iaa top   period \(Output.fixed(period * 1000, decimals: 2)) ms   xruns \(update["xruns"]?.plainText ?? "0")"
        var lines = [Output.styled(header, .bold), "", Output.styled(column("BUSY", 9) + column("B/Q", 8) + column("PEAK", 11) + "APP", .bold)]
        for app in update["apps"]?.elements ?? [] {
            let busy = app["busy"]?.doubleValue ?? 0
            let peak = app["peak"]?.doubleValue.map { Output.fixed($0, decimals: 1) + " dB" } ?? "-inf dB"
            lines.append(column(Output.fixed(busy * period * 1_000_000, decimals: 0) + " µs", 9)
                         + column(Output.fixed(busy * 100, decimals: 1) + " %", 8)
                         + column(peak, 11) + (app["id"]?.plainText ?? "?"))
        }
        return lines.joined(separator: "\n")
    }

    private static func column(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - 1 - text.count)) + text + " "
    }
}
