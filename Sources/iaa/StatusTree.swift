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
    let status: ControlJSON

    /// One app's line before padding.
    private struct Row {
        let foreground: Bool
        let number: Int
        let id: String
        let description: String
        let state: String
    }

    var text: String {
        let apps = status["apps"]?.elements ?? []
        let rows = apps.enumerated().map { Self.row(number: $0.offset + 1, app: $0.element) }
        let roles = apps.map { $0["role"]?.stringValue ?? "app" }
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
        if let reason = status["jack"]?["stalled"]?["reason"]?.stringValue {
            lines.append(" ├─ " + Output.styled("STALLED:", .red) + " " + reason)
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
        if let transport = transportLine { lines.append(" ├─ " + Output.styled("Transport:", .bold) + " " + transport) }
        lines += interruptionLines(apps: apps)
        return lines.joined(separator: "\n")
    }

    /// `iaa 'GRAPH' [jack 'SERVER' RATE Hz / BUFFER, dsp LOAD %, xruns N (ours M)]`.
    private var header: String {
        let jack = status["jack"] ?? .object([])
        let graph = status["graph"]?.plainText ?? "?"
        let server = jack["server"]?.plainText ?? "default"
        let rate = jack["sampleRate"]?.plainText ?? "?"
        let buffer = jack["bufferSize"]?.plainText ?? "?"
        let load = jack["dspLoad"]?.doubleValue.map { Output.fixed($0, decimals: 1) } ?? "?"
        let xruns = jack["xruns"]?.plainText ?? "?"
        let ours = jack["ourXruns"]?.plainText ?? "?"
        return Output.styled("iaa '\(graph)'", .bold) + " [jack '\(server)' \(rate) Hz / \(buffer), dsp \(load) %, xruns \(xruns) (ours \(ours))]"
    }

    private static func row(number: Int, app: ControlJSON) -> Row {
        let id = app["id"]?.plainText ?? "?"
        var row = plainRow(number: number, id: id, app: app)
        // The library was rebuilt since it was loaded, and the old build still runs.
        if app["library"]?["rebuilt"]?.boolValue == true {
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: row.state + "   " + Output.styled("rebuilt on disk: iaa reload \(id)", .yellow))
        }
        // A plugin's control outputs (meters, gain reduction, latency): `out latency=64 level=-12.5`.
        if let outputs = app["outputs"]?.objectValue, !outputs.isEmpty {
            let readings = outputs.map { "\($0.0)=\($0.1.doubleValue.map { Output.fixed($0, decimals: 2) } ?? $0.1.plainText)" }
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: row.state + "   out " + readings.joined(separator: " "))
        }
        if let latency = latencyText(app["latency"]) {
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: row.state + "   " + latency)
        }
        if let link = linkText(app["link"]) {
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: row.state + "   " + link)
        } else if let program = programText(app["program"]) {
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: row.state + "   " + program)
        }
        if let isolation = app["isolation"], isolation.objectValue != nil {
            let text = isolationText(isolation)
            row = Row(foreground: row.foreground, number: number, id: id, description: row.description,
                      state: text.silent ? text.text : row.state + "   " + text.text)
        }
        // A node the engine stopped running says so before anything else: `bypassed (deadline)`.
        guard let fault = app["fault"], let action = fault["action"]?.stringValue else { return row }
        let kind = switch fault["kind"]?.stringValue {
        case "deadline": "deadline"
        case "hang": "hangs in process"
        default: "NaN/Inf"
        }
        return Row(foreground: row.foreground, number: number, id: id, description: row.description,
                   state: Output.styled("\(action) (\(kind))", .red))
    }

    /// `latency 8191` for a latent app, `aligns in_1 +8191` for the compensated inputs and
    /// `outside +8191` for the outside signals entering it; nil for an app with none of these.
    private static func latencyText(_ latency: ControlJSON?) -> String? {
        guard let latency, latency.objectValue != nil else { return nil }
        var words: [String] = []
        if let own = latency["own"]?.intValue, own > 0 { words.append("latency \(own)") }
        let delays = (latency["compensation"]?.elements ?? []).compactMap { entry -> String? in
            guard let to = entry["to"]?.stringValue, let delay = entry["delay"]?.intValue else { return nil }
            return "\(to.split(separator: ":").last.map(String.init) ?? to) +\(delay)"
        }
        if !delays.isEmpty { words.append("aligns " + delays.joined(separator: ", ")) }
        if let outside = latency["outside"]?.intValue, outside > 0 { words.append("outside +\(outside)") }
        return words.isEmpty ? nil : words.joined(separator: "   ")
    }

    private static func plainRow(number: Int, id: String, app: ControlJSON) -> Row {
        guard let session = app["session"], session.objectValue != nil else {
            // A node, or a processing app the policy does not manage: what it is and who hosts it.
            var words = [app["plugin"]?.plainText, app["component"]?.stringValue].compactMap { $0 }
            let hosts = app["hosts"]?.elements.map(\.plainText) ?? []
            if !hosts.isEmpty { words.append("→ " + hosts.joined(separator: ", ")) }
            return Row(foreground: false, number: number, id: id, description: words.joined(separator: " "),
                       state: "active" + gainText(app["gain"]))
        }
        return Row(foreground: session["foreground"]?.boolValue ?? false, number: number, id: id,
                   description: sessionDescription(app: app, session: session), state: state(app: app, session: session))
    }

    /// `category[/mode] [options]`, then `→ hosts` for a node that has a session too.
    private static func sessionDescription(app: ControlJSON, session: ControlJSON) -> String {
        var text = session["category"]?.plainText ?? "?"
        if let mode = session["mode"]?.stringValue, mode != "default" { text += "/" + mode }
        let options = session["options"]?.elements.map(\.plainText) ?? []
        if !options.isEmpty { text += " [" + options.joined(separator: ",") + "]" }
        if app["role"]?.stringValue == "node" {
            if let component = app["component"]?.stringValue { text += " " + component }
            let hosts = app["hosts"]?.elements.map(\.plainText) ?? []
            if !hosts.isEmpty { text += " → " + hosts.joined(separator: ", ") }
        }
        return text
    }

    /// The most telling state first: suspended, interrupted, ducked (with its gain), active or inactive.
    private static func state(app: ControlJSON, session: ControlJSON) -> String {
        let flag = { (key: String) in session[key]?.boolValue ?? false }
        let gain = session["gain"] ?? app["gain"]
        if flag("suspended") { return Output.styled("suspended", .dim) }
        if flag("interrupted") { return Output.styled("interrupted", .red) }
        if flag("ducked") { return Output.styled("ducked", .yellow) + " " + (gain?.doubleValue.map { Output.fixed($0, decimals: 2) } ?? "?") }
        if flag("active") { return Output.styled("active", .green) + gainText(gain) }
        return "inactive"
    }

    /// An isolated app's child: `isolated pid 4242` (with its late cycles) while it plays, else
    /// why the app is silent, in place of its session state: `silent (crashed): its process was
    /// killed by SIGSEGV; restarting`, `off (hung): …; iaa enable ID`, `starting`.
    private static func isolationText(_ isolation: ControlJSON) -> (text: String, silent: Bool) {
        let pid = isolation["pid"]?.plainText ?? "?"
        let fault = isolation["fault"]
        let kind = fault?["kind"]?.stringValue ?? "fault"
        let reason = fault?["reason"]?.stringValue
        switch isolation["state"]?.stringValue {
        case "running":
            let late = isolation["lateCycles"]?.doubleValue ?? 0
            return ("isolated pid \(pid)" + (late > 0 ? ", \(Int(late)) late cycles (silent)" : ""), false)
        case "starting":
            return (Output.styled("silent", .dim) + "   isolated child starting", true)
        case "restarting":
            return (Output.styled("silent (\(kind))", .red) + "   " + [reason, "restarting"].compactMap { $0 }.joined(separator: "; "), true)
        default:
            let note = isolation["note"]?.stringValue
            return (Output.styled("off (\(kind))", .red) + "   " + [reason, note].compactMap { $0 }.joined(separator: "; "), true)
        }
    }

    /// A link end: `link receive 0.0.0.0:30100 running (locked after 0.8 s), 1 restart,
    /// 1 dropout` (its latency is the app's, shown before it); when the bridge is restarting,
    /// why it ended.
    private static func linkText(_ link: ControlJSON?) -> String? {
        guard let link, link.objectValue != nil, let state = link["state"]?.stringValue else { return nil }
        var stateText = state
        if state == "running", let locked = link["lockedAfter"]?.doubleValue {
            stateText += " (locked after \(Output.fixed(locked, decimals: 1)) s)"
        }
        let style: Output.Style = switch state {
        case "running": .green
        case "lost", "restarting": .red
        default: .yellow
        }
        var text = "link \(link["direction"]?.plainText ?? "?") \(link["address"]?.plainText ?? "?") " + Output.styled(stateText, style)
        for (key, noun) in [("restarts", "restart"), ("dropouts", "dropout"), ("underruns", "underrun")] {
            if let count = link[key]?.intValue, count > 0 { text += ", \(count) \(noun)\(count == 1 ? "" : "s")" }
        }
        if state == "restarting", let exit = link["lastExit"]?.stringValue { text += ": " + exit }
        return text
    }

    /// A program app's process: `program mpv-01 pid 4242 (2 ports routed), session pid 4242`, or
    /// `program not running (waiting for mpv*)`, and the clients refused.
    private static func programText(_ program: ControlJSON?) -> String? {
        guard let program, program.objectValue != nil else { return nil }
        var words: [String] = []
        let clients = program["clients"]?.elements ?? []
        for client in clients {
            let pid = client["pid"]?.intValue.map { " pid \($0)" } ?? ""
            let routed = client["ports"]?.elements.count ?? 0
            words.append("\(client["name"]?.plainText ?? "?")\(pid) (\(routed) \(routed == 1 ? "port" : "ports") routed)")
        }
        if let attached = program["attached"]?.intValue { words.append("session pid \(attached)") }
        // An app the graph file does not name, admitted under programs.admit while it runs.
        let kind = program["admitted"]?.boolValue == true ? "admitted program" : "program"
        var text = words.isEmpty
            ? Output.styled("\(kind) not running", .dim) + (program["jackClient"]?.stringValue.map { " (waiting for \($0))" } ?? "")
            : kind + " " + words.joined(separator: ", ")
        let refused = program["refused"]?.elements.compactMap { $0["name"]?.stringValue } ?? []
        if !refused.isEmpty { text += "   " + Output.styled("refused " + refused.joined(separator: ", "), .red) }
        return text
    }

    private static func gainText(_ gain: ControlJSON?) -> String {
        gain?.doubleValue.map { "   gain " + Output.fixed($0, decimals: 2) } ?? ""
    }

    /// A satellite's link to its primary: `joined ssh://head-unit/run/iaa/head.sock (2 apps)`,
    /// or `fallback: REASON`; nil for an engine that decides alone.
    private var satelliteLine: String? {
        guard let satellite = status["satellite"], satellite.objectValue != nil, let state = satellite["state"]?.stringValue else { return nil }
        let primary = satellite["primary"]?.plainText ?? "?"
        switch state {
        case "joined": return Output.styled("joined", .green) + " \(primary) (\(satellite["apps"]?.elements.count ?? 0) apps decided there)"
        case "fallback": return Output.styled("fallback", .red) + ": " + (satellite["reason"]?.plainText ?? primary)
        default: return "\(state) \(primary)"
        }
    }

    /// `playing 120 bpm, bar 3 beat 2`, or nil when the engine reports no transport.
    private var transportLine: String? {
        guard let transport = status["transport"], transport.objectValue != nil else { return nil }
        var words = [(transport["playing"]?.boolValue ?? false) ? "playing" : "stopped"]
        if let tempo = transport["tempo"]?.doubleValue { words.append(Output.number(tempo) + " bpm") }
        if let bar = transport["bar"], let beat = transport["beat"] { words.append("bar \(bar.plainText) beat \(beat.plainText)") }
        return words.joined(separator: ", ")
    }

    /// `├─ JACK:` with every connection to the engine's ports (`rule` when a graph rule keeps it,
    /// `outside` when it was made by hand or by another program) and every rule not made now.
    private var jackLines: [String] {
        guard let connections = status["jackConnections"]?.elements, let rules = status["rules"]?.elements else { return [] }
        var rows = connections.map { connection in
            ("\(connection["from"]?.plainText ?? "?") -> \(connection["to"]?.plainText ?? "?")",
             connection["program"]?.stringValue.map { "program app \($0)" } ?? (connection["rule"]?.stringValue == nil ? "outside" : "rule"))
        }
        for rule in rules where rule["state"]?.stringValue != "made" {
            let name = rule["rule"]?.plainText ?? "?"
            if let waiting = rule["waitingFor"]?.stringValue {
                rows.append((name, "pending: waiting for \(waiting)"))
            } else if rule["state"]?.stringValue == "removed" {
                rows.append((name, "removed by hand: made again when its program restarts, or on iaa apply"))
            } else {
                rows.append((name, "refused by JACK"))
            }
        }
        let title = " ├─ " + Output.styled("JACK:", .bold)
        guard !rows.isEmpty else { return [title + " no connections"] }
        let width = rows.map(\.0.count).max() ?? 0
        return [title] + rows.map { trimmed(" │     \(pad($0.0, width))  \($0.1)") }
    }

    /// `├─ Programs: admitting mpv* (1 of 8: mpv)` and the clients `programs.admit` refused, or
    /// nothing when the graph admits no programs it does not name.
    private var programLines: [String] {
        guard let programs = status["programs"], let admit = programs["admit"], admit.objectValue != nil else { return [] }
        let admitted = programs["admitted"]?.elements.map(\.plainText) ?? []
        let limit = admit["limit"]?.plainText ?? "?"
        var line = " ├─ " + Output.styled("Programs:", .bold) + " admitting \(admit["jackClient"]?.plainText ?? "?")"
        line += " (\(admitted.count) of \(limit)\(admitted.isEmpty ? "" : ": " + admitted.joined(separator: ", ")))"
        let refused = (programs["refused"]?.elements ?? []).map { refusal in
            " │     " + Output.styled("refused \(refusal["name"]?.plainText ?? "?")", .red) + ": " + (refusal["reason"]?.plainText ?? "")
        }
        return [line] + refused
    }

    /// `└─ Interruptions: none`, or the interrupted apps under it.
    private func interruptionLines(apps: [ControlJSON]) -> [String] {
        let title = " └─ " + Output.styled("Interruptions:", .bold)
        let interrupted = apps.enumerated().filter { $0.element["session"]?["interrupted"]?.boolValue ?? false }
        guard (status["interruption"]?.boolValue ?? false) || !interrupted.isEmpty else { return [title + " none"] }
        return [title] + interrupted.map { "       \($0.offset + 1). \($0.element["id"]?.plainText ?? "?")" }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func trimmed(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }
}
