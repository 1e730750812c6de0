import Foundation
import Testing
import TestKit

/// The configuration file ($XDG_CONFIG_HOME/iaa/config.json, or IAA_CONFIG) and `-v`/`-q`: the
/// file fills defaults the environment and the command line override, and a broken one says
/// where it is broken.
@Suite("Configuration file and verbosity", .serialized)
struct ConfigurationTests {
    final class Folder {
        let directory: TemporaryDirectory
        var path: String { directory.path }
        init() throws {
            directory = try TemporaryDirectory("config")
            try FileManager.default.createDirectory(atPath: path + "/iaa", withIntermediateDirectories: true)
        }

        /// Writes $XDG_CONFIG_HOME/iaa/config.json.
        func configure(_ text: String) throws {
            try text.write(toFile: path + "/iaa/config.json", atomically: true, encoding: .utf8)
        }
    }

    static func render(_ folder: Folder, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CommandResult {
        try IAACommand.run(["render", Repository.root + "/graphs/demo.json", "-o", folder.path + "/out.wav", "-d", "0.5s"] + extra,
                           environment: ["XDG_CONFIG_HOME": folder.path, "IAA_CONFIG": "", "IAA_LOG_LEVEL": ""].merging(environment) { $1 })
    }

    @Test("a broken configuration file stops the command with its place and the keys it takes")
    func brokenFileIsLocated() throws {
        let folder = try Folder()
        try folder.configure("{\n  \"server\": \"studio\",\n  \"serverr\": 1\n}\n")
        let result = try Self.render(folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("/iaa/config.json:1:1: error[config]: unknown key \"serverr\" (keys: server, client, pluginPath, logLevel)"),
                "\(result.stderr)")
        try folder.configure("{ \"logLevel\": \"loud\" }")
        #expect(try Self.render(folder).stderr.contains("\"logLevel\" is one of error, warning, info, debug, not \"loud\""))
        try folder.configure("{ \"server\": \"x\",, }")
        let syntax = try Self.render(folder)
        #expect(syntax.status == 1 && syntax.stderr.contains("config.json:1:17: error[config]: not valid JSON"), "\(syntax.stderr)")
    }

    @Test("logLevel warning hides progress and information; the environment overrides the file; -q and -v set it per command")
    func verbosity() throws {
        let folder = try Folder()
        let normal = try Self.render(folder)
        #expect(normal.status == 0 && normal.stderr.contains("render: 50%") && normal.stderr.contains("iaa: wrote"), "\(normal.stderr)")
        try folder.configure(#"{ "logLevel": "warning" }"#)
        let quiet = try Self.render(folder)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let overridden = try Self.render(folder, environment: ["IAA_LOG_LEVEL": "info"])
        #expect(overridden.stderr.contains("iaa: wrote"), "\(overridden.stderr)")
        try folder.configure("{}")
        #expect(try Self.render(folder, ["-q"]).stderr.isEmpty)
        let both = try Self.render(folder, ["-q", "-v"])
        #expect(both.status == 64 && both.stderr.contains("-v and -q contradict each other"), "\(both.stderr)")
    }

    @Test("pluginPath in the file finds a plugin named without a path; IAA_PLUGIN_PATH wins over it")
    func pluginPathFromTheFile() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path + "/plugins", withIntermediateDirectories: true)
        let build = try runCommand("/bin/sh", [Repository.path("Examples/Plugins/tremolo-c/build.sh"), folder.path + "/plugins"])
        try #require(build.status == 0, "the tremolo example did not build: \(build.output)")
        let graph = folder.path + "/graph.json"
        try """
            { "format": "iaa-graph/1", "name": "bare",
              "apps": [ { "id": "t", "plugin": "tremolo" } ],
              "jack": { "connections": [ { "from": "t:out", "to": "@playback" } ] } }
            """.write(toFile: graph, atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": folder.path, "IAA_CONFIG": "", "IAA_PLUGIN_PATH": ""]
        let without = try IAACommand.run(["validate", graph], environment: environment)
        #expect(without.status == 1 && without.stderr.contains("pluginNotFound"), "\(without.stderr)")
        try folder.configure(#"{ "pluginPath": ["\#(folder.path)/plugins"] }"#)
        let with = try IAACommand.run(["validate", graph], environment: environment)
        #expect(with.status == 0, "\(with.stderr)")
        let overridden = try IAACommand.run(["validate", graph], environment: environment.merging(["IAA_PLUGIN_PATH": "/nonexistent"]) { $1 })
        #expect(overridden.status == 1, "\(overridden.stderr)")
    }
}
