import Foundation
import Testing
import TestKit

/// The examples of README.md and the pages under docs/ work when copied: every JSON block validates
/// with the built `iaa` (a whole graph as is, an app alone inside a minimal graph, a grants file
/// with the head-unit graph, a configuration file, a timeline rendered over `graphs/demo.json`
/// beside the repository's graphs), and the plugin steps of docs/plugins.md's "Write your own
/// node" run as written, from the folders they say.
@Suite("The documentation's examples", .serialized)
struct ReadmeExampleTests {
    /// The pages whose JSON blocks are checked: all of them but docs/isolation.md, whose example
    /// names a plugin library (`./libtremolo.so`) that only exists once a reader has built one.
    static let checkedPages = Markdown.pages.filter { $0 != "docs/isolation.md" }

    /// The code blocks of `language` (`json` also takes `jsonc`), in order.
    static func blocks(_ languages: Set<String>, in text: String) -> [String] {
        Markdown.blocks(languages, in: text)
    }

    /// Whether a JSON block is a fragment of a file (members of an object, as docs/programs.md
    /// shows the `programs` block) rather than a whole value: it is shown, not copied alone.
    static func isFragment(_ json: String) -> Bool {
        json.drop { $0.isWhitespace }.first == "\""
    }

    /// The text without `//` comments (those outside strings), as a JSON reader wants it.
    static func strippingComments(_ text: String) -> String {
        var result = "", inString = false, escaped = false
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            if inString {
                result.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "/", characters.first == "/" {
                while let next = characters.first, next != "\n" { characters.removeFirst() }
            } else {
                if c == "\"" { inString = true }
                result.append(c)
            }
        }
        return result
    }

    /// What a block is, and the `iaa` arguments that check it (`validate`, or `render` for a timeline).
    static func validation(of block: String, in directory: String, index: Int) throws -> [String] {
        let json = strippingComments(block)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        let file = directory + "/example-\(index).json"
        switch object["format"] as? String {
        case "iaa-graph/1":
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            return ["validate", file]
        case "iaa-grants/1":
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            return ["validate", Repository.root + "/graphs/headunit.json", "--grants", file]
        case nil where !object.isEmpty && Set(object.keys).isSubset(of: ["server", "client", "pluginPath", "logLevel"]):
            // A configuration file: the demo graph validates with it in force.
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            return ["config", file]
        case nil where object["timeline"] != nil:
            // A timeline: it names graph files beside it, so it goes where copies of graphs/ are.
            for name in Repository.graphFiles(in: "graphs") {
                let copy = directory + "/" + (name as NSString).lastPathComponent
                if !FileManager.default.fileExists(atPath: copy) { try FileManager.default.copyItem(atPath: Repository.path(name), toPath: copy) }
            }
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            return ["render", directory + "/demo.json", "--timeline", file, "-d", "2", "-o", directory + "/timeline-\(index).wav"]
        default:
            // One app, as the audio-session and Inter-App Audio sections show them.
            let id = try #require(object["id"] as? String, "JSON block \(index) is neither a graph, a grants file nor an app:\n\(block)")
            // A program app's sound leaves at out_1 (docs/programs.md), a receiving link's too
            // (docs/links.md); a node's at out; a sending link and a session-only program have none.
            let link = object["link"] as? [String: Any], program = object["program"] as? [String: Any]
            let silent = link?["send"] != nil || (program?["outputs"] as? Int) == 0
            let output: String? = silent ? nil : program == nil && link == nil ? "out" : "out_1"
            let connections = output.map { #"{ "from": "\#(id):\#($0)", "to": "@playback" }"# } ?? ""
            let graph = """
                { "format": "iaa-graph/1", "name": "readme-\(index)", "apps": [\(json)],
                  "jack": { "connections": [\(connections)] } }
                """
            try graph.write(toFile: file, atomically: true, encoding: .utf8)
            return ["validate", file]
        }
    }

    @Test("every JSON example in README and docs/ validates when copied")
    func jsonExamplesValidate() throws {
        let examples = Self.checkedPages.flatMap { page in
            Self.blocks(["json", "jsonc"], in: Markdown.page(page)).map { (page: page, block: $0) }
        }.filter { !Self.isFragment(Self.strippingComments($0.block)) }
        #expect(examples.count >= 10, "README and docs/ have \(examples.count) whole JSON blocks")
        let directory = NSTemporaryDirectory() + "iaa-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: Repository.root + "/graphs/graph.schema.json",
                                         toPath: directory + "/graph.schema.json")
        for (index, (page, block)) in examples.enumerated() {
            var arguments = try Self.validation(of: block, in: directory, index: index)
            var environment: [String: String] = [:]
            if arguments.first == "config" {
                environment = ["IAA_CONFIG": arguments[1], "IAA_PLUGIN_PATH": "", "JACK_DEFAULT_SERVER": "", "IAA_LOG_LEVEL": ""]
                arguments = ["validate", Repository.root + "/graphs/demo.json"]
            }
            let result = try IAACommand.run(arguments, environment: environment)
            #expect(result.status == 0, "a JSON block of \(page) does not validate:\n\(block)\n\(result.stderr)")
        }
    }
}

