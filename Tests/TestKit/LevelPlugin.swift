import Foundation

/// A C plugin whose output is the constant `LEVEL × level`, compiled where a test wants it: a
/// rebuild with another `LEVEL` changes the level heard, and the `level` parameter shows whether
/// values survive a reload.
public enum LevelPlugin {
    public static let source = """
        #include <stdlib.h>
        #include "iaa_plugin.h"
        #ifndef LEVEL_MAX
        #define LEVEL_MAX 1.0f
        #endif
        static void *c_create(const iaa_plugin_descriptor *d, double r, uint32_t f, char *e, size_t n) {
            (void)d; (void)r; (void)f; (void)e; (void)n;
            return calloc(1, 1);
        }
        static void c_process(void *instance, const iaa_process_context *c) {
            (void)instance;
            const iaa_ramp *level = &c->parameters[0];
            for (uint32_t f = 0; f < c->frames; f++) {
                float l = f < level->ramp_frames ? level->start + level->step * (float)f : level->end;
                c->outputs[0][f] = LEVEL * l;
            }
        }
        static void c_reset(void *instance) { (void)instance; }
        static void c_destroy(void *instance) { free(instance); }
        static const iaa_port ports[] = {{"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL}};
        static const iaa_parameter parameters[] = {{"level", "Level", 0.0f, LEVEL_MAX, 1.0f, IAA_UNIT_GENERIC, 0}};
        static const iaa_plugin_descriptor descriptor = {
            .id = "level", .name = "Level", .summary = "A constant level.",
            .component = {"aurg", "levl", "test", "Test: Level", 1},
            .ports = ports, .port_count = 1, .parameters = parameters, .parameter_count = 1,
            .create = c_create, .process = c_process, .reset = c_reset, .destroy = c_destroy,
        };
        static const iaa_plugin_descriptor *const descriptors[] = {&descriptor};
        static const iaa_plugin_list list = {IAA_PLUGIN_ABI_VERSION, 1, descriptors};
        IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
        """

    /// The reason `cc` gave for not building it.
    public struct BuildFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Compiles `liblevel.so` in `folder` with `LEVEL` = `level` (the source written there the
    /// first time), at the same path each time: the linker writes a new file, as a rebuild does.
    @discardableResult
    public static func build(in folder: URL, level: Double, levelMaximum: Double = 1) throws -> String {
        let source = folder.appendingPathComponent("level.c")
        if !FileManager.default.fileExists(atPath: source.path) {
            try Self.source.write(to: source, atomically: true, encoding: .utf8)
        }
        let library = folder.appendingPathComponent("liblevel.so").path
        let result = try runCommand("cc", ["-std=c99", "-O2", "-shared", "-fPIC", "-DLEVEL=\(level)f", "-DLEVEL_MAX=\(levelMaximum)f",
                                           "-I", Repository.path("Sources/IAAPluginABI/include"), "-o", library, source.path])
        guard result.status == 0 else { throw BuildFailed(description: "cc failed:\n\(result.stderr)") }
        return library
    }
}
