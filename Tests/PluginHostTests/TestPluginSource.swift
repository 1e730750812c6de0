/// The C source of a small plugin that each loading test breaks in exactly one place.
///
/// Unbroken it is an instrument-free effect: `out = in * gain + offset`, where `offset` arrives
/// through `set_parameter` (so the test sees that call), and a MIDI note-on adds note/1000 from
/// its frame on (so the test sees MIDI timing through the C ABI).
struct TestPluginSource {
    var abiVersion = "IAA_PLUGIN_ABI_VERSION"
    var id = "\"probe\""
    var componentType = "\"aurm\""
    var subtype = "\"prob\""
    var inputName = "\"in\""
    var gainRange = (min: "0.0f", max: "2.0f", default: "1.0f")
    var unit = "IAA_UNIT_LINEAR_GAIN"
    var exportsEntry = true
    /// A message makes `create` fail with it.
    var createFailure: String?
    /// Extra port table rows, e.g. a MIDI output.
    var extraPorts = ""
    /// The requested entitlements, as C string literals (`"\"microphone\""`, `NULL`): the table
    /// the descriptor points at, or NULL when empty. `entitlementCount` nil means the table's size.
    var entitlements: [String] = []
    var entitlementCount: String?
    /// Builds the plugin the way a version 1 plugin was built: its own copy of the version 1
    /// descriptor struct (which ends at user_data) and a list carrying 1u. Right after that
    /// descriptor in memory sit a bogus non-NULL pointer and count 7, where a version 2
    /// descriptor's entitlements would be, so an engine reading them from a v1 list fails.
    var version1 = false

    var text: String {
        let failure = createFailure.map { "snprintf(error, error_size, \"%s\", \"\($0)\"); return NULL;" } ?? ""
        let table = entitlements.isEmpty ? "" : "static const char *const entitlements[] = {\(entitlements.joined(separator: ", "))};"
        let tableName = entitlements.isEmpty ? "NULL" : "entitlements"
        let count = entitlementCount ?? String(entitlements.count)
        let descriptor = version1 ? """
            typedef struct v1_descriptor {
                const char *id, *name, *summary;
                iaa_component component;
                const iaa_port *ports;
                uint32_t port_count;
                const iaa_parameter *parameters;
                uint32_t parameter_count;
                void *(*create)(const struct iaa_plugin_descriptor *, double, uint32_t, char *, size_t);
                void (*process)(void *, const iaa_process_context *);
                void (*set_parameter)(void *, uint32_t, float);
                void (*reset)(void *);
                void (*destroy)(void *);
                const void *user_data;
            } v1_descriptor;
            static const struct { v1_descriptor descriptor; const void *bogus; uint32_t bogus_count; } v1 = {
                {
                    \(id), "Probe", "A test plugin.",
                    {\(componentType), \(subtype), "test", NULL, 1},
                    ports, sizeof ports / sizeof ports[0], parameters, 2,
                    probe_create, probe_process, probe_set_parameter, probe_reset, probe_destroy, NULL,
                },
                (const void *)0x1, 7,
            };
            static const iaa_plugin_descriptor *const descriptors[] = {(const iaa_plugin_descriptor *)&v1.descriptor};
            """ : """
            \(table)
            static const iaa_plugin_descriptor descriptor = {
                \(id), "Probe", "A test plugin.",
                {\(componentType), \(subtype), "test", NULL, 1},
                ports, sizeof ports / sizeof ports[0], parameters, 2,
                probe_create, probe_process, probe_set_parameter, probe_reset, probe_destroy, NULL,
                \(tableName), \(count),
            };
            static const iaa_plugin_descriptor *const descriptors[] = {&descriptor};
            """
        let entry = exportsEntry
            ? "IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }"
            : "const iaa_plugin_list *not_the_entry(void) { return &list; }"
        return """
            #include <stdio.h>
            #include <stdlib.h>
            #include "iaa_plugin.h"

            typedef struct probe { float offset; float note; } probe;

            static void *probe_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t error_size) {
                (void)d; (void)rate; (void)frames;
                \(failure)
                return calloc(1, sizeof(probe));
            }

            static void probe_process(void *instance, const iaa_process_context *c) {
                probe *self = instance;
                uint32_t next = 0;
                for (uint32_t f = 0; f < c->frames; f++) {
                    for (; next < c->midi_count && c->midi[next].frame <= f; next++) {
                        if ((c->midi[next].data[0] & 0xF0) == 0x90) self->note = c->midi[next].data[1] / 1000.0f;
                    }
                    const iaa_ramp *g = &c->parameters[0];
                    float gain = f < g->ramp_frames ? g->start + g->step * (float)f : g->end;
                    c->outputs[0][f] = c->inputs[0][f] * gain + self->offset + self->note;
                }
            }

            static void probe_set_parameter(void *instance, uint32_t index, float value) {
                if (index == 1) ((probe *)instance)->offset = value;
            }

            static void probe_reset(void *instance) { ((probe *)instance)->note = 0; }
            static void probe_destroy(void *instance) { free(instance); }

            static const iaa_port ports[] = {
                {\(inputName), "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL},
                {"midi_in", "MIDI In", IAA_PORT_INPUT, IAA_PORT_MIDI, NULL},
                {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},
                \(extraPorts)
            };
            static const iaa_parameter parameters[] = {
                {"gain", "Gain", \(gainRange.min), \(gainRange.max), \(gainRange.default), \(unit), 0},
                {"offset", "Offset", -1.0f, 1.0f, 0.0f, IAA_UNIT_GENERIC, 1},
            };
            \(descriptor)
            static const iaa_plugin_list list = {\(version1 ? "1u" : abiVersion), 1, descriptors};
            \(entry)

            """
    }
}
