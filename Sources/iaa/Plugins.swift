import ArgumentParser
import Engine
import Foundation
import NodeKit
import PluginHost

/// `iaa plugins [PATH…] [--json]`: every node type a graph can name, like lv2ls.
struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List node types: the built-in ones and plugins at PATHs and on IAA_PLUGIN_PATH.",
        discussion: """
            A PATH is a plugin library or a folder whose *.so files are listed. Each type shows the \
            value a graph's "plugin" field takes, its component codes, ports and parameters. A library \
            that does not load is reported on stderr with the reason, and the exit status is 1. \
            --lv2 and --ladspa list the installed LV2 and LADSPA plugins, one line each; \
            `iaa plugins lv2:URI` or `iaa plugins ladspa:LABEL` shows one in full.
            """)

    @Argument(help: "Plugin libraries or folders of them, or installed plugins to show in full (lv2:URI, ladspa:LABEL).",
              completion: .file(extensions: ["so"]))
    var paths: [String] = []

    @Flag(help: "List the installed LV2 plugins (the value to write after lv2: is the URI).")
    var lv2 = false

    @Flag(help: "List the installed LADSPA plugins (LADSPA_PATH, /usr/local/lib/ladspa, /usr/lib/ladspa, /usr/lib/x86_64-linux-gnu/ladspa).")
    var ladspa = false

    @Flag(help: "Print one JSON document on stdout.")
    var json = false

    func run() throws {
        if lv2 || ladspa { return try listInstalled() }
        let named = paths.filter(Self.isFormatReference)
        if !named.isEmpty { return try show(named) }
        let registry = GraphLoading.registry
        var listings = registry.ids.compactMap { registry[$0] }.map { Listing(type: $0, source: "builtin") }
        var failures: [PluginScan.Entry] = []
        // An untrusted library is described by a sandboxed child, as when a graph names it.
        let resolver = GraphLoading.resolver
        for entry in PluginScan.scan(paths + resolver.searchPath, resolver: resolver) {
            switch entry.result {
            case .success(let library):
                let ids = library.descriptorIDs
                for descriptor in ids {
                    let id = ids.count > 1 ? "\(library.path)#\(descriptor)" : library.path
                    if let type = library.nodeType(descriptor, id: id) { listings.append(Listing(type: type, source: library.path)) }
                }
            case .failure:
                failures.append(entry)
            }
        }
        if json {
            let document = Document(nodes: listings, errors: failures.compactMap(Document.Failure.init))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
        } else {
            print(listings.map(\.text).joined(separator: "\n"))
            for entry in failures {
                if case .failure(let error) = entry.result { StandardError.write("iaa: \(error)", level: .error) }
            }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

extension Plugins {
    /// `--json`: `{"nodes": [...], "errors": [...]}`.
    struct Document: Encodable {
        let nodes: [Listing]
        let errors: [Failure]

        struct Failure: Encodable {
            let path, code, message: String
            let hint: String?

            init?(_ entry: PluginScan.Entry) {
                guard case .failure(let error) = entry.result else { return nil }
                path = entry.path
                code = error.code.rawValue
                message = error.message
                hint = error.hint
            }
        }
    }

    /// One node type as listed.
    struct Listing: Encodable {
        struct Component: Encodable {
            let type, code, subtype, manufacturer, name: String
            let version: Int
        }
        struct Port: Encodable {
            let name, displayName, direction, kind: String
            let group: String?
        }
        struct Parameter: Encodable {
            let name, displayName, unit: String
            let min, max, `default`: Float
            let discrete: Bool
        }
        struct Setting: Encodable {
            let name, displayName: String
            let min, max, `default`: Int
        }

        /// The value of a graph's `plugin` field.
        let id: String
        let name, summary, source: String
        let component: Component?
        let ports: [Port]
        let parameters: [Parameter]
        let configuration: [Setting]
        /// The entitlements the type requests; a graph must grant them to the app holding it.
        let requestedEntitlements: [String]

        init(type: NodeType, source: String) {
            id = type.id
            name = type.displayName
            summary = type.summary
            self.source = source
            component = type.component.map {
                Component(type: $0.type.rawValue, code: $0.type.code, subtype: $0.subtype,
                          manufacturer: $0.manufacturer, name: $0.name, version: $0.version)
            }
            // Ports of the default configuration (a mixer's count depends on its setup).
            let layout = type.layout(NodeConfiguration())
            func listed(_ specs: [PortSpec], _ kind: String) -> [Port] {
                specs.map { Port(name: $0.name, displayName: $0.displayName, direction: $0.direction.rawValue, kind: kind, group: $0.group) }
            }
            ports = listed(layout.inputs, "audio") + listed(layout.midiInputs, "midi") + listed(layout.outputs, "audio")
            parameters = type.parameters.map {
                Parameter(name: $0.name, displayName: $0.displayName, unit: $0.unit.rawValue, min: $0.range.lowerBound,
                          max: $0.range.upperBound, default: $0.defaultValue, discrete: $0.isDiscrete)
            }
            configuration = type.configuration.map {
                Setting(name: $0.name, displayName: $0.displayName, min: $0.range.lowerBound, max: $0.range.upperBound,
                        default: $0.defaultValue)
            }
            requestedEntitlements = type.requestedEntitlements
        }

        /// Several lines: the id, then ports, parameters and setup values, indented.
        var text: String {
            var lines = ["\(id)  \(name)" + (component.map { " [\($0.code)/\($0.subtype)/\($0.manufacturer)]" } ?? "")]
            if !summary.isEmpty { lines.append("    \(summary)") }
            let portList = ports.map { "\($0.name) (\($0.kind) \($0.direction == "input" ? "in" : "out"))" }
            lines.append("    ports: " + (portList.isEmpty ? "none" : portList.joined(separator: ", ")))
            for parameter in parameters {
                let unit = parameter.unit == "generic" ? "" : " \(parameter.unit)"
                lines.append("    param \(parameter.name): \(Self.number(parameter.min))…\(Self.number(parameter.max))\(unit), default \(Self.number(parameter.default))" + (parameter.discrete ? ", discrete" : ""))
            }
            for setting in configuration {
                lines.append("    setup \(setting.name): \(setting.min)…\(setting.max), default \(setting.default)")
            }
            if !requestedEntitlements.isEmpty {
                lines.append("    requests entitlements: " + requestedEntitlements.joined(separator: ", ")
                             + " (the graph must grant them)")
            }
            return lines.joined(separator: "\n")
        }

        static func number(_ value: Float) -> String {
            value == value.rounded() && abs(value) < 1e7 ? String(Int(value)) : String(value)
        }
    }
}
