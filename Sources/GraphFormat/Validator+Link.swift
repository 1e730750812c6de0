import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// Whether the app has a `link` block (one of the wrong JSON type still counts as written).
    func writesLink(_ app: AppDescription) -> Bool {
        app.link != nil || app.mistyped.contains("link")
    }

    /// A link end's program binding (the bridge's JACK client, which the engine starts), the
    /// link, the node type and its configuration; nil binding and link after reporting what is
    /// wrong. A link end is a program app whose program the engine runs, so a `program` block,
    /// a `plugin` or `params` beside it are errors, as for a program app.
    mutating func link(of app: AppDescription, id: String?, role: AppRole) -> (ProgramBinding?, LinkEnd?, NodeType?, NodeConfiguration) {
        let pointer = app.pointer + "/link"
        if app.program != nil || app.mistyped.contains("program") {
            sink.error(.programConflict, at: app.pointer + "/program",
                       "an app has a \"link\" (whose program the engine runs) or a \"program\", not both",
                       hint: "remove \"program\": the link's bridge is the app's program")
        }
        let type = checkProgramApp(app, role: role, block: "link")
        guard let node = app.link, node.isObject else { return (nil, nil, type, NodeConfiguration()) }
        let object = ObjectReader(node, pointer: pointer, allowed: DescriptionReader.Keys.link, sink: &sink)
        guard let link = linkEnd(object, at: pointer) else { return (nil, nil, type, NodeConfiguration()) }
        if link.direction == .receive {
            let key = "\(link.host) \(link.port)"
            if let other = receivedPorts[key] {
                sink.error(.duplicateConnection, at: pointer + "/receive",
                           "app \(JSONText.quoted(other.app)) already receives on UDP ports \(other.port) and \(other.port + 1) of \(link.host) (a receiver takes the port it names and the next)",
                           hint: "give each receiving link a port of its own, two apart: \(other.port + 2)")
            } else {
                for taken in link.port - 1...link.port + 1 { receivedPorts["\(link.host) \(taken)"] = (id ?? "?", link.port) }
            }
        }
        let outputs = link.direction == .receive ? link.channels : 0, inputs = link.direction == .send ? link.channels : 0
        let binding = ProgramBinding(jackClient: id.map(LinkEnd.bridgeClient(of:)), outputs: outputs, inputs: inputs)
        return (binding, link, type, NodeConfiguration(["outputs": outputs, "inputs": inputs]))
    }

    /// The link's direction, address and settings, or nil after reporting what is wrong.
    private mutating func linkEnd(_ object: ObjectReader, at pointer: String) -> LinkEnd? {
        let send = object.string("send", &sink), receive = object.string("receive", &sink)
        let example = "\"192.168.1.21:30100\" (the receiving machine's address and a UDP port)"
        guard (send == nil) != (receive == nil) else {
            if send == nil && receive == nil && object.member("send") == nil && object.member("receive") == nil {
                sink.error(.missingKey, at: pointer, "a link either sends or receives: it needs \"send\" or \"receive\"",
                           hint: "\"send\": \(example), or \"receive\" with the same address on the receiving machine")
            } else if send != nil && receive != nil {
                sink.error(.programConflict, at: pointer + "/receive", "a link end either sends or receives, not both",
                           hint: "make two apps: one that sends and one that receives")
            }
            return nil
        }
        let direction: LinkEnd.Direction = send != nil ? .send : .receive
        let addressPointer = pointer + "/" + direction.rawValue
        guard let (host, port) = Self.linkAddress(send ?? receive ?? "") else {
            sink.error(.invalidValue, at: addressPointer, "\(JSONText.quoted(send ?? receive ?? "")) is not HOST:PORT",
                       hint: "for example \(example); an IPv6 address in brackets: \"[fd00::21]:30100\"")
            return nil
        }
        guard (1...65534).contains(port) else {
            sink.error(.outOfRange, at: addressPointer, "port \(port) is not a UDP port from 1 to 65534",
                       hint: "a free port such as 30100 (the receiver also takes the next one)")
            return nil
        }
        var failed = false
        let channels = wholeNumber(object, "channels", range: 1...LinkEnd.maximumChannels, at: pointer, hint: "2 for stereo")
        let buffer = wholeNumber(object, "buffer", range: LinkEnd.bufferRange, at: pointer,
                                 hint: "milliseconds of extra buffering; 10 (the default) suits a local network")
        var format = LinkEnd.SampleFormat.int24
        if let written = object.string("format", &sink) {
            if let known = LinkEnd.SampleFormat(rawValue: written) {
                format = known
            } else {
                let names = LinkEnd.SampleFormat.allCases.map(\.rawValue)
                sink.error(.invalidValue, at: pointer + "/format", "unknown sample format \(JSONText.quoted(written))",
                           hint: Suggestion.hint(for: written, in: names) ?? "\"24bit\" (the default), \"16bit\" or \"float\"")
                failed = true
            }
        }
        let from = object.string("from", &sink)
        if let from, from.isEmpty || from.contains(where: { $0 == " " || $0 == "/" }) || Self.linkAddress(from) != nil {
            sink.error(.invalidValue, at: pointer + "/from", "\(JSONText.quoted(from)) is not the sending machine's address",
                       hint: "its address alone, without a port, as zita-n2j reports it: \"192.168.1.20\" or \"fd00::20\"")
            failed = true
        }
        for (key, onlyFor) in [("buffer", LinkEnd.Direction.receive), ("format", .send), ("from", .receive)]
        where object.member(key) != nil && direction != onlyFor {
            sink.error(.invalidValue, at: pointer + "/" + key, "\(JSONText.quoted(key)) belongs to the \(onlyFor.rawValue)ing end",
                       hint: "set it on the other machine's link, or remove it here")
            failed = true
        }
        for key in ["channels", "buffer"] where object.member(key) != nil {
            if key == "channels" && channels == nil || key == "buffer" && buffer == nil { failed = true }
        }
        guard !failed else { return nil }
        return LinkEnd(direction: direction, host: host, port: port, channels: channels ?? 2, bufferMilliseconds: buffer ?? 10,
                       format: format, from: from)
    }

    /// `HOST:PORT` or `[IPV6]:PORT` split, or nil when it is neither.
    static func linkAddress(_ text: String) -> (host: String, port: Int)? {
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }), !portText.isEmpty, portText.count <= 5,
              portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText) else { return nil }
        return (String(host), port)
    }
}
