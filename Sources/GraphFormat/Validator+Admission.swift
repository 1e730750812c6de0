import AudioGraph
import AudioSession
import LocatedJSON
import NodeKit

extension Validator {
    /// The `programs.admit` block as the engine applies it, or nil when the graph has none or it
    /// is wrong (reported). Its fields are a `program` block's, an app's session fields, and where
    /// the admitted apps are heard (`to`, `from`) and how many there may be (`limit`).
    mutating func admission() -> ProgramAdmission? {
        let pointer = "/programs/admit"
        guard let node = description.admission, node.isObject else { return nil }
        let object = ObjectReader(node, pointer: pointer, allowed: DescriptionReader.Keys.admit, sink: &sink)
        let errorsBefore = sink.diagnostics.filter(\.isError).count
        let binding = programBinding(object, at: pointer, admitted: true)
        if object.member("jackClient") == nil {
            sink.error(.missingKey, at: pointer + "/jackClient", "missing required key \"jackClient\": the JACK clients the graph admits",
                       hint: "a client name or a glob such as \"mpv*\"; \"*\" admits every client that plays and no app names")
        }
        if object.member("state") != nil {
            sink.error(.invalidValue, at: pointer + "/state", atKey: true,
                       "admitted programs start in the background: the foreground is one app, and a program may arrive at any moment",
                       hint: "remove \"state\"; with \"backgroundModes\": [\"audio\"] they play in the background, and `iaa app APP foreground` brings one to the front")
        }
        let session = admittedSession(object, at: pointer)
        let to = admissionPorts(object, "to", direction: .input, channels: binding?.outputs, at: pointer)
        let from = admissionPorts(object, "from", direction: .output, channels: binding?.inputs, at: pointer)
        let limit = wholeNumber(object, "limit", range: ProgramAdmission.limitRange, at: pointer,
                                hint: "how many programs the graph admits at once, such as 8 (the default)")
        if let to, let from { checkAdmissionCycle(to: to, from: from, at: pointer) }
        guard sink.diagnostics.filter(\.isError).count == errorsBefore, let binding, let session, let to, let from,
              object.member("limit") == nil || limit != nil else { return nil }
        return ProgramAdmission(binding: binding, session: session, to: to, from: from, limit: limit ?? 8)
    }

    /// The session every admitted app starts with: the block's `session`, `entitlements`,
    /// `requires` and `backgroundModes`, read as an app's are. A grants file in force is asked
    /// about `*`, since the apps' ids are not known until their programs appear.
    private mutating func admittedSession(_ object: ObjectReader, at pointer: String) -> AppSessionSetup? {
        var app = AppDescription(id: nil, plugin: nil, pointer: pointer)
        app.session = object.node("session", of: "object", &sink) { $0.isObject }
        app.entitlements = object.strings("entitlements", &sink)
        app.requires = object.strings("requires", &sink)
        app.backgroundModes = object.strings("backgroundModes", &sink)
        guard object.member("session") != nil else {
            sink.error(.missingKey, at: pointer + "/session", "missing required key \"session\": the session every admitted program starts with",
                       hint: "such as { \"category\": \"playback\", \"options\": [\"mixWithOthers\"], \"active\": true }, with \"backgroundModes\": [\"audio\"]")
            return nil
        }
        guard let setup = sessionSetup(of: app, id: "*", role: .app) else { return nil }
        // A program that cannot speak for its session (most JACK programs) plays only when the
        // block starts it active; in the background that needs a category that plays there and
        // the audio background mode, or every admission would be refused `cannotStartPlaying`.
        guard setup.active else { return setup }
        if !setup.category.playsInBackground {
            sink.error(.incompatibleCategory, at: pointer + "/session/category",
                       "category \(setup.category.rawValue) cannot play in the background, where admitted programs start, so \"active\": true would be refused for every one",
                       hint: "use \"playback\" (with \"mixWithOthers\" to mix with the other apps)")
        } else if !setup.backgroundModes.contains(.audio) {
            sink.error(.missingEntitlement, at: pointer + (object.member("backgroundModes") == nil ? "/session/active" : "/backgroundModes"),
                       "admitted programs start in the background, where an active \(setup.category.rawValue) session plays only with the \"audio\" background mode",
                       hint: "add \"backgroundModes\": [\"audio\"] to programs.admit")
        }
        return setup
    }

