import Foundation
import Testing
import TestKit

/// A LADSPA library is opened to be read, and opening it runs its constructors: iaa reads only
/// those in folders it trusts. One on `LADSPA_PATH` elsewhere is refused, by name, unread.
@Suite("LADSPA libraries outside the trusted folders")
struct UntrustedLADSPATests {
    /// One LADSPA plugin (`marker_amp`) whose library constructor leaves a file at `MARKER`.
    static let source = #"""
        #include <ladspa.h>
        #include <stdio.h>
        #include <stdlib.h>
        __attribute__((constructor)) static void opened(void) {
            const char *marker = getenv("MARKER");
            FILE *file = marker ? fopen(marker, "w") : NULL;
            if (file) fclose(file);
        }
        static LADSPA_Handle make(const LADSPA_Descriptor *d, unsigned long rate) { (void)d; (void)rate; return calloc(1, 1); }
        static void connect(LADSPA_Handle h, unsigned long port, LADSPA_Data *data) { (void)h; (void)port; (void)data; }
        static void run(LADSPA_Handle h, unsigned long frames) { (void)h; (void)frames; }
        static void cleanup(LADSPA_Handle h) { free(h); }
        static const LADSPA_PortDescriptor kinds[] = { LADSPA_PORT_INPUT | LADSPA_PORT_AUDIO, LADSPA_PORT_OUTPUT | LADSPA_PORT_AUDIO };
        static const char *const names[] = { "In", "Out" };
        static const LADSPA_PortRangeHint hints[] = { {0, 0, 0}, {0, 0, 0} };
        static const LADSPA_Descriptor descriptor = {
            9901, "marker_amp", LADSPA_PROPERTY_HARD_RT_CAPABLE, "Marker amp", "iaa tests", "None", 2, kinds, names, hints,
            NULL, make, connect, NULL, run, NULL, NULL, NULL, cleanup };
        const LADSPA_Descriptor *ladspa_descriptor(unsigned long index) { return index == 0 ? &descriptor : NULL; }
        """#

    @Test("validate and plugins --ladspa leave a library on LADSPA_PATH unopened and say why; trusted, it is read")
    func untrustedLibraryUnread() throws {
        let folder = try makeTemporaryDirectory("ladspa")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/marker.c", library = folder + "/marker.so", marker = folder + "/opened"
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let build = try runCommand("cc", ["-shared", "-fPIC", "-O2", "-o", library, source])
        try #require(build.status == 0, "cc: \(build.stderr)")
        let graph = folder + "/g.json"
        try #"{ "format": "iaa-graph/1", "name": "g", "apps": [ { "id": "amp", "plugin": "ladspa:marker_amp" } ] }"#
            .write(toFile: graph, atomically: true, encoding: .utf8)
        let environment = ["LADSPA_PATH": folder, "MARKER": marker]

        // By label: iaa cannot know the library holds it without reading it, and says which it did not read.
        let validated = try runCommand(Repository.binary, ["validate", graph], environment: environment, removing: ["IAA_TRUSTED_PATH"])
        #expect(validated.status == 1)
        #expect(validated.stderr.contains("not read, being outside the trusted folders: \(library)"), "\(validated.stderr)")
        // By path: refused, saying why and what would fix it.
        let byPath = folder + "/p.json"
        try #"{ "format": "iaa-graph/1", "name": "g", "apps": [ { "id": "amp", "plugin": "ladspa:\#(library)/marker_amp" } ] }"#
            .write(toFile: byPath, atomically: true, encoding: .utf8)
        let refused = try runCommand(Repository.binary, ["validate", byPath], environment: environment, removing: ["IAA_TRUSTED_PATH"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(library) lies outside the folders only root writes"), "\(refused.stderr)")
        #expect(refused.stderr.contains("IAA_TRUSTED_PATH"), "\(refused.stderr)")
        let listed = try runCommand(Repository.binary, ["plugins", "--ladspa"], environment: environment, removing: ["IAA_TRUSTED_PATH"])
        #expect(listed.stderr.contains("not read: \(library)"), "\(listed.stderr)")
        #expect(!listed.stdout.contains("marker_amp"))
        #expect(!FileManager.default.fileExists(atPath: marker), "the untrusted library's constructor ran in iaa")

        // Trusted by the user, it is read (which is how the marker could have appeared).
        let trusted = try runCommand(Repository.binary, ["validate", graph], environment: environment.merging(["IAA_TRUSTED_PATH": folder]) { $1 })
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
