import AudioGraph
import LocatedJSON
import NodeKit

extension Validator {
    /// Checks the internal connection at `index` of the description and records it with its
    /// dependency between apps.
    mutating func resolve(_ connection: ConnectionDescription, at index: Int) {
        var from: PortAddress?, to: PortAddress?, gain: Float?
        if let text = connection.from {
            from = port(text, direction: .output, in: connection, side: "from")
        } else {
            requireKey("from", of: connection.pointer)
        }
        if let text = connection.to {
            to = port(text, direction: .input, in: connection, side: "to")
        } else {
            requireKey("to", of: connection.pointer)
        }
        if let literal = connection.gain { gain = PortResolution.gain(literal, at: connection.pointer + "/gain", &sink) }
        guard let from, let to else { return }
        let fromEnd = refuseProgramEnds(CollectionOfOne(from), output: true, at: connection.pointer + "/from")
        guard !refuseProgramEnds(CollectionOfOne(to), output: false, at: connection.pointer + "/to"), !fromEnd else { return }
        // One hash for the common case: recorded at once, and taken back if it may not stay.
        let ends = ConnectionEnds(from: from, to: to)
        if let earlier = connectionIndex.updateValue(connections.count, forKey: ends) {
            connectionIndex[ends] = earlier
            sink.error(.duplicateConnection, at: connection.pointer,
                       "\(JSONText.quoted(connection.from ?? "")) → \(JSONText.quoted(connection.to ?? "")) is already connected\(place(ofConnection: earlier))",
                       hint: "remove one of them; to change the level, set \"gain\" on one connection")
            return
        }
        let feedback = apps[to.app].hasFeedbackInputs && apps[to.app].layout.map { $0.inputs[to.port].readsPreviousCycle } ?? false
        if !feedback, let cycle = dependencies.add(from: from.app, to: to.app) {
            let names = cycle.map { JSONText.quoted(apps[$0].id ?? "?") }.joined(separator: " → ")
            sink.error(.cycle, at: connection.pointer, "apps \(names) form a cycle",
                       hint: cycle.count == 2
                           ? "an app cannot feed its own input"
                           : "remove one connection of the cycle; feedback needs a delay app, which this graph format does not model yet")
            connectionIndex[ends] = nil
            return
        }
        // A connection with a bad gain was reported; record the rest so later checks stay accurate.
        connections.append(Connection(from: from, to: to, gain: gain ?? 1))
        connectionSources.append(index)
    }

    /// ` (by /connections/0 at line 12)` for a recorded connection.
    private func place(ofConnection index: Int) -> String {
        let pointer = description.connections[connectionSources[index]].pointer
        guard let line = description.sourceMap.location(of: pointer)?.line else { return " (by \(pointer))" }
        return " (by \(pointer) at line \(line))"
    }

    /// Resolves `APP:PORT` (the `side` field of the connection at `connection`) to an address in
    /// `direction`, or reports why it cannot.
    mutating func port(_ text: String, direction: PortSpec.Direction, in connection: ConnectionDescription, side: String) -> PortAddress? {
        // The common case, a well-formed reference to a known port, needs no listing and no
        // pointer, and is resolved in the text's own bytes, without a string for either half.
        var text = text
        let found = text.withUTF8 { bytes -> PortAddress? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[(colon + 1)...])
            // What `PortReference` refuses (a second colon) is left to the reporting path.
            guard !name.contains(UInt8(ascii: ":")), let app = appIndex[UnsafeBufferPointer(rebasing: bytes[..<colon])],
                  let port = portNames[name, in: 2 * app + (direction == .output ? 1 : 0)] else { return nil }
            return PortAddress(app: app, port: port)
        }
        return found ?? port(text, direction: direction, at: connection.pointer + "/" + side, side: side)
    }

    /// Resolves `APP:PORT` to an address in `direction`, or reports why it cannot at `pointer`.
    mutating func port(_ text: String, direction: PortSpec.Direction, at pointer: String, side: String) -> PortAddress? {
        // Copies, so that the closures do not read `self` while `sink` is being written.
        let resolved = apps
        let known = PortResolution.Apps(index: appIndex, layout: { resolved[$0].layout },
                                        ids: { resolved.compactMap(\.id) })
        return PortResolution.port(text, direction: direction, in: known, at: pointer, side: side, &sink)
    }
}

/// A connection's two ends, as the duplicate check keys them.
struct ConnectionEnds: Hashable {
    let from: PortAddress
    let to: PortAddress
}
