import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// JACK's limits, in bytes: a client name, and a full port name (`client:port`), which JACK
    /// would otherwise truncate silently.
    static let maximumClientNameBytes = 63
    static let maximumPortNameBytes = 256

    /// One side of a `jack.connections` entry, classified.
    private enum Side {
        /// `APP:PORT` or `APP:GLOB` over an app of this graph.
        case app(index: Int, reference: PortReference)
        case external(ExternalEndpoint)
        /// Already reported.
        case invalid
    }

    mutating func checkJackClient() {
        guard let client = description.jack.client else { return }
        if client.isEmpty || client.contains(":") {
            sink.error(.invalidValue, at: "/jack/client", "JACK client name \(JSONText.quoted(client)) must be non-empty and contain no ':'")
        } else if client.utf8.count > Self.maximumClientNameBytes {
            sink.error(.nameTooLong, at: "/jack/client",
                       "JACK client name is \(client.utf8.count) bytes; JACK allows at most \(Self.maximumClientNameBytes)",
                       hint: "choose a shorter \"client\"")
        }
    }

    /// Every port of an app becomes the JACK port `CLIENT:APP.PORT`; refuse names JACK would cut.
    mutating func checkJackNames(app index: Int) {
        guard let id = apps[index].id, let layout = apps[index].layout else { return }
        let client = description.jackClientName
        // The longest name's length by arithmetic first: joining the port lists and building
        // the name for every app showed when loading graphs of thousands of apps.
        var longestBytes = 0
        for port in layout.inputs { longestBytes = max(longestBytes, port.name.utf8.count) }
        for port in layout.outputs { longestBytes = max(longestBytes, port.name.utf8.count) }
        guard client.utf8.count + 1 + id.utf8.count + 1 + longestBytes > Self.maximumPortNameBytes else { return }
        let ports = layout.inputs + layout.outputs
        guard let longest = ports.max(by: { $0.name.utf8.count < $1.name.utf8.count }) else { return }
        let name = "\(client):\(id).\(longest.name)"
        guard name.utf8.count > Self.maximumPortNameBytes else { return }
        sink.error(.nameTooLong, at: description.apps[index].pointer + "/id",
                   "JACK port name \(JSONText.quoted(name)) is \(name.utf8.count) bytes; JACK allows at most \(Self.maximumPortNameBytes)",
                   hint: "shorten the app id to at most \(Self.maximumPortNameBytes - name.utf8.count + id.utf8.count) bytes")
    }

    /// Checks one `jack.connections` entry and records it as an ``ExternalConnection``.
    mutating func resolve(_ connection: JackConnectionDescription) {
        if connection.from == nil { requireKey("from", of: connection.pointer) }
        if connection.to == nil { requireKey("to", of: connection.pointer) }
        guard let fromText = connection.from, let toText = connection.to else { return }
        let fromPointer = connection.pointer + "/from", toPointer = connection.pointer + "/to"
        let from = side(fromText, at: fromPointer, role: "from")
        let to = side(toText, at: toPointer, role: "to")
        let resolved: ExternalConnection
        switch (from, to) {
        case (.invalid, _), (_, .invalid):
            return
        case (.app, .app):
            sink.error(.invalidEndpoint, at: connection.pointer,
                       "both ends are app ports; a JACK connection joins an app port and a port outside the engine",
                       hint: "connect apps to each other in the top-level \"connections\"")
            return
        case (.external, .external):
            sink.error(.invalidEndpoint, at: connection.pointer, "neither end is a port of an app of this graph",
                       hint: outsideHint(fromText, toText) ?? "one end must be APP:PORT (apps: \(appIds.joined(separator: ", ")))")
            return
        case (.app(let index, let reference), .external(let endpoint)):
            guard let ports = ports(of: index, reference, direction: .output, at: fromPointer, text: fromText),
                  !refuseProgramEnds(ports, output: true, at: fromPointer) else { return }
            resolved = ExternalConnection(ports: ports, direction: .toExternal, endpoint: endpoint)
        case (.external(let endpoint), .app(let index, let reference)):
            if let midi = apps[index].layout?.midiInputs.firstIndex(where: { $0.name == reference.port }) {
                guard endpoint != .physicalCapture else {
                    sink.error(.invalidEndpoint, at: fromPointer, "\"@capture\" is audio; \(JSONText.quoted(toText)) is a MIDI input",
                               hint: "connect MIDI from \"@midi-capture\" or a JACK MIDI port")
                    return
                }
                resolved = ExternalConnection(ports: [PortAddress(app: index, port: midi)], direction: .fromExternal,
                                              endpoint: endpoint, isMIDI: true)
                break
            }
            guard endpoint != .physicalMIDICapture else {
                sink.error(.invalidEndpoint, at: fromPointer, "\"@midi-capture\" is MIDI; \(JSONText.quoted(toText)) is not a MIDI input",
                           hint: "connect it to an instrument's \"midi_in\", or use \"@capture\" for audio")
                return
            }
            guard let ports = ports(of: index, reference, direction: .input, at: toPointer, text: toText),
                  !refuseProgramEnds(ports, output: false, at: toPointer) else { return }
            resolved = ExternalConnection(ports: ports, direction: .fromExternal, endpoint: endpoint)
        }
        if externalConnections.contains(resolved) {
            sink.error(.duplicateConnection, at: connection.pointer,
                       "\(JSONText.quoted(fromText)) → \(JSONText.quoted(toText)) is already connected", hint: "remove one of them")
            return
        }
        externalConnections.append(resolved)
    }

    /// When an outside name's client is one letter off an app id, it is probably a typo for it.
    private func outsideHint(_ texts: String...) -> String? {
        for text in texts {
            guard let reference = PortReference(text),
                  let app = Suggestion.closest(to: reference.app, in: appIds) else { continue }
            return "did you mean \(JSONText.quoted("\(app):\(reference.port)"))?"
        }
        return nil
    }

    private mutating func side(_ text: String, at pointer: String, role: String) -> Side {
        switch text {
        case "@playback":
            guard role == "to" else {
                sink.error(.invalidEndpoint, at: pointer, "\"@playback\" can only be a \"to\"",
                           hint: "to record the sound card, connect from \"@capture\"")
                return .invalid
            }
            return .external(.physicalPlayback)
        case "@capture":
            guard role == "from" else {
                sink.error(.invalidEndpoint, at: pointer, "\"@capture\" can only be a \"from\"",
                           hint: "to play on the sound card, connect to \"@playback\"")
                return .invalid
            }
            return .external(.physicalCapture)
        case "@midi-capture":
            guard role == "from" else {
                sink.error(.invalidEndpoint, at: pointer, "\"@midi-capture\" can only be a \"from\"",
                           hint: "it feeds an instrument's \"midi_in\"")
                return .invalid
            }
            return .external(.physicalMIDICapture)
        default:
            break
        }
        if text.hasPrefix("@") {
            sink.error(.invalidEndpoint, at: pointer, "unknown endpoint \(JSONText.quoted(text))",
                       hint: Suggestion.hint(for: text, in: ["@playback", "@capture", "@midi-capture"])
                           ?? "use \"@playback\", \"@capture\" or \"@midi-capture\"")
            return .invalid
        }
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            let hint = appIndex[text] != nil ? "name a port of the app, such as \"\(text):out\"" : nil
            sink.error(.invalidEndpoint, at: pointer,
                       "\(JSONText.quoted(text)) is neither APP:PORT, a JACK port name client:port, \"@playback\" nor \"@capture\"",
                       hint: hint)
            return .invalid
        }
        let client = String(text[..<colon])
        if let index = app(named: client), let reference = PortReference(text) {
            return .app(index: index, reference: reference)
        }
        return external(text, client: client, at: pointer)
    }

    private mutating func external(_ text: String, client: String, at pointer: String) -> Side {
        if client == description.jackClientName {
            sink.error(.invalidEndpoint, at: pointer, "\(JSONText.quoted(text)) names a port of this engine's own JACK client",
                       hint: "name app ports as APP:PORT")
            return .invalid
        }
        if PortGlob.isGlob(text) {
            sink.error(.invalidEndpoint, at: pointer, "\(JSONText.quoted(text)) is a glob over ports outside the engine",
                       hint: outsideHint(text) ?? "globs select app ports (APP:out_*); name outside ports in full, one connection each")
            return .invalid
        }
        if client.utf8.count > Self.maximumClientNameBytes {
            sink.error(.nameTooLong, at: pointer,
                       "JACK client name \(JSONText.quoted(client)) is \(client.utf8.count) bytes; JACK allows at most \(Self.maximumClientNameBytes)")
            return .invalid
        }
        if text.utf8.count > Self.maximumPortNameBytes {
            sink.error(.nameTooLong, at: pointer,
                       "JACK port name is \(text.utf8.count) bytes; JACK allows at most \(Self.maximumPortNameBytes)")
            return .invalid
        }
        return .external(.port(text))
    }

    /// The app ports a side names (several for a glob, in layout order), or nil after reporting.
    private mutating func ports(of index: Int, _ reference: PortReference, direction: PortSpec.Direction,
                                at pointer: String, text: String) -> [PortAddress]? {
        guard PortGlob.isGlob(reference.port) else {
            return port(text, direction: direction, at: pointer, side: direction == .output ? "from" : "to").map { [$0] }
        }
        guard let layout = apps[index].layout else { return nil }
        let candidates = direction == .output ? layout.outputs : layout.inputs
        let glob = PortGlob(reference.port)
        let matches = candidates.indices.filter { glob.matches(candidates[$0].name) }
        guard !matches.isEmpty else {
            sink.error(.emptyGlob, at: pointer,
                       "\(JSONText.quoted(text)) matches no \(direction.rawValue) of \(JSONText.quoted(reference.app)) (\(PortResolution.list(candidates, direction, of: nil)))")
            return nil
        }
        return matches.map { PortAddress(app: index, port: $0) }
    }
}
