import ArgumentParser
import ControlSocket
import Foundation

/// `iaa top`: per-app time per cycle, peak level and xruns, refreshing, like pw-top.
struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show each app's share of the cycle, its peak level, its state and the xruns, once a second.",
        discussion: """
            On a terminal the table is redrawn in place until Ctrl-C; with --json, or when stdout is not \
            a terminal, each update is printed as one JSON line. PEAK is -inf for exact silence. STATE is \
            what the policy makes of the app: active (heard at full gain), ducked with its gain in dB, \
            interrupted, suspended, silent (active, but its audio stopped or silenced by the device), \
            inactive (its session is not active), not running (a program app whose program is not \
            there), isolated starting/restarting/off (its child process is not rendering), or running \
            (an app without a session).
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(help: "Print the updates as JSON Lines.")
    var json = false

    func run() throws {
        let table = !json && Output.stdoutIsTerminal
        let follower = StreamFollower(path: engine.socketPath, method: .top) { line in
            guard table, let update = (try? ControlJSONParser.parse(line)).flatMap(TopUpdate.init(json:)) else {
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
    static func text(_ update: TopUpdate) -> String {
        var header = "iaa top   period \(Output.fixed(update.period * 1000, decimals: 2)) ms   xruns \(update.xruns)"
        if !update.workers.isEmpty {
            // JACK's thread and each worker: split cycles, or the workers idle.
            let shares = update.workers.enumerated().map { "worker \($0.offset + 1) \(Output.fixed($0.element * 100, decimals: 1)) %" }
            header += "   threads \(update.workers.count + 1), " + (update.split ? "split: " + shares.joined(separator: ", ") : "not split")
        }
        let width = max(4, update.apps.map(\.id.count).max() ?? 0) + 2
        var lines = [Output.styled(header, .bold), "",
                     Output.styled(column("BUSY", 9) + column("B/Q", 8) + column("PEAK", 11) + "APP".padding(toLength: width, withPad: " ", startingAt: 0) + "STATE", .bold)]
        for app in update.apps {
            lines.append(column(Output.fixed(app.busy * update.period * 1_000_000, decimals: 0) + " µs", 9)
                         + column(Output.fixed(app.busy * 100, decimals: 1) + " %", 8)
                         + column(peakText(app.peak), 11)
                         + app.id.padding(toLength: max(width, app.id.count + 1), withPad: " ", startingAt: 0) + stateText(app))
        }
        return lines.joined(separator: "\n")
    }

    /// Exact silence has no level at all.
    static func peakText(_ decibels: Double?) -> String {
        decibels.map { Output.fixed($0, decimals: 1) + " dB" } ?? "-inf dB"
    }

    /// The engine's `state` in the words of `iaa status`, a duck with its level: `ducked -12.0 dB`.
    static func stateText(_ app: TopUpdate.App) -> String {
        switch app.state {
        case .audible: return Output.styled("active", .green)
        case .ducked: return Output.styled("ducked", .yellow) + " " + (app.gain > 0 ? Output.fixed(20 * log10(app.gain), decimals: 1) + " dB" : "-inf dB")
        case .interrupted: return Output.styled("interrupted", .red)
        case .suspended, .notRunning, .inactive, .isolatedStarting, .isolatedRestarting, .isolatedOff:
            return Output.styled(app.state.rawValue, .dim)
        case .silent, .running: return app.state.rawValue
        }
    }

    private static func column(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - 1 - text.count)) + text + " "
    }
}
