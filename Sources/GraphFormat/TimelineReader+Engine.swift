import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

/// The actions the engine applies rather than the session policy: MIDI, parameters and live
/// connections. They name any app of the graph, with or without a session.
extension TimelineReader {
    /// `midi`: a message of 1 to 3 bytes, status byte first, to an app with a MIDI input.
    mutating func midi(_ object: ObjectReader) -> EngineCommand? {
        let app = anyApp(object)
        let bytes = midiBytes(object)
        guard let app else { return nil }
        guard !graph.apps[app].layout.midiInputs.isEmpty else {
            let takers = graph.apps.filter { !$0.layout.midiInputs.isEmpty }.map(\.id)
            sink.error(.unknownPort, at: object.pointer + "/app",
                       "app \(JSONText.quoted(graph.apps[app].id)) has no MIDI input (node type \(JSONText.quoted(graph.apps[app].type.id)))",
                       hint: takers.isEmpty
                           ? "the graph has no app with a MIDI input; add an instrument or music effect"
                           : "apps with a MIDI input: " + takers.joined(separator: ", "))
            return nil
        }
        return bytes.map { .midi(app: graph.apps[app].id, bytes: $0) }
    }

    /// `setParam`: a parameter of any app, set to a value in its range.
    mutating func parameterChange(_ object: ObjectReader) -> EngineCommand? {
        let app = anyApp(object)
        let name = object.string("param", &sink, required: true)
        let literal = value(object)
        guard let app, let name else { return nil }
        let type = graph.apps[app].type
        let pointer = object.pointer + "/param"
        guard let index = type.parameterIndex(name) else {
            reportUnknownParameter(name, app: graph.apps[app], at: pointer)
            return nil
        }
        guard let literal,
              let value = Validator.parameterValue(literal, spec: type.parameters[index],
                                                   at: object.pointer + "/value", &sink) else { return nil }
        return .setParameter(app: graph.apps[app].id, index: index, value: value)
    }

    /// `connect`: an output to an input, with an optional gain. Whether Inter-App Audio allows it,
    /// and whether it closes a cycle, depends on the graph at that moment: the engine decides.
    mutating func connection(_ object: ObjectReader) -> EngineCommand? {
        let ends = self.ends(object)
        var gain: Float? = 1
        if let written = object.member("gain") {
            gain = literal(written, at: object.pointer + "/gain", example: "-6dB")
                .flatMap { PortResolution.gain($0, at: object.pointer + "/gain", &sink) }
        }
        guard let ends, let gain else { return nil }
        return .connect([Connection(from: ends.from, to: ends.to, gain: gain)])
    }

    /// `disconnect`: the connection may not be in the graph file; an earlier `connect` may make it.
    mutating func disconnection(_ object: ObjectReader) -> EngineCommand? {
        ends(object).map { .disconnect([Connection(from: $0.from, to: $0.to)]) }
    }

    /// The `from` output and `to` input of a `connect` or `disconnect`.
    private mutating func ends(_ object: ObjectReader) -> (from: PortAddress, to: PortAddress)? {
        let fromText = object.string("from", &sink, required: true)
        let toText = object.string("to", &sink, required: true)
        let from = fromText.flatMap {
            PortResolution.port($0, direction: .output, in: ports, at: object.pointer + "/from", side: "from", &sink)
        }
        let to = toText.flatMap {
            PortResolution.port($0, direction: .input, in: ports, at: object.pointer + "/to", side: "to", &sink)
        }
        guard let from, let to else { return nil }
        return (from, to)
    }

    /// The index of the entry's `app`, any app of the graph.
    private mutating func anyApp(_ object: ObjectReader) -> Int? {
        guard let id = object.string("app", &sink, required: true) else { return nil }
        if let index = ports.index[id] { return index }
        let ids = graph.apps.map(\.id)
        sink.error(.unknownApp, at: object.pointer + "/app", "the graph has no app \(JSONText.quoted(id))",
                   hint: Suggestion.hint(for: id, in: ids) ?? (ids.isEmpty ? "the graph has no apps" : "apps: " + ids.joined(separator: ", ")))
        return nil
    }

    /// The required `value` of a `setParam`: a number or a string such as `"-6dB"` or `"50%"`.
    private mutating func value(_ object: ObjectReader) -> ValueLiteral? {
        guard let node = object.member("value") else {
            sink.error(.missingKey, at: object.pointer + "/value", "missing required key \"value\"")
            return nil
        }
        return literal(node, at: object.pointer + "/value", example: "-6dB")
    }

    private mutating func literal(_ node: JSONNode, at pointer: String, example: String) -> ValueLiteral? {
        ValueLiteral.read(node, at: pointer, example: example, &sink)
    }

    private mutating func reportUnknownParameter(_ name: String, app: App, at pointer: String) {
        let problem = CommandReader.unknownParameter(name, of: app)
        sink.error(.unknownParameter, at: pointer, problem.message, hint: problem.hint)
    }