    /// `to` (inputs of the graph's apps that admitted apps' outputs feed; required) or `from`
    /// (outputs that feed their inputs): one `APP:PORT` or an array of them, as many as the
    /// admitted apps' `channels` (paired in order) or one. Nil after reporting.
    private mutating func admissionPorts(_ object: ObjectReader, _ key: String, direction: PortSpec.Direction, channels: Int?,
                                         at pointer: String) -> [PortAddress]? {
        let fieldPointer = pointer + "/" + key
        guard let node = object.member(key) else {
            guard key == "to" else { return [] }
            sink.error(.missingKey, at: fieldPointer, "missing required key \"to\": where admitted programs are heard",
                       hint: "the inputs of an app of the graph, such as [\"mix:in_1\", \"mix:in_2\"] for stereo programs, or \"mix:in_1\" to sum them")
            return nil
        }
        var written: [(text: String, pointer: String)] = []
        if let text = node.string {
            written = [(text, fieldPointer)]
        } else if let elements = node.elements, !elements.isEmpty {
            for (index, element) in elements.enumerated() {
                let elementPointer = JSONPointer.appending(fieldPointer, index)
                guard let text = element.string else {
                    sink.error(.wrongType, at: elementPointer, "\"\(key)\" must hold \"APP:PORT\" strings, not \(element.typeName)")
                    return nil
                }
                written.append((text, elementPointer))
            }
        } else {
            sink.error(.wrongType, at: fieldPointer, "\"\(key)\" must be \"APP:PORT\" or a non-empty array of them, not \(node.elements != nil ? "an empty array" : node.typeName)")
            return nil
        }
        if key == "from", channels == 0 {
            sink.error(.invalidValue, at: fieldPointer, "admitted programs record nothing (\"inputs\" is 0), so nothing comes \"from\" anywhere",
                       hint: "set \"inputs\" to the channels they record, or remove \"from\"")
            return nil
        }
        var ports: [PortAddress] = []
        for (text, place) in written {
            guard let address = port(text, direction: direction, at: place, side: key) else { return nil }
            guard !refuseProgramEnds([address], output: direction == .output, at: place) else { return nil }
            if apps[address.app].role == .host {
                sink.error(.notANode, at: place,
                           "admitted programs are plain apps, and host \(JSONText.quoted(apps[address.app].id ?? "?")) connects only to Inter-App Audio nodes",
                           hint: "route them into a plain app such as a mixer")
                return nil
            }
            ports.append(address)
        }
        if let channels, ports.count != 1, channels != 1, ports.count != channels {
            let names = (1...channels).map { "\(direction == .input ? "out" : "in")_\($0)" }.joined(separator: ", ")
            sink.error(.invalidValue, at: fieldPointer,
                       "admitted programs have \(channels) \(direction == .input ? "outputs" : "inputs") (\(names)), and \"\(key)\" names \(ports.count) ports",
                       hint: "name \(channels) (paired in order) or 1 (\(direction == .input ? "every output is summed into it" : "it feeds every input"))")
            return nil
        }
        return ports
    }

    /// Admitted apps take `from` and feed `to`: an error when the graph already leads from an app
    /// of `to` back to an app of `from`, which would be a cycle through every admitted app.
    private mutating func checkAdmissionCycle(to: [PortAddress], from: [PortAddress], at pointer: String) {
        guard !from.isEmpty else { return }
        var next: [Int: [Int]] = [:]
        for connection in connections {
            let feedback = apps[connection.to.app].layout.map { $0.inputs[connection.to.port].readsPreviousCycle } ?? false
            if !feedback { next[connection.from.app, default: []].append(connection.to.app) }
        }
        let sources = Set(from.map(\.app))
        var seen = Set(to.map(\.app))
        var queue = Array(seen)
        while let app = queue.popLast() {
            if sources.contains(app) {
                sink.error(.cycle, at: pointer + "/from",
                           "admitted programs would form a cycle: what they feed (\"to\") reaches \(JSONText.quoted(apps[app].id ?? "?")), which they record (\"from\")",
                           hint: "record from an app their sound does not reach")
                return
            }
            for target in next[app] ?? [] where seen.insert(target).inserted { queue.append(target) }
        }
    }
}