extension ReadmeExampleTests {
    /// The shell blocks of docs/plugins.md's "Write your own node", steps 1 and 2, in order.
    static var pluginSteps: [String] {
        let steps = Markdown.section(from: "### 1. Install iaa, then scaffold", to: "### 3. Write the DSP",
                                     in: Markdown.page("docs/plugins.md"))
        return blocks(["sh"], in: steps)
    }

    @Test("docs/plugins.md's plugin steps work as written: install from the clone, scaffold, build, test and render from the plugin's folder")
    func pluginStepsAsWritten() throws {
        let steps = Self.pluginSteps
        try #require(steps.count == 3, "expected three shell blocks (install, scaffold, build and test), found \(steps.count)")
        // tools/install builds only a stale binary, and a build cannot run while `swift test` holds
        // the build folder: tools/test builds the release binary before the tests.
        try #require(try Repository.releaseProductsAreCurrent(), "\(Repository.staleReleaseProducts)")
        let directory = NSTemporaryDirectory() + "iaa-steps-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/work", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A fresh HOME, so the default prefix ~/.local is the test's own; IAA_BIN is unset so the
        // scripts use the installed iaa on PATH, as a user's would.
        let script = """
            set -eu
            export HOME="\(directory)/home"
            unset IAA_BIN IAA_SDK
            cd "\(Repository.root)"
            \(steps[0])
            cd "\(directory)/work"
            \(steps[1])
            \(steps[2])
            test -s out.wav
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        let log = directory + "/log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = process.standardOutput
        try process.run()
        let deadline = ContinuousClock.now + .seconds(240)
        while process.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.terminate()
            Issue.record("the plugin steps did not finish within 240 s")
        }
        process.waitUntilExit()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "the plugin steps failed:\n\(output)")
        #expect(output.contains("RMS 0.17678, expected 0.17678: ok"), "\(output)")
        // The installed binary scaffolded on its own, and nothing scaffolded names a path of this machine.
        let folder = directory + "/work/fuzz"
        for name in ["build.sh", "test.sh", "graph.json", "fuzz.c", "tests/check.c"] {
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
            #expect(!text.isEmpty, "\(name) is missing")
            #expect(!text.contains(directory) && !text.contains(Repository.root), "\(name) holds an absolute path:\n\(text)")
        }
        let installed = directory + "/home/.local"
        for file in ["bin/iaa", "include/iaa/iaa_plugin.h", "lib/pkgconfig/iaa-plugin.pc", "share/man/man1/iaa.1",
                     "share/bash-completion/completions/iaa", "share/iaa/sdk/Package.swift"] {
            #expect(FileManager.default.fileExists(atPath: installed + "/" + file), "\(file) was not installed")
        }
    }
}
