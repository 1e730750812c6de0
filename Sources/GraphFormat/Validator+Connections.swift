import AudioGraph
import LocatedJSON
import NodeKit

extension Validator {
    /// Checks the internal connection at `index` of the description and records it with its
    /// dependency between apps.
    mutating func resolve(_ connection: ConnectionDescription, at index: Int) {
        var from: PortAddress?, to: PortAddress?, gain: Float?
        // What the lazy pointers below capture: capturing `connection` copied all of it, three
        // times per connection.
        let written = connection.place
        if let text = connection.from {
            from = port(text, direction: .output, ofConnection: index, side: "from")
        } else {
            requireKey("from", of: connection.pointer)
        }
        if let text = connection.to {
            to = port(text, direction: .input, ofConnection: index, side: "to")
        } else {
            requireKey("to", of: connection.pointer)
        }
        if let literal = connection.gain { gain = PortResolution.gain(literal, at: written.pointer + "/gain", &sink) }
        guard let from, let to else { return }
        let fromEnd = refuseProgramEnds(CollectionOfOne(from), output: true, at: written.pointer + "/from")
        guard !refuseProgramEnds(CollectionOfOne(to), output: false, at: written.pointer + "/to"), !fromEnd else { return }
        // The ends as bytes, keyed in the name table's namespace of the input's app: a
        // dictionary of the four indices hashed them with SipHash, most of recording one.
        var ends = (Int32(truncatingIfNeeded: from.app), Int32(truncatingIfNeeded: from.port), Int32(truncatingIfNeeded: to.port))
        let earlier = withUnsafeBytes(of: &ends) { connectionIndex[$0.assumingMemoryBound(to: UInt8.self), in: to.app] }
        if let earlier {
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
            return
        }
        let recorded = connections.count
        withUnsafeBytes(of: &ends) { _ = connectionIndex.insert($0.assumingMemoryBound(to: UInt8.self), in: to.app, recorded) }
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
    mutating func port(_ text: String, direction: PortSpec.Direction, ofConnection index: Int, side: String) -> PortAddress? {
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
        if let found { return found }
        return port(text, direction: direction, at: description.connections[index].pointer + "/" + side, side: side)
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
