import AudioGraph
import GraphFormat
import AudioSession
import Foundation
import Nodes
import Testing
import TestKit

/// Grants files: what they allow bounds what graphs may grant, and only their owner may change them.
@Suite("Grants files")
struct GrantsFileTests {
    static let grantsText = """
        { "format": "iaa-grants/1",
          "apps": { "phone": ["priority-audio", "microphone"], "*": ["inter-app-audio"] } }
        """

    static let graphText = """
        { "format": "iaa-graph/1", "name": "g",
          "apps": [
            { "id": "phone", "plugin": "builtin:oscillator",
              "session": { "category": "playAndRecord" }, "entitlements": ["priority-audio", "microphone"] },
            { "id": "game", "plugin": "builtin:noise",
              "session": { "category": "ambient" }, "entitlements": ["inter-app-audio", "priority-audio"] }
          ] }
        """

    /// A private folder (0700) under the temporary folder, removed by the caller.
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("iaa-grants-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return path
    }

    func write(_ text: String, to path: String, mode: Int) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test("a grants file says which app may hold which entitlement; * applies to every app")
    func parses() throws {
        let grants = try #require(GrantsFile.load(text: Self.grantsText, file: "g.json").grants)
        #expect(grants.allows(.priorityAudio, app: "phone"))
        #expect(grants.allows(.interAppAudio, app: "phone"))
        #expect(grants.allows(.interAppAudio, app: "anyone"))
        #expect(!grants.allows(.priorityAudio, app: "game"))
        #expect(!grants.allows(.microphone, app: "game"))
    }

    @Test("a graph that grants more than the grants file allows is refused where it grants it")
    func boundsGraphs() throws {
        let grants = try #require(GrantsFile.load(text: Self.grantsText, file: "grants.json").grants)
        let refused = GraphFile.load(text: Self.graphText, file: "g.json", registry: NodeRegistry(BuiltinNodes.types), grants: grants)
        #expect(refused.graph == nil)
        let errors = refused.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        let error = try #require(errors.first)
        #expect(error.code == .missingEntitlement)
        #expect(error.pointer == "/apps/1/entitlements/1")
        #expect(error.line == 6)
        #expect(error.message == "the grants file grants.json does not allow app \"game\" the entitlement \"priority-audio\"")
        #expect(error.hint?.contains("it allows: inter-app-audio") == true)
        // Without a grants file the graph's author is the trust root, as before.
        #expect(GraphFile.load(text: Self.graphText, file: "g.json", registry: NodeRegistry(BuiltinNodes.types)).graph != nil)
        let wider = try #require(GrantsFile.load(text: """
            { "format": "iaa-grants/1", "apps": { "phone": ["priority-audio", "microphone"], "game": ["priority-audio"], "*": ["inter-app-audio"] } }
            """, file: "grants.json").grants)
        #expect(GraphFile.load(text: Self.graphText, file: "g.json", registry: NodeRegistry(BuiltinNodes.types), grants: wider).graph != nil)
    }

    @Test("a broken grants file is refused with located errors", arguments: [
        (#"{ "format": "iaa-grants/2", "apps": {} }"#, "/format", GraphErrorCode.unsupportedFormat),
        (#"{ "format": "iaa-grants/1", "apps": { "a": ["microfone"] } }"#, "/apps/a/0", .invalidValue),
        (#"{ "format": "iaa-grants/1", "apps": { "a": "microphone" } }"#, "/apps/a", .wrongType),
        (#"{ "format": "iaa-grants/1", "apps": { "a": [1] } }"#, "/apps/a/0", .wrongType),
        (#"{ "format": "iaa-grants/1" }"#, "/apps", .missingKey),
        (#"{ "format": "iaa-grants/1", "apps": {}, "extra": 1 }"#, "/extra", .unknownKey),
        (#"{ "format": "iaa-grants/1", "apps": {}, }"#, "", .syntax),
    ])
    func brokenFiles(text: String, pointer: String, code: GraphErrorCode) throws {
        let loaded = GrantsFile.load(text: text, file: "grants.json")
        #expect(loaded.grants == nil)
        let first = try #require(loaded.diagnostics.first { $0.severity == .error })
        #expect(first.code == code, "\(first.formatted)")
        if code != .syntax { #expect(first.pointer == pointer, "\(first.formatted)") }
        #expect(first.line == 1, "\(first.formatted)")
    }

    @Test("a grants file writable by group or others, or in a folder others may write, is refused (StrictModes)")
    func strictModes() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/grants.json"
        try write(Self.grantsText, to: path, mode: 0o644)
        #expect(GrantsFile.load(path: path).grants != nil, "\(GrantsFile.load(path: path).diagnostics.map(\.formatted))")

        for mode in [0o664, 0o646, 0o666] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let loaded = GrantsFile.load(path: path)
            #expect(loaded.grants == nil)
            let error = try #require(loaded.diagnostics.first)
            #expect(error.code == .insecureGrants)
            #expect(error.message.contains("has mode 0\(String(mode, radix: 8)): group or others may change"), "\(error.message)")
            #expect(error.hint == "chmod go-w \(path)")
        }

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        let openFolder = GrantsFile.load(path: path)
        #expect(openFolder.grants == nil)
        #expect(openFolder.diagnostics.first?.message.contains("the folder \(directory) has mode 0777") == true,
                "\(openFolder.diagnostics.map(\.formatted))")
        // A sticky world-writable folder (like /tmp) is fine: others cannot replace our entries there.
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: directory)
        #expect(GrantsFile.load(path: path).grants != nil)
    }

    @Test("a grants file owned by another user is refused", .enabled(if: geteuid() == 0, "only root can give a file away"))
    func otherOwner() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/grants.json"
        try write(Self.grantsText, to: path, mode: 0o644)
        #expect(chown(path, 65_534, 65_534) == 0)
        let loaded = GrantsFile.load(path: path)
        #expect(loaded.grants == nil)
        #expect(loaded.diagnostics.first?.code == .insecureGrants)
        #expect(loaded.diagnostics.first?.message.contains("owned by uid 65534") == true)
    }

    @Test("the example grants file loads, and the head-unit graph keeps within it")
    func example() throws {
        let path = Repository.path("graphs/headunit.grants.json")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let grants = try #require(GrantsFile.load(text: text, file: path).grants)
        #expect(grants.allows(.priorityAudio, app: "phone") && !grants.allows(.priorityAudio, app: "music"))
        let graph = GraphFile.load(path: Repository.path("graphs/headunit.json"), registry: NodeRegistry(BuiltinNodes.types), grants: grants)
        #expect(graph.graph != nil, "\(graph.diagnostics.map(\.formatted))")
    }

    @Test("a missing grants file is an io error naming it")
    func missing() {
        let loaded = GrantsFile.load(path: "/nonexistent/grants.json")
        #expect(loaded.grants == nil)
        #expect(loaded.diagnostics.first?.code == .io)
        #expect(loaded.diagnostics.first?.formatted.hasPrefix("/nonexistent/grants.json") == true)
    }
}