    /// The `bytes` of a `midi` entry: 1 to 3 integers 0...255, a status byte then data bytes, as
    /// many as the status takes.
    private mutating func midiBytes(_ object: ObjectReader) -> [UInt8]? {
        let pointer = object.pointer + "/bytes"
        guard let elements = object.array("bytes", &sink, required: true) else { return nil }
        guard (1...3).contains(elements.count) else {
            sink.error(.invalidValue, at: pointer,
                       "\"bytes\" holds \(elements.count) bytes; a MIDI message here is 1 to 3 bytes, status byte first",
                       hint: "for example [144, 60, 100]: note on, middle C, velocity 100")
            return nil
        }
        var bytes: [UInt8] = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(pointer, index)
            guard let number = element.number else {
                sink.error(.wrongType, at: elementPointer, "\"bytes\" must hold numbers, not \(element.typeName)")
                continue
            }
            guard number.rounded() == number, (0...255).contains(number) else {
                sink.error(.outOfRange, at: elementPointer, "byte \(Validator.text(number)) is not an integer from 0 to 255",
                           hint: "MIDI bytes are 0...255: a status byte 128...255, then data bytes 0...127")
                continue
            }
            bytes.append(UInt8(number))
        }
        guard bytes.count == elements.count else { return nil }
        return checkMessage(bytes, at: pointer) ? bytes : nil
    }

    /// Whether `bytes` is one whole message: a status byte, then the data bytes it takes.
    private mutating func checkMessage(_ bytes: [UInt8], at pointer: String) -> Bool {
        guard let status = bytes.first, status >= 0x80 else {
            sink.error(.invalidValue, at: JSONPointer.appending(pointer, 0),
                       "the first byte, \(bytes.first.map(String.init) ?? ""), is not a status byte (128...255)",
                       hint: "start with the status byte, such as 144 (note on, channel 1)")
            return false
        }
        if let index = bytes.indices.dropFirst().first(where: { bytes[$0] >= 0x80 }) {
            sink.error(.invalidValue, at: JSONPointer.appending(pointer, index),
                       "data byte \(bytes[index]) is not below 128; only the first byte is a status byte",
                       hint: "send each message in its own entry")
            return false
        }
        guard let length = MIDIMessageLength.of(status: status) else {
            sink.error(.invalidValue, at: JSONPointer.appending(pointer, 0),
                       "status \(status) starts or ends a system exclusive message, which does not fit in 3 bytes",
                       hint: "send channel or system common messages")
            return false
        }
        guard length == bytes.count else {
            sink.error(.invalidValue, at: pointer,
                       "status \(status) (\(MIDIMessageLength.name(status: status))) takes \(length) byte\(length == 1 ? "" : "s"), not \(bytes.count)",
                       hint: length == 3 ? "for example [\(status), 60, 100]" : length == 2 ? "for example [\(status), 0]" : "write [\(status)]")
            return false
        }
        return true
    }
}

/// How many bytes a MIDI message takes, from its status byte (the MIDI 1.0 specification's table).
enum MIDIMessageLength {
    /// 1 to 3, or nil for system exclusive (0xF0, 0xF7), whose length the status does not say.
    static func of(status: UInt8) -> Int? {
        switch status {
        case 0x80...0xBF, 0xE0...0xEF, 0xF2: 3
        case 0xC0...0xDF, 0xF1, 0xF3: 2
        case 0xF0, 0xF7: nil
        default: 1
        }
    }

    /// `note on`, `control change`, … for messages.
    static func name(status: UInt8) -> String {
        switch status & 0xF0 {
        case 0x80: "note off"
        case 0x90: "note on"
        case 0xA0: "polyphonic aftertouch"
        case 0xB0: "control change"
        case 0xC0: "program change"
        case 0xD0: "channel aftertouch"
        case 0xE0: "pitch bend"
        default: "a system message"
        }
    }
}

extension TimelineReader {
    /// `apply`: the graph file at `graph` (relative to the timeline's folder) replaces the running
    /// one, as `iaa apply` does live; later entries name apps of that graph. It is read and
    /// validated now, so that a timeline never fails halfway through a render.
    mutating func appliedGraph(_ object: ObjectReader) -> EngineCommand? {
        guard let written = object.string("graph", &sink, required: true) else { return nil }
        let pointer = object.pointer + "/graph"
        guard let registry else {
            sink.error(.invalidValue, at: pointer, "this timeline is read without node types, so it cannot apply a graph",
                       hint: "apply graphs in timelines given to iaa render")
            return nil
        }
        let path = written.hasPrefix("/") ? written : Validator.directory(of: file) + "/" + written
        let text: String
        switch GraphDecoder.read(path: path) {
        case .text(let read): text = read
        case .failure(let diagnostic):
            sink.error(.io, at: pointer, "cannot read the graph \(JSONText.quoted(path)): \(diagnostic.message)",
                       hint: "the path is relative to the timeline's folder")
            return nil
        }
        let loaded = GraphFile.load(text: text, file: path, registry: registry)
        guard let graph = loaded.graph else {
            let errors = loaded.errors
            sink.error(.invalidValue, at: pointer,
                       "the graph \(JSONText.quoted(path)) does not load: \(errors.count) error\(errors.count == 1 ? "" : "s"), the first: \(errors.first?.headline ?? "")",
                       hint: "iaa validate \(path) shows every error")
            return nil
        }
        adopt(graph)
        return .apply(AppliedGraph(graph, file: path, text: text))
    }
}
