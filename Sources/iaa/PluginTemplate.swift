/// The files `iaa plugin new` writes: source, build.sh, graph.json, test.sh and a level check.
/// None holds an absolute path: the scripts ask `iaa plugin sdk` (the `iaa` on PATH, or
/// `$IAA_BIN`) where the SDK is, so the folder builds on any machine with iaa installed.
///
/// Each component type gets the smallest node that shows its shape: an effect and a music effect
/// apply a `gain` (the music effect also follows MIDI volume, CC 7), a generator plays a sine, an
/// instrument plays a sine for the last MIDI note held.
struct PluginTemplate {
    let name: String
    /// effect, generator, instrument or musicEffect.
    let type: String
    let swift: Bool

    /// `name` as a C identifier.
    var cName: String { name.replacingOccurrences(of: "-", with: "_") }
    /// `name` as a Swift type and module name: `my-fuzz` → `MyFuzz`.
    var typeName: String {
        name.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
    var library: String { "lib\(name).so" }
    var code: String {
        ["effect": "aurx", "generator": "aurg", "instrument": "auri", "musicEffect": "aurm"][type] ?? "aurx"
    }
    var subtype: String {
        let letters = name.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return String((letters + "xxxx").prefix(4))
    }
    var codes: String { "\(code)/\(subtype)/user" }
    var takesAudio: Bool { type == "effect" || type == "musicEffect" }
    var takesMIDI: Bool { type == "instrument" || type == "musicEffect" }
    var isSource: Bool { type == "generator" || type == "instrument" }

    /// Relative path → contents.
    var files: [(String, String)] {
        var result: [(String, String)] = [
            ("graph.json", graph), ("test.sh", testScript), ("tests/check.c", PluginTemplate.check),
            (".gitignore", ".build/\n*.so\n"),
        ]
        if swift {
            result += [("Package.swift", package), ("Sources/\(typeName)/\(typeName).swift", swiftSource),
                       ("Sources/\(typeName)/Export.swift", swiftExport), ("build.sh", swiftBuild)]
        } else {
            result += [("\(name).c", cSource), ("build.sh", cBuild)]
        }
        return result
    }

    /// What the test expects: the RMS of the node's output over one second.
    var expectedRMS: String {
        switch type {
        case "generator": return "0.35355"  // a sine of level 0.5
        case "instrument": return "0"       // no MIDI source in graph.json yet: silence
        default: return "0.17678"           // a 0.5 sine through gain 0.5
        }
    }

    var graph: String {
        let params = isSource ? (type == "generator" ? "{ \"frequency\": 440, \"level\": 0.5 }" : "{ \"level\": 0.5 }")
            : "{ \"gain\": 0.5 }"
        let tone = takesAudio
            ? "    { \"id\": \"tone\", \"plugin\": \"builtin:oscillator\", \"params\": { \"frequency\": 440, \"amplitude\": 0.5 } },\n" : ""
        let connection = takesAudio ? "    { \"from\": \"tone:out\", \"to\": \"\(name):in\" }\n" : ""
        return """
            {
              "format": "iaa-graph/1",
              "name": "\(name)-test",
              "apps": [
            \(tone)    { "id": "\(name)", "plugin": "\(library)", "params": \(params) }
              ],
              "connections": [
            \(connection)  ],
              "jack": { "connections": [ { "from": "\(name):out", "to": "@playback" } ] }
            }

            """
    }

    var testScript: String {
        """
        #!/bin/sh
        # Builds the plugin, renders graph.json offline through the engine and checks the level of
        # the node's output. IAA_BIN picks the iaa binary (default: iaa on PATH).
        set -eu
        here=$(cd "$(dirname "$0")" && pwd)
        iaa=${IAA_BIN:-iaa}
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        "$here/build.sh"
        cc -std=c99 -O2 -o "$work/check" "$here/tests/check.c" -lm
        "$iaa" render "$here/graph.json" -o "$work/out.wav" -d 1s --port \(name):out
        # Expected RMS of \(name):out: \(expectedRMS) (see graph.json).
        "$work/check" "$work/out.wav" \(expectedRMS)

        """
    }

    var cBuild: String {
        """
        #!/bin/sh
        # Builds \(library) next to graph.json, against the iaa_plugin.h of the iaa that
        # `iaa plugin sdk` names (IAA_BIN picks the binary, default iaa on PATH; IAA_SDK overrides).
        set -eu
        here=$(cd "$(dirname "$0")" && pwd)
        \(Self.locateSDK)
        cc -std=c99 -O2 -Wall -Wextra -shared -fPIC -I "$sdk/Sources/IAAPluginABI/include" \\
           -o "$here/\(library)" "$here/\(name).c" -lm
        echo "built $here/\(library)"

        """
    }

    var swiftBuild: String {
        """
        #!/bin/sh
        # Builds \(library) (release: the audio thread is only allocation- and retain-free there)
        # and copies it next to graph.json. Package.swift finds NodeKit at $IAA_SDK, which this
        # script takes from `iaa plugin sdk` (IAA_BIN picks the binary, default iaa on PATH).
        set -eu
        here=$(cd "$(dirname "$0")" && pwd)
        \(Self.locateSDK)
        IAA_SDK="$sdk" swift build -c release --package-path "$here" --scratch-path "$here/.build"
        cp "$here/.build/release/\(library)" "$here/\(library)"
        echo "built $here/\(library)"

        """
    }

    var package: String {
        """
        // swift-tools-version: 6.1
        import PackageDescription

        // A plugin node: a dynamic library that depends on NodeKit, from the iaa SDK that
        // `iaa plugin sdk` prints. ./build.sh sets IAA_SDK to it; for a plain `swift build`, run
        // `export IAA_SDK=$(iaa plugin sdk)` first.
        guard let sdk = Context.environment["IAA_SDK"] else {
            fatalError("set IAA_SDK to the folder `iaa plugin sdk` prints, or build with ./build.sh")
        }

        let package = Package(
            name: "\(name)",
            products: [.library(name: "\(name)", type: .dynamic, targets: ["\(typeName)"])],
            dependencies: [.package(name: "iaa", path: sdk)],
            targets: [.target(name: "\(typeName)", dependencies: [.product(name: "NodeKit", package: "iaa")])],
            swiftLanguageModes: [.v6]
        )

        """
    }

    /// The shell lines that set `sdk`: $IAA_SDK, else what `iaa plugin sdk` prints.
    static let locateSDK = #"""
        sdk=${IAA_SDK:-$("${IAA_BIN:-iaa}" plugin sdk)} || {
            echo "build.sh: cannot run \`${IAA_BIN:-iaa} plugin sdk\`: install iaa (tools/install in its checkout) and put it on PATH, or set IAA_BIN" >&2
            exit 1
        }
        """#

    var swiftExport: String {
        let make = "{ _, _ in \(typeName)() }"
        return """
            import NodeKit

            /// The node types this library exports, built once (on the first call to the entry).
            let plugin = PluginExport([.node(\(typeName).description) \(make)])

            /// The one symbol the engine looks up: the C list of descriptors.
            @_cdecl("iaa_plugin_entry")
            public func iaaPluginEntry() -> UnsafeRawPointer { plugin.entry }

            """
    }
}
