import ArgumentParser
import ControlSocket
import AudioGraph
import Engine
import NodeKit

/// `iaa nodes GRAPH`: the node apps a host could connect, like an Inter-App Audio host's browser.
struct ListNodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nodes",
        abstract: "List the Inter-App Audio node apps of a graph, their components and whether each condition holds.")

    @Argument(help: "The graph file.", completion: .file(extensions: ["json"]))
    var graph: String

    @Option(help: "Only nodes of this component type: generator, instrument, effect or musicEffect.")
    var type: ComponentDescription.ComponentType?

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    func run() throws {
        let loaded = GraphLoading.load(graph)
        guard let graph = loaded.graph else {
            StandardError.write(GraphLoading.report(loaded), level: .error)
            throw ExitCode(1)
        }
        var rows: [ControlJSON] = []
        var lines: [String] = []
        for (index, app) in graph.apps.enumerated() where app.role == .node {
            if let type, app.component?.type != type { continue }
            let conditions = InterAppAudioRules.conditions(forNode: index, in: graph)
            let hosts = InterAppAudioRules.hosts(of: index, in: graph).map { graph.apps[$0].id }
            let component = app.component
            rows.append(.object([
                ("app", .string(app.id)),
                ("type", component.map { .string($0.type.rawValue) } ?? .null),
                ("codes", component.map { .string($0.codes) } ?? .null),
                ("name", component.map { .string($0.name) } ?? .null),
                ("hosts", .array(hosts.map(ControlJSON.string))),
                ("ready", .bool(conditions.allSatisfy(\.holds))),
                ("conditions", .object(conditions.map { ($0.name, ControlJSON.bool($0.holds)) })),
            ]))
            let marks = conditions.map { "\($0.holds ? "✓" : "✗") \($0.name)" }.joined(separator: "  ")
            let codes = component.map { "\($0.type.rawValue) \($0.codes) \"\($0.name)\"" } ?? "no component"
            let hosted = hosts.isEmpty ? "not connected" : "→ " + hosts.joined(separator: ", ")
            lines.append("\(app.id)  \(codes)  \(hosted)\n    \(marks)")
        }
        if json {
            print(ControlJSON.array(rows).text)
        } else {
            print(lines.isEmpty ? "no node apps" + (type.map { " of type \($0.rawValue)" } ?? "") : lines.joined(separator: "\n"))
        }
    }
}

extension ComponentDescription.ComponentType: ExpressibleByArgument {
    public init?(argument: String) {
        guard let type = Self(rawValue: argument) ?? Self(code: argument) else { return nil }
        self = type
    }
}
