import NodeKit

extension Validator {
    /// Checks one internal connection and records it with its dependency between apps.
    mutating func resolve(_ connection: ConnectionDescription) {
        if connection.from == nil { requireKey("from", of: connection.pointer) }
        if connection.to == nil { requireKey("to", of: connection.pointer) }
        let from = connection.from.flatMap { port($0, direction: .output, at: connection.pointer + "/from", side: "from") }
        let to = connection.to.flatMap { port($0, direction: .input, at: connection.pointer + "/to", side: "to") }
        let gain = connection.gain.flatMap { self.gain($0, at: connection.pointer + "/gain") }
        guard let from, let to else { return }
        if let earlier = connections.firstIndex(where: { $0.from == from && $0.to == to }) {
            sink.error(.duplicateConnection, at: connection.pointer,
                       "\(JSONText.quoted(connection.from ?? "")) → \(JSONText.quoted(connection.to ?? "")) is already connected\(place(ofConnection: earlier))",
                       hint: "remove one of them; to change the level, set \"gain\" on one connection")
            return
        }
        if let cycle = dependencies.add(from: from.app, to: to.app) {
            let names = cycle.map { JSONText.quoted(apps[$0].id ?? "?") }.joined(separator: " → ")
            sink.error(.cycle, at: connection.pointer, "apps \(names) form a cycle",
                       hint: cycle.count == 2
                           ? "an app cannot feed its own input"
                           : "remove one connection of the cycle; feedback needs a delay app, which this graph format does not model yet")
            return
        }
        // A connection with a bad gain was reported; record the rest so later checks stay accurate.
        connections.append(Connection(from: from, to: to, gain: gain ?? 1))
        connectionPointers.append(connection.pointer)
    }

    /// ` (by /connections/0 at line 12)` for a recorded connection.
    private func place(ofConnection index: Int) -> String {
        let pointer = connectionPointers[index]
        guard let line = description.sourceMap.location(of: pointer)?.line else { return " (by \(pointer))" }
        return " (by \(pointer) at line \(line))"
    }

    /// Resolves `APP:PORT` to an address in `direction`, or reports why it cannot.
    mutating func port(_ text: String, direction: PortSpec.Direction, at pointer: String, side: String) -> PortAddress? {
        guard let reference = PortReference(text) else {
            sink.error(.invalidEndpoint, at: pointer, "\(JSONText.quoted(text)) is not \"APP:PORT\"",
                       hint: appIndex[text] != nil ? "name one of its ports, such as \"\(text):\(direction == .output ? "out" : "in")\"" : nil)
            return nil
        }
        guard let appIndex = app(named: reference.app) else {
            sink.error(.unknownApp, at: pointer, "no app \(JSONText.quoted(reference.app))",
                       hint: Suggestion.hint(for: reference.app, in: appIds) ?? "apps: " + appIds.joined(separator: ", "))
            return nil
        }
        // An app whose plugin is unknown was reported already; its ports are unknowable.
        guard let layout = apps[appIndex].layout else { return nil }
        let ports = direction == .output ? layout.outputs : layout.inputs
        if let index = ports.firstIndex(where: { $0.name == reference.port }) {
            return PortAddress(app: appIndex, port: index)
        }
        let others = direction == .output ? layout.inputs : layout.outputs
        if others.contains(where: { $0.name == reference.port }) {
            sink.error(.wrongDirection, at: pointer,
                       "\(JSONText.quoted(text)) is an \(direction.opposite.rawValue), but \"\(side)\" must be an \(direction.rawValue) (\(Self.list(ports, direction, of: reference.app)))",
                       hint: "connections go from an output to an input; swap \"from\" and \"to\"?")
            return nil
        }
        sink.error(.unknownPort, at: pointer,
                   "app \(JSONText.quoted(reference.app)) has no \(direction.rawValue) \(JSONText.quoted(reference.port)) (\(Self.list(ports, direction, of: nil)))",
                   hint: Suggestion.hint(for: reference.port, in: ports.map(\.name))
                       ?? (ports.isEmpty
                           ? "connect a different app, or choose a node type that has \(direction.rawValue)s"
                           : "use one of the \(direction.rawValue)s listed, or configure the app to have more (a mixer's \"inputs\")"))
        return nil
    }

    /// `inputs: in_1, in_2` or `"tone" has no inputs`.
    static func list(_ ports: [PortSpec], _ direction: PortSpec.Direction, of app: String?) -> String {
        let owner = app.map { " of \(JSONText.quoted($0))" } ?? ""
        guard !ports.isEmpty else { return "it has no \(direction.rawValue)s" }
        return "\(direction.rawValue)s\(owner): " + ports.map(\.name).joined(separator: ", ")
    }

    /// A connection gain: a finite number ≥ 0, or a string such as `"-6dB"`.
    private mutating func gain(_ literal: ValueLiteral, at pointer: String) -> Float? {
        let value: Float?
        switch literal {
        case .number(let number): value = Float(number)
        case .text(let text): value = ParameterValue.parse(text)
        }
        guard let value, value.isFinite, value >= 0 else {
            let written = switch literal {
            case .number(let number): Self.text(number)
            case .text(let text): JSONText.quoted(text)
            }
            sink.error(.invalidGain, at: pointer, "gain \(written) must be a finite number ≥ 0",
                       hint: "write a linear gain such as 0.5, or decibels such as \"-6dB\"")
            return nil
        }
        return value
    }
}

extension PortSpec.Direction {
    var opposite: PortSpec.Direction { self == .input ? .output : .input }
}
