// LV2 (through lilv) and LADSPA plugins behind one small C interface, so the engine's Swift side
// only describes ports and passes buffers. Everything here is control side except
// iaa_fx_run, which is real-time safe: it connects ports, copies values and builds the MIDI
// atom sequence in buffers allocated by iaa_fx_instantiate.
#ifndef IAA_PLUGIN_FORMATS_H
#define IAA_PLUGIN_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What one plugin port is to the engine.
typedef enum iaa_fx_port_kind {
    IAA_FX_AUDIO_IN = 0,
    IAA_FX_AUDIO_OUT = 1,
    IAA_FX_CONTROL_IN = 2,
    IAA_FX_CONTROL_OUT = 3,
    /// An LV2 atom input that takes MIDI events.
    IAA_FX_MIDI_IN = 4,
    /// Any other port (CV, atom output, event ports): connected to a scratch buffer, unused.
    IAA_FX_OTHER = 5,
} iaa_fx_port_kind;

enum {
    IAA_FX_TOGGLED = 1,
    IAA_FX_INTEGER = 2,
    IAA_FX_ENUMERATION = 4,
    IAA_FX_LOGARITHMIC = 8,
    /// A sample-rate-relative LADSPA bound: the engine multiplies by the rate.
    IAA_FX_SAMPLE_RATE = 16,
    /// The LV2 atom input also supports time:Position.
    IAA_FX_TIME_POSITION = 32,
    /// A control output holding the plugin's latency in frames: LV2's `lv2:reportsLatency` (or
    /// the `lv2:latency` designation), LADSPA's output named "latency" by convention.
    IAA_FX_REPORTS_LATENCY = 64,
};

/// One port, described off the audio thread; strings live as long as the plugin description.
typedef struct iaa_fx_port {
    const char *symbol;
    const char *name;
    iaa_fx_port_kind kind;
    float minimum, maximum, default_value;
    int flags;
    /// The unit's symbol or label ("dB", "Hz", "ms"), or NULL.
    const char *unit;
    int scale_count;
    const float *scale_values;
    const char *const *scale_labels;
} iaa_fx_port;

/// A plugin's description (and, for LADSPA, its open library). Control side.
typedef struct iaa_fx_plugin iaa_fx_plugin;
/// One running instance with its preallocated buffers.
typedef struct iaa_fx_instance iaa_fx_instance;

/// A MIDI message at a frame of the cycle (the engine's MIDIEvent, same layout).
typedef struct iaa_fx_midi {
    int32_t frame;
    uint8_t size, status, data1, data2;
} iaa_fx_midi;

/// The host transport for time:Position (sent only when it changes).
typedef struct iaa_fx_transport {
    int playing;
    double tempo, beats_per_bar, beat, bar_beat;
    int64_t bar, frame;
    /// Where the next cycle starts when nothing jumps (frame + the cycle's frames while playing).
    int64_t next_frame;
} iaa_fx_transport;

/// Opens the LV2 plugin `uri`; on failure writes why to `error` and returns NULL.
iaa_fx_plugin *iaa_lv2_open(const char *uri, char *error, size_t error_size);
/// Opens the LADSPA plugin `label` of the library at `path` (label NULL: the only one).
iaa_fx_plugin *iaa_ladspa_open(const char *path, const char *label, char *error, size_t error_size);
void iaa_fx_plugin_free(iaa_fx_plugin *plugin);

const char *iaa_fx_plugin_name(const iaa_fx_plugin *plugin);
/// The LV2 URI, or "LIBRARY/LABEL" for LADSPA.
const char *iaa_fx_plugin_identifier(const iaa_fx_plugin *plugin);
/// The LV2 class label ("Instrument Plugin", "Delay Plugin"), or "" for LADSPA.
const char *iaa_fx_plugin_class(const iaa_fx_plugin *plugin);
/// 1 for LV2 instrument/generator classes so the engine can tell them from effects.
int iaa_fx_plugin_is_instrument(const iaa_fx_plugin *plugin);
const char *iaa_fx_plugin_author(const iaa_fx_plugin *plugin);
/// The shared library the plugin's code is in: an LV2 plugin's binary, a LADSPA library's path
/// ("" when lilv does not name one).
const char *iaa_fx_plugin_binary(const iaa_fx_plugin *plugin);
int iaa_fx_plugin_port_count(const iaa_fx_plugin *plugin);
const iaa_fx_port *iaa_fx_plugin_port(const iaa_fx_plugin *plugin, int index);

/// Every installed LV2 plugin URI and name, through `visit` (control side; the world is loaded once).
void iaa_lv2_each(void (*visit)(void *context, const char *uri, const char *name, const char *class_label), void *context);
/// Every plugin of a LADSPA library: label, unique id and name.
int iaa_ladspa_each(const char *path, void (*visit)(void *context, const char *label, unsigned long id, const char *name),
                    void *context);

/// Creates and activates an instance. Control side.
iaa_fx_instance *iaa_fx_instantiate(iaa_fx_plugin *plugin, double sample_rate, uint32_t maximum_frames,
                                    char *error, size_t error_size);
void iaa_fx_instance_free(iaa_fx_instance *instance);
/// Deactivates and activates again (clears delay lines where the plugin does so). Control side.
void iaa_fx_reset(iaa_fx_instance *instance);
/// The value storage of control port `port` (inputs are written by the engine, outputs by the plugin).
float *iaa_fx_control(iaa_fx_instance *instance, int port);

/// Runs one cycle. `inputs`/`outputs` hold one buffer per audio input/output port in port order;
/// `controls` one value per control input in port order; `transport` may be NULL (a later slice
/// of the same cycle). Real-time safe.
void iaa_fx_run(iaa_fx_instance *instance, uint32_t frames, const float *const *inputs, float *const *outputs,
                const float *controls, const iaa_fx_midi *midi, uint32_t midi_count, const iaa_fx_transport *transport);

/// 1 when the LV2 plugin keeps state beyond its ports (the LV2 state extension).
int iaa_fx_plugin_has_state(const iaa_fx_plugin *plugin);
/// The instance's state as Turtle (free it with iaa_fx_string_free), or NULL: with a message in
/// `error` when saving failed, with an empty `error` when there is nothing to keep. Control
/// side; may run while the audio thread runs the instance.
char *iaa_fx_state_save(iaa_fx_instance *instance, char *error, size_t error_size);
void iaa_fx_string_free(char *text);
/// 1 when `text` is a state snapshot of `plugin`; else 0 with a message.
int iaa_fx_state_check(const iaa_fx_plugin *plugin, const char *text, char *error, size_t error_size);
/// Restores a snapshot made by iaa_fx_state_save. Control side, before the instance first runs.
int iaa_fx_state_restore(iaa_fx_instance *instance, const char *text, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif
#endif
