import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// Reads `jack.expose`: "all" (the default), "none", or `APP:PORT` patterns where both parts
    /// may be globs (`mix:*`, `*:out`). Ports that `jack.connections` name are exposed too, since
    /// JACK can only connect ports it has.
    mutating func exposure() -> PortExposure {
        guard let node = description.jack.expose else { return .all }
        let pointer = "/jack/expose"
        if let word = node.string {
            switch word {
            case "all": return .all
            case "none": return PortExposure(patterns: [], selected: connectedPorts())
            default:
                sink.error(.invalidValue, at: pointer, "\"expose\" is \"all\", \"none\" or a list of APP:PORT patterns, not \(JSONText.quoted(word))",
                           hint: "for example \"expose\": [\"mix:*\"]")
                return .all
            }
        }
        guard let elements = node.elements else {
            sink.error(.wrongType, at: pointer, "\"expose\" must be \"all\", \"none\" or an array of APP:PORT patterns, not \(node.typeName)")
            return .all
        }
        var patterns: [String] = []
        var selected = connectedPorts()
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(pointer, index)
            guard let text = element.string else {
                sink.error(.wrongType, at: elementPointer, "an exposed port must be an APP:PORT string, not \(element.typeName)")
                continue
            }
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
                sink.error(.invalidEndpoint, at: elementPointer, "\(JSONText.quoted(text)) is not APP:PORT",
                           hint: appIndex[text] != nil ? "expose every port of the app with \"\(text):*\"" : nil)
                continue
            }
            let appGlob = PortGlob(String(text[..<colon])), portGlob = PortGlob(String(text[text.index(after: colon)...]))
            let appText = String(text[..<colon])
            let matchingApps = apps.indices.filter { apps[$0].id.map(appGlob.matches) ?? false }
            guard !matchingApps.isEmpty else {
                sink.error(PortGlob.isGlob(appText) ? .emptyGlob : .unknownApp, at: elementPointer,
                           "\(JSONText.quoted(text)) names no app of this graph",
                           hint: Suggestion.hint(for: appText, in: appIds) ?? "apps: " + appIds.joined(separator: ", "))
                continue
            }
            var matched = 0
            for app in matchingApps {
                guard let layout = apps[app].layout else { continue }
                let groups: [(PortExposure.Direction, [PortSpec])] = [(.input, layout.inputs), (.output, layout.outputs),
                                                                       (.midiInput, layout.midiInputs)]
                for (direction, specs) in groups {
                    for (port, spec) in specs.enumerated() where portGlob.matches(spec.name) {
                        selected.insert(PortExposure.Key(app: app, direction: direction, port: port))
                        matched += 1
                    }
                }
            }
            if matched == 0 {
                sink.error(.emptyGlob, at: elementPointer, "\(JSONText.quoted(text)) matches no port",
                           hint: matchingApps.count == 1 ? apps[matchingApps[0]].layout.map { layout in
                               "ports: " + (layout.inputs + layout.outputs + layout.midiInputs).map(\.name).joined(separator: ", ")
                           } : nil)
            }
            patterns.append(text)
        }
        return PortExposure(patterns: patterns, selected: selected)
    }

    /// The app ports `jack.connections` name.
    private func connectedPorts() -> Set<PortExposure.Key> {
        var keys: Set<PortExposure.Key> = []
        for connection in externalConnections {
            let direction: PortExposure.Direction = connection.isMIDI ? .midiInput
                : connection.direction == .toExternal ? .output : .input
            for port in connection.ports { keys.insert(PortExposure.Key(app: port.app, direction: direction, port: port.port)) }
        }
        // A program app's end is how the program reaches the graph at all.
        for (index, app) in apps.enumerated() {
            guard let layout = app.layout, app.program != nil else { continue }
            for (port, spec) in layout.inputs.enumerated() where spec.programEnd {
                keys.insert(PortExposure.Key(app: index, direction: .input, port: port))
            }
            for (port, spec) in layout.outputs.enumerated() where spec.programEnd {
                keys.insert(PortExposure.Key(app: index, direction: .output, port: port))
            }
        }
        return keys
    }
}
