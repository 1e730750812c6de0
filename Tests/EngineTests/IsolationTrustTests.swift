@testable import Engine
import Foundation
import Isolation
import PluginHost
import TestKit
import NodeKit
import Testing

/// Which code `auto` keeps in the engine's process: built-in types, and plugin code whose file
/// lies in a folder only root writes — a native library, an LV2 binary or a LADSPA library alike.
@Suite("Isolation: what auto trusts")
struct IsolationTrustTests {
    static func type(binary: String?) -> NodeType {
        NodeType(id: "lv2:urn:test", displayName: "test", summary: "", binary: binary,
                 layout: { _ in NodeLayout(inputs: [], outputs: []) }, make: { _ in throw TestFailure() })
    }

    struct TestFailure: Error {}

    @Test("an installed LV2 plugin's binary is under /usr/lib and trusted; one under ~/.lv2 or LV2_PATH is isolated")
    func lv2ByItsBinary() throws {
        let policy = IsolationPolicy.fromEnvironment()
        let resolver = try #require(GraphLoading.registry.resolver)
        let amp = try resolver("lv2:http://plugin.org.uk/swh-plugins/amp", "/").get()
        let binary = try #require(amp.binary, "lilv named no binary for swh's amp")
        #expect(binary.hasPrefix("/usr/lib/"), "\(binary)")
        #expect(policy.trusts(amp))
        #expect(!policy.trusts(Self.type(binary: "/root/.lv2/evil.lv2/evil.so")))
        #expect(!policy.trusts(Self.type(binary: "/tmp/plugins/evil.lv2/evil.so")))
        #expect(policy.trusts(Self.type(binary: nil)), "code built into the engine")
    }

    @Test("a LADSPA library is judged by its path")
    func ladspaByItsPath() throws {
        let policy = IsolationPolicy.fromEnvironment()
        let resolver = try #require(GraphLoading.registry.resolver)
        let amp = try resolver("ladspa:amp_mono", "/").get()
        #expect(amp.binary?.hasPrefix("/usr/lib/ladspa/") == true, "\(String(describing: amp.binary))")
        #expect(policy.trusts(amp))
    }

    @Test("a trusted folder is trusted for who can write it: a library there that another user owns, or others may change, or in a folder others may write (0777), is isolated")
    func trustedByOwnershipToo() throws {
        let folder = try makeTemporaryDirectory("trusted")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/libplug.so"
        FileManager.default.createFile(atPath: library, contents: Data([0x7f]), attributes: [.posixPermissions: 0o644])
        let policy = IsolationPolicy(trustedFolders: [folder], settings: IsolationSettings(executable: "/bin/false", share: 0.5))
        #expect(policy.trusts(Self.type(binary: library)))
        #expect(chmod(folder, 0o777) == 0)
        #expect(!policy.trusts(Self.type(binary: library)))
        #expect(LibraryTrust.ownershipProblem(library)?.contains("mode 0777") == true)
        #expect(chmod(folder, 0o755) == 0)
        #expect(chmod(library, 0o666) == 0)
        #expect(!policy.trusts(Self.type(binary: library)))
        #expect(chmod(library, 0o644) == 0)
        #expect(chown(library, 65534, 65534) == 0)
        #expect(!policy.trusts(Self.type(binary: library)))
        #expect(LibraryTrust.ownershipProblem(library)?.contains("owned by uid 65534") == true)
    }
}
