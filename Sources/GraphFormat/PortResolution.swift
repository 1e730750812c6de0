import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

/// Resolves `APP:PORT` text and connection gains, reporting as graph files do: shared by the
/// ``Validator`` (connections as the file writes them) and the timeline reader (`connect` and
/// `disconnect`, against a validated graph), so that a mistake reads the same in both files.
enum PortResolution {
    /// The apps to resolve against: an index by id, each app's layout (nil when its node type is
    /// unknown, already reported), and the ids for listings, computed only for an error.
    struct Apps {
        let index: NameIndex
        let layout: (Int) -> NodeLayout?
        let ids: () -> [String]
    }

    /// `text` as an address of an input or output (`direction`) of one of `apps`, or nil after
    /// reporting why not at `pointer`; `side` names the field (`from`, `to`).
    static func port(_ text: String, direction: PortSpec.Direction, in apps: Apps, at pointer: String,
                     side: String, _ sink: inout DiagnosticSink) -> PortAddress? {
        guard let reference = PortReference(text) else {
            sink.error(.invalidEndpoint, at: pointer, "\(JSONText.quoted(text)) is not \"APP:PORT\"",
                       hint: apps.index[text] != nil ? "name one of its ports, such as \"\(text):\(direction == .output ? "out" : "in")\"" : nil)
            return nil
        }
        guard let appIndex = apps.index[reference.app] else {
            sink.error(.unknownApp, at: pointer, "no app \(JSONText.quoted(reference.app))",
                       hint: Suggestion.hint(for: reference.app, in: apps.ids()) ?? "apps: " + apps.ids().joined(separator: ", "))
            return nil
        }
        // An app whose plugin is unknown was reported already; its ports are unknowable.
        guard let layout = apps.layout(appIndex) else { return nil }
        let ports = direction == .output ? layout.outputs : layout.inputs
        if let index = ports.firstIndex(where: { $0.name == reference.port }) {
            return PortAddress(app: appIndex, port: index)
        }
        let others = direction == .output ? layout.inputs : layout.outputs
        if others.contains(where: { $0.name == reference.port }) {
            sink.error(.wrongDirection, at: pointer,
                       "\(JSONText.quoted(text)) is an \(direction.opposite.rawValue), but \"\(side)\" must be an \(direction.rawValue) (\(list(ports, direction, of: reference.app)))",
                       hint: "connections go from an output to an input; swap \"from\" and \"to\"?")
            return nil
        }
        sink.error(.unknownPort, at: pointer,
                   "app \(JSONText.quoted(reference.app)) has no \(direction.rawValue) \(JSONText.quoted(reference.port)) (\(list(ports, direction, of: nil)))",
                   hint: Suggestion.hint(for: reference.port, in: ports.map(\.name))
                       ?? (ports.isEmpty
                           ? "connect a different app, or choose a node type that has \(direction.rawValue)s"
                           : "use one of the \(direction.rawValue)s listed, or configure the app to have more (a mixer's \"inputs\")"))
        return nil
    }

    /// `inputs: in_1, in_2` or `it has no inputs`.
    static func list(_ ports: [PortSpec], _ direction: PortSpec.Direction, of app: String?) -> String {
        let owner = app.map { " of \(JSONText.quoted($0))" } ?? ""
        guard !ports.isEmpty else { return "it has no \(direction.rawValue)s" }
        return "\(direction.rawValue)s\(owner): " + ports.map(\.name).joined(separator: ", ")
    }

    /// A connection gain: a finite number ≥ 0, or a string such as `"-6dB"`; nil after reporting.
    static func gain(_ literal: ValueLiteral, at pointer: @autoclosure () -> String, _ sink: inout DiagnosticSink) -> Float? {
        let value: Float?
        switch literal {
        case .number(let number): value = Float(number)
        case .text(let text): value = ParameterValue.parse(text)
        }
        guard let value, value.isFinite, value >= 0 else {
            let written = switch literal {
            case .number(let number): Validator.text(number)
            case .text(let text): JSONText.quoted(text)
            }
            sink.error(.invalidGain, at: pointer(), "gain \(written) must be a finite number ≥ 0",
                       hint: "write a linear gain such as 0.5, or decibels such as \"-6dB\"")
            return nil
        }
        return value
    }
}

extension PortSpec.Direction {
    var opposite: PortSpec.Direction { self == .input ? .output : .input }
}
