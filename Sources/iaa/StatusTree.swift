import ControlSocket

/// Lays out a `status` result as a tree, the way `wpctl status` does:
/// ```
/// iaa 'studio' [jack 'default' 48000 Hz / 256, dsp 3.1 %, xruns 0 (ours 0)]
///  ├─ Hosts:
///  │  *  1. daw      playAndRecord [mixWithOthers]        active   gain 1.00
///  ├─ Nodes:
///  │     2. synth    instrument auri/poly/demo → daw       active
///  ├─ Apps:
///  │     5. music    playback [mixWithOthers]              ducked 0.25
///  └─ Interruptions: none
/// ```
/// Numbers are positions in the engine's app list, so they stay put when a section is empty.
struct StatusTree {
    let status: StatusReply

    /// One app's line before padding.
    private struct Row {
        let foreground: Bool
        let number: Int
        let id: String
        let description: String
        var state: String

        /// The state with `words` after it.
        mutating func append(_ words: String) { state += "   " + words }
    }

    var text: String {
        let rows = status.apps.enumerated().map { Self.row(number: $0.offset + 1, app: $0.element) }
        let roles = status.apps.map(\.role)
        let sections: [(String, [Row])] = [
            ("Hosts", zip(roles, rows).filter { $0.0 == "host" }.map(\.1)),
            ("Nodes", zip(roles, rows).filter { $0.0 == "node" }.map(\.1)),
            ("Apps", zip(roles, rows).filter { $0.0 != "host" && $0.0 != "node" }.map(\.1)),
        ]
        let widths = (
            number: rows.map { String($0.number).count }.max() ?? 1,
            id: rows.map(\.id.count).max() ?? 0,
            description: rows.map(\.description.count).max() ?? 0)
        var lines = [header]
        // The audio thread stuck in a node that never returns: said before anything else.
        if let stall = status.jack.stalled {
            lines.append(" ├─ " + Output.styled("STALLED:", .red) + " " + stall.reason)
        }
        for (title, members) in sections {
            lines.append(" ├─ " + Output.styled(title + ":", .bold))
            for row in members {
                let marker = row.foreground ? Output.styled("*", .green) : " "
                let number = String(repeating: " ", count: widths.number - String(row.number).count) + "\(row.number)."
                let line = " │  \(marker)  \(number) \(pad(row.id, widths.id))  \(pad(row.description, widths.description))  \(row.state)"
                lines.append(trimmed(line))
            }
        }
        lines += jackLines
        lines += programLines
        if let satellite = satelliteLine { lines.append(" ├─ " + Output.styled("Primary:", .bold) + " " + satellite) }
        lines.append(" ├─ " + Output.styled("Transport:", .bold) + " " + transportLine)
        lines += interruptionLines
        return lines.joined(separator: "\n")
    }

    /// `iaa 'GRAPH' [jack 'SERVER' RATE Hz / BUFFER, dsp LOAD %, xruns N (ours M)]`.
    private var header: String {
        let jack = status.jack
        return Output.styled("iaa '\(status.graph)'", .bold)
            + " [jack '\(jack.server)' \(Output.number(jack.sampleRate)) Hz / \(jack.bufferSize), dsp \(Output.fixed(jack.dspLoad, decimals: 1)) %,"
            + " xruns \(jack.xruns) (ours \(jack.ourXruns))]"
    }

    private static func row(number: Int, app: AppStatus) -> Row {
        var row = plainRow(number: number, app: app)
        // The library was rebuilt since it was loaded, and the old build still runs.
        if app.library?.rebuilt == true { row.append(Output.styled("rebuilt on disk: iaa reload \(app.id)", .yellow)) }
        // A plugin's control outputs (meters, gain reduction, latency): `out latency=64 level=-12.5`.
        if let outputs = app.outputs, !outputs.isEmpty {
            row.append("out " + outputs.map { "\($0.name)=\(Output.fixed($0.value, decimals: 2))" }.joined(separator: " "))
        }
        if let latency = app.latency.flatMap(latencyText) { row.append(latency) }
        if let link = app.link {
            row.append(linkText(link))
        } else if let program = app.program {
            row.append(programText(program))
        }
        if let isolation = app.isolation {
            let text = isolationText(isolation)
            if text.silent { row.state = text.text } else { row.append(text.text) }
        }
        // A node the engine stopped running says so before anything else: `bypassed (deadline)`.
        guard let fault = app.fault else { return row }
        let kind = switch fault.kind {
        case "deadline": "deadline"
        case "hang": "hangs in process"
        default: "NaN/Inf"
        }
        row.state = Output.styled("\(fault.action) (\(kind))", .red)
        return row
    }

