import ArgumentParser
import Engine
import Foundation

/// `iaa plugin …`: commands for plugin authors.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Tools for writing plugin nodes.",
        subcommands: [PluginNew.self, PluginSDK.self])
}

/// `iaa plugin new NAME --lang swift|c`: a plugin folder that builds, tests and runs as is.
struct PluginNew: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a ready-to-build plugin node in a new folder.",
        discussion: """
            The folder holds the source, build.sh (builds libNAME.so), graph.json (hosts the node), \
            and test.sh, which builds the plugin, renders graph.json offline with `iaa render --port` \
            and checks the level of the node's output with a tiny C program.
            """)

    enum Language: String, ExpressibleByArgument, CaseIterable {
        case swift, c
    }

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case effect, generator, instrument, musicEffect
    }

    @Argument(help: "The node's name: letters, digits, '_' and '-', starting with a letter (e.g. fuzz).")
    var name: String

    @Option(help: "The language: swift or c.")
    var lang: Language

    @Option(help: "The component type: effect, generator, instrument or musicEffect.")
    var type: Kind = .effect

    @Option(name: .shortAndLong, help: "The folder to create the plugin folder in.", completion: .directory)
    var output = "."

    func validate() throws {
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
        guard let first = name.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first), allowed else {
            throw ValidationError("NAME \"\(name)\" must start with a letter and use only letters, digits, '_' and '-'")
        }
    }

    func run() throws {
        // The scaffold's scripts find the SDK through `iaa plugin sdk`; check now that they will.
        _ = try PluginSDK.locate()
        let folder = URL(fileURLWithPath: output).appendingPathComponent(name).standardizedFileURL
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            StandardError.write("iaa: \(folder.path) already exists; choose another NAME or --output", level: .error)
            throw ExitCode(1)
        }
        let template = PluginTemplate(name: name, type: type.rawValue, swift: lang == .swift)
        for (path, text) in template.files {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            if path.hasSuffix(".sh") {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
            }
        }
        let shown = output == "." ? name : folder.path
        print("""
            created \(shown): a \(lang == .swift ? "Swift" : "C") \(type.rawValue) (\(template.codes))
            next:
              cd \(shown)
              ./build.sh                 # builds \(template.library)
              ./test.sh                  # builds, renders graph.json offline and checks the output
              iaa render graph.json -o out.wav -d 5s
              iaa run graph.json         # hosts it in JACK; jack_lsp shows iaa:\(name).out
            """)
    }
}
