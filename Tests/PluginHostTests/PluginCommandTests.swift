import Foundation
import Testing
import TestKit

/// `iaa plugins` and `iaa plugin new`, run through the built binary.
@Suite("iaa plugins and iaa plugin new", .serialized)
struct PluginCommandTests {
    func requireBinary() throws -> String {
        let binary = Repository.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary),
                     "no iaa binary at \(binary): run `swift build` first, or set IAA_BIN")
        return binary
    }

    @Test("iaa plugins --json lists built-in types and a plugin's ports, parameters and component")
    func listsPlugins() throws {
        let library = try ExamplePluginTests.tremolo.get()
        let result = try runCommand(try requireBinary(), ["plugins", "--json", library])
        #expect(result.status == 0, "\(result.output)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let nodes = try #require(document["nodes"] as? [[String: Any]])
        #expect(nodes.contains { $0["id"] as? String == "builtin:gain" })
        let tremolo = try #require(nodes.first { $0["id"] as? String == library })
        #expect((tremolo["component"] as? [String: Any])?["code"] as? String == "aurx")
        #expect((tremolo["ports"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["in", "out"])
        let rate = try #require((tremolo["parameters"] as? [[String: Any]])?.first)
        #expect(rate["name"] as? String == "rate" && rate["unit"] as? String == "hertz")
        #expect(abs((rate["min"] as? Double ?? 0) - 0.1) < 1e-6)
        #expect(rate["max"] as? Double == 20 && rate["default"] as? Double == 5)
    }

    @Test("iaa plugins shows the entitlements a plugin requests, in text and JSON")
    func listsRequestedEntitlements() throws {
        let binary = try requireBinary()
        let directory = try PluginEntitlementTests.build(PluginEntitlementTests.microphonePlugin, name: "libmic.so")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let library = directory + "/libmic.so"
        let text = try runCommand(binary, ["plugins", library])
        #expect(text.status == 0, "\(text.output)")
        #expect(text.output.contains("    requests entitlements: microphone (the graph must grant them)"), "\(text.output)")
        let json = try runCommand(binary, ["plugins", "--json", library])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let nodes = try #require(document["nodes"] as? [[String: Any]])
        #expect(nodes.first { $0["id"] as? String == library }?["requestedEntitlements"] as? [String] == ["microphone"])
        #expect(nodes.first { $0["id"] as? String == "builtin:gain" }?["requestedEntitlements"] as? [String] == [])
    }

    @Test("iaa plugins reports a library that does not load and exits 1")
    func reportsBrokenLibrary() throws {
        let result = try runCommand(try requireBinary(), ["plugins", "/nonexistent/libnone.so"])
        #expect(result.status == 1)
        #expect(result.output.contains("error[pluginNotFound]: /nonexistent/libnone.so does not exist"), "\(result.output)")
    }

    @Test("iaa plugin sdk, from a binary built in a checkout, prints the checkout's SDK/ package, and --cflags its header's folder")
    func sdkInCheckout() throws {
        let binary = try requireBinary()
        try #require(binary.hasPrefix(Repository.root + "/"), "IAA_BIN \(binary) is not built in this checkout")
        let sdk = try runCommand(binary, ["plugin", "sdk"], removing: ["IAA_SDK"])
        #expect(sdk.status == 0 && sdk.stdout == Repository.root + "/SDK\n", "\(sdk.output)")
        let manifest = (try? String(contentsOfFile: Repository.root + "/SDK/Package.swift", encoding: .utf8)) ?? ""
        #expect(manifest.contains("\"NodeKit\"") && !manifest.contains(".package("), "SDK/Package.swift depends on another package:\n\(manifest)")
        let flags = try runCommand(binary, ["plugin", "sdk", "--cflags"], removing: ["IAA_SDK"])
        #expect(flags.stdout == "-I\(Repository.root)/SDK/Sources/IAAPluginABI/include\n", "\(flags.output)")
        #expect(FileManager.default.fileExists(atPath: Repository.root + "/SDK/Sources/IAAPluginABI/include/iaa_plugin.h"))
    }

    /// The C scaffold builds against the SDK of the checkout the tested binary lives in (`iaa
    /// plugin sdk` finds it); the Swift one against the SDK as tools/install lays it out, which
    /// is what a user builds with.
    @Test("a scaffolded plugin builds and passes its own test script: C against the checkout's SDK/, Swift against the installed SDK",
          arguments: ["c", "swift"])
    func scaffold(_ language: String) throws {
        let binary = try requireBinary()
        let directory = try makeTemporaryDirectory("plugin-tests-scaffold")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ["IAA_BIN": binary, "TMPDIR": directory]
        if language == "swift" {
            // tools/test builds the release products first (a build cannot run while `swift test` holds .build).
            try #require(try Repository.releaseProductsAreCurrent(), "\(Repository.staleReleaseProducts)")
            let install = try runCommand(Repository.path("tools/install"), ["--prefix", directory + "/prefix", "--no-man"])
            try #require(install.status == 0, "\(install.output)")
            environment["IAA_SDK"] = directory + "/prefix/share/iaa/sdk"
        }
        let created = try runCommand(binary, ["plugin", "new", "my-fx", "--lang", language, "--output", directory])
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.contains("./test.sh"))
        let test = try PluginTestSupport.swiftBuildLock.withLock { _ in
            // SwiftPM leaves its lock files in TMPDIR: here they go with the folder.
            try runCommand(directory + "/my-fx/test.sh", [], environment: environment)
        }
        #expect(test.status == 0, "\(test.output)")
        #expect(test.output.contains("RMS 0.17678, expected 0.17678: ok"), "\(test.output)")
        if language == "swift" {
            // Nothing but the SDK was resolved: no checkout of another package.
            let checkouts = PluginTestSupport.checkedOut(scratch: directory + "/my-fx/.build")
            #expect(checkouts.isEmpty, "the plugin's build checked out \(checkouts)")
        }
    }
}