    /// `latency 8191` for a latent app, `aligns in_1 +8191` for the compensated inputs and
    /// `outside +8191` for the outside signals entering it; nil for an app with none of these.
    private static func latencyText(_ latency: AppStatus.Latency) -> String? {
        var words: [String] = []
        if latency.own > 0 { words.append("latency \(latency.own)") }
        let delays = latency.compensation.map { entry in
            "\(entry.to.split(separator: ":").last.map(String.init) ?? entry.to) +\(entry.delay)"
        }
        if !delays.isEmpty { words.append("aligns " + delays.joined(separator: ", ")) }
        if latency.outside > 0 { words.append("outside +\(latency.outside)") }
        return words.isEmpty ? nil : words.joined(separator: "   ")
    }

    private static func plainRow(number: Int, app: AppStatus) -> Row {
        guard let session = app.session else {
            // A node, or a processing app the policy does not manage: what it is and who hosts it.
            var words = [shortPlugin(app.plugin)] + (app.component.map { [$0] } ?? [])
            if !app.hosts.isEmpty { words.append("→ " + app.hosts.joined(separator: ", ")) }
            return Row(foreground: false, number: number, id: app.id, description: words.joined(separator: " "),
                       state: "active" + gainText(app.gain))
        }
        return Row(foreground: session.foreground, number: number, id: app.id,
                   description: sessionDescription(app: app, session: session), state: state(session))
    }

    /// An LV2 plugin by the last part of its URI, `lv2:…/lookaheadLimiterConst`: the whole URI
    /// (`lv2:http://plugin.org.uk/swh-plugins/lookaheadLimiterConst`) would widen the column of
    /// every app to its length. `status --json` and `iaa dump` keep the whole reference.
    static func shortPlugin(_ plugin: String) -> String {
        guard plugin.hasPrefix("lv2:"), plugin.contains("://"),
              let cut = plugin.lastIndex(where: { $0 == "/" || $0 == "#" }), plugin.index(after: cut) < plugin.endIndex
        else { return plugin }
        return "lv2:…" + plugin[cut...]
    }

    /// `category[/mode] [options]`, then `→ hosts` for a node that has a session too.
    private static func sessionDescription(app: AppStatus, session: SessionStatus) -> String {
        var text = session.category
        if session.mode != "default" { text += "/" + session.mode }
        if !session.options.isEmpty { text += " [" + session.options.joined(separator: ",") + "]" }
        if app.role == "node" {
            if let component = app.component { text += " " + component }
            if !app.hosts.isEmpty { text += " → " + app.hosts.joined(separator: ", ") }
        }
        return text
    }

    /// The most telling state first: interrupted (a background app the interruption took is
    /// suspended too, and says what took it), suspended, ducked (with its gain), active or inactive.
    private static func state(_ session: SessionStatus) -> String {
        if session.interrupted { return Output.styled("interrupted", .red) }
        if session.suspended { return Output.styled("suspended", .dim) }
        if session.ducked { return Output.styled("ducked", .yellow) + " " + Output.fixed(session.gain, decimals: 2) }
        if session.active { return Output.styled("active", .green) + gainText(session.gain) }
        return "inactive"
    }

    /// An isolated app's child: `isolated pid 4242` (with its late cycles) while it plays, else
    /// why the app is silent, in place of its session state: `silent (crashed): its process was
    /// killed by SIGSEGV; restarting`, `off (hung): …; iaa enable ID`, `starting`.
    private static func isolationText(_ isolation: AppStatus.Isolation) -> (text: String, silent: Bool) {
        let pid = isolation.pid.map(String.init) ?? "?"
        let kind = isolation.fault?.kind ?? "fault"
        let reason = isolation.fault?.reason
        switch isolation.state {
        case .running:
            let late = isolation.lateCycles
            return ("isolated pid \(pid)" + (late > 0 ? ", \(late) late cycles (silent)" : ""), false)
        case .starting:
            return (Output.styled("silent", .dim) + "   isolated child starting", true)
        case .restarting:
            return (Output.styled("silent (\(kind))", .red) + "   " + [reason, "restarting"].compactMap { $0 }.joined(separator: "; "), true)
        case .off:
            return (Output.styled("off (\(kind))", .red) + "   " + [reason, isolation.note].compactMap { $0 }.joined(separator: "; "), true)
        }
    }

    /// A link end: `link receive 0.0.0.0:30100 running (locked after 0.8 s), 1 restart,
    /// 1 dropout` (its latency is the app's, shown before it); when the bridge is restarting,
    /// why it ended.
    private static func linkText(_ link: AppStatus.Link) -> String {
        var stateText = link.state.rawValue
        if link.state == .running, let locked = link.lockedAfter {
            stateText += " (locked after \(Output.fixed(locked, decimals: 1)) s)"
        }
        let style: Output.Style = switch link.state {
        case .running: .green
        case .lost, .restarting: .red
        case .starting, .waiting, .locking: .yellow
        }
        var text = "link \(link.direction) \(link.address) " + Output.styled(stateText, style)
        for (count, noun) in [(link.restarts, "restart"), (link.dropouts, "dropout"), (link.underruns, "underrun")] where count > 0 {
            text += ", \(count) \(noun)\(count == 1 ? "" : "s")"
        }
        if link.state == .restarting, let exit = link.lastExit { text += ": " + exit }
        return text
    }

