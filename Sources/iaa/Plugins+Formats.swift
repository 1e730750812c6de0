import ArgumentParser
import Foundation
import NodeKit
import Engine
import PluginHost

/// `iaa plugins --lv2 / --ladspa` and `iaa plugins lv2:URI`: installed LV2 and LADSPA plugins.
extension Plugins {
    /// An installed plugin, as `--lv2`/`--ladspa` list it.
    struct Installed: Encodable {
        /// The value of a graph's `plugin` field.
        let plugin: String
        let format, name: String
        let `class`: String?
    }

    static func isFormatReference(_ argument: String) -> Bool {
        argument.hasPrefix("lv2:") || argument.hasPrefix("ladspa:")
    }

    /// One line per installed plugin: the graph's `plugin` value, then its name (and LV2 class).
    func listInstalled() throws {
        var entries: [FormatCatalog.Entry] = []
        if lv2 { entries += FormatCatalog.lv2() }
        if ladspa {
            entries += FormatCatalog.ladspa()
            for path in FormatCatalog.untrustedLADSPA() {
                Output.error("not read: \(path) lies outside the folders only root writes, and reading a LADSPA library runs its code (install it under /usr/local/lib/ladspa, or add its folder to IAA_TRUSTED_PATH)")
            }
        }
        let installed = entries.map {
            Installed(plugin: $0.reference, format: $0.format.rawValue, name: $0.title,
                      class: $0.classLabel.isEmpty ? nil : $0.classLabel)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(["plugins": installed]), as: UTF8.self))
            return
        }
        let width = min(installed.map(\.plugin.count).max() ?? 0, 60)
        for item in installed {
            let padded = item.plugin.padding(toLength: max(width, item.plugin.count), withPad: " ", startingAt: 0)
            print("\(padded)  \(item.name)" + (item.class.map { "  (\($0))" } ?? ""))
        }
    }

    /// Each named plugin in full: ports, parameters with ranges, defaults and units, and the
    /// labels of enumerated values. A name that does not resolve is an error (exit status 1).
    func show(_ references: [String]) throws {
        let resolver = PluginResolver(searchPath: [])
        var listings: [Listing] = []
        var failed = false
        for reference in references {
            switch resolver.resolve(reference, graphDirectory: ".") {
            case .success(let type): listings.append(Listing(type: type, source: reference))
            case .failure(let error):
                StandardError.write("iaa: \(error)")
                failed = true
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(Document(nodes: listings, errors: [])), as: UTF8.self))
        } else {
            print(listings.map(\.text).joined(separator: "\n"))
        }
        if failed { throw ExitCode(1) }
    }
}