    /// A program app's process: `program mpv-01 pid 4242 (2 ports routed), session pid 4242`, or
    /// `program not running (waiting for mpv*)`, and the clients refused.
    private static func programText(_ program: AppStatus.Program) -> String {
        var words = program.clients.map { client in
            let pid = client.pid.map { " pid \($0)" } ?? ""
            return "\(client.name)\(pid) (\(client.ports.count) \(client.ports.count == 1 ? "port" : "ports") routed)"
        }
        if let attached = program.attached { words.append("session pid \(attached)") }
        // An app the graph file does not name, admitted under programs.admit while it runs.
        let kind = program.admitted ? "admitted program" : "program"
        var text = words.isEmpty
            ? Output.styled("\(kind) not running", .dim) + (program.jackClient.map { " (waiting for \($0))" } ?? "")
            : kind + " " + words.joined(separator: ", ")
        if !program.refused.isEmpty {
            text += "   " + Output.styled("refused " + program.refused.map(\.name).joined(separator: ", "), .red)
        }
        return text
    }

    private static func gainText(_ gain: Double) -> String {
        "   gain " + Output.fixed(gain, decimals: 2)
    }

    /// A satellite's link to its primary: `joined ssh://head-unit/run/iaa/head.sock (2 apps)`,
    /// or `fallback: REASON`; nil for an engine that decides alone.
    private var satelliteLine: String? {
        guard let satellite = status.satellite else { return nil }
        switch satellite.state {
        case .joined: return Output.styled("joined", .green) + " \(satellite.primary) (\(satellite.apps.count) apps decided there)"
        case .fallback: return Output.styled("fallback", .red) + ": " + (satellite.reason ?? satellite.primary)
        case .joining: return "joining \(satellite.primary)"
        }
    }

    /// `playing 120 bpm, bar 3 beat 2`.
    private var transportLine: String {
        let transport = status.transport
        return "\(transport.playing ? "playing" : "stopped"), \(Output.number(transport.tempo)) bpm, bar \(transport.bar) beat \(transport.beat)"
    }

    /// `├─ JACK:` with every connection to the engine's ports (`rule` when a graph rule keeps it,
    /// `outside` when it was made by hand or by another program) and every rule not made now.
    private var jackLines: [String] {
        var rows = status.jackConnections.map { connection in
            ("\(connection.from) -> \(connection.to)",
             connection.program.map { "program app \($0)" } ?? (connection.rule == nil ? "outside" : "rule"))
        }
        for rule in status.rules {
            switch rule.state {
            case .made: continue
            case .pending: rows.append((rule.rule, "pending: waiting for \(rule.waitingFor ?? "?")"))
            case .removed: rows.append((rule.rule, "removed by hand: made again when \(Self.farEnd(of: rule.rule)) restarts, by iaa connect, or on iaa apply"))
            case .refused: rows.append((rule.rule, "refused by JACK"))
            }
        }
        let title = " ├─ " + Output.styled("JACK:", .bold)
        guard !rows.isEmpty else { return [title + " no connections"] }
        let width = rows.map(\.0.count).max() ?? 0
        return [title] + rows.map { trimmed(" │     \(pad($0.0, width))  \($0.1)") }
    }

    /// What a rule removed by hand waits for (its ports registering again): the JACK server's
    /// own ports come back with the server, another client's with its program.
    static func farEnd(of rule: String) -> String {
        let ends = rule.components(separatedBy: " -> ")
        let machine = ends.contains { $0.hasPrefix("@") || $0.hasPrefix("system:") }
        return machine ? "the JACK server" : "its program"
    }

    /// `├─ Programs: admitting mpv* (1 of 8: mpv)` and the clients `programs.admit` refused, or
    /// nothing when the graph admits no programs it does not name.
    private var programLines: [String] {
        guard let programs = status.programs else { return [] }
        let admitted = programs.admitted
        var line = " ├─ " + Output.styled("Programs:", .bold) + " admitting \(programs.admit.jackClient ?? "?")"
        line += " (\(admitted.count) of \(programs.admit.limit)\(admitted.isEmpty ? "" : ": " + admitted.joined(separator: ", ")))"
        let refused = programs.refused.map { refusal in
            " │     " + Output.styled("refused \(refusal.name)", .red) + ": " + refusal.reason
        }
        return [line] + refused
    }

    /// `└─ Interruptions: none`, or the interrupted apps under it.
    private var interruptionLines: [String] {
        let title = " └─ " + Output.styled("Interruptions:", .bold)
        let interrupted = status.apps.enumerated().filter { $0.element.session?.interrupted ?? false }
        guard status.interruption || !interrupted.isEmpty else { return [title + " none"] }
        return [title] + interrupted.map { "       \($0.offset + 1). \($0.element.id)" }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func trimmed(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }
}
