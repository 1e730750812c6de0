/*
 * iaa_plugin.h: the one header an iaa plugin node compiles against (C99, no other dependency).
 *
 * A plugin is a shared library that exports one function, `iaa_plugin_entry`, returning a static
 * list of node descriptors. The engine loads it with dlopen on the control side, checks the list
 * (ABI version, every field of every descriptor), and creates instances as graphs need them.
 *
 *     #include "iaa_plugin.h"
 *     static const iaa_port ports[] = {
 *         { "in", "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL },
 *         { "out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL },
 *     };
 *     static const iaa_plugin_descriptor tremolo = { "tremolo", ..., create, process, NULL, reset, destroy, NULL,
 *                                                    NULL, 0 };   // no entitlements requested
 *     static const iaa_plugin_descriptor *const all[] = { &tremolo };
 *     static const iaa_plugin_list list = { IAA_PLUGIN_ABI_VERSION, 1, all };
 *     IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
 *
 * Threads: `create`, `reset` and `destroy` run on the control side and may allocate. `process`
 * and `set_parameter` run on the audio thread: they must not allocate (malloc, new), lock a
 * mutex, wait, do I/O or print. The engine never calls two functions of one instance at once.
 *
 * Compatibility: a change to any struct below bumps IAA_PLUGIN_ABI_VERSION. The engine loads
 * every version it knows (1, 2 and 3: version 2 added the descriptor's `entitlements` and
 * `entitlement_count`, and the engine never reads them from a version 1 list; version 3 added
 * the process context's `latency`, which a plugin built for 1 or 2 never reads), and refuses
 * any other version, naming the plugin's version and the ones it loads.
 */
#ifndef IAA_PLUGIN_H
#define IAA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this ABI. A plugin's list carries the version it was compiled with.
 *  Version 2 added `entitlements` and `entitlement_count` at the end of iaa_plugin_descriptor;
 *  version 3 added `latency` at the end of iaa_process_context. */
#define IAA_PLUGIN_ABI_VERSION 3u

/** Marks `iaa_plugin_entry` as exported even when built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define IAA_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define IAA_PLUGIN_EXPORT
#endif

/** The name of the one symbol a plugin library exports. */
#define IAA_PLUGIN_ENTRY_SYMBOL "iaa_plugin_entry"

/* ---- Ports ------------------------------------------------------------------------------- */

/** iaa_port.direction */
#define IAA_PORT_INPUT 0u
#define IAA_PORT_OUTPUT 1u

/** iaa_port.kind: a mono audio channel, or a MIDI input (MIDI outputs are not supported). */
#define IAA_PORT_AUDIO 0u
#define IAA_PORT_MIDI 1u

/** One port of a node. Audio inputs, audio outputs and MIDI inputs are numbered separately, in
 *  table order: the n-th audio input is `inputs[n]` in the process context. */
typedef struct iaa_port {
    /** The symbol in graph files and JACK port names: [A-Za-z0-9_-]+, unique within the node. */
    const char *name;
    /** What patchbays show (JACK pretty-name), e.g. "Input L"; NULL means `name`. */
    const char *display_name;
    /** IAA_PORT_INPUT or IAA_PORT_OUTPUT. */
    uint32_t direction;
    /** IAA_PORT_AUDIO or IAA_PORT_MIDI (MIDI only as an input). */
    uint32_t kind;
    /** Ports sharing a group belong together (a stereo pair: "main"); NULL for none. */
    const char *group;
} iaa_port;

/* ---- Parameters -------------------------------------------------------------------------- */

/** iaa_parameter.unit: how `iaa plugins` and control surfaces show a value. */
#define IAA_UNIT_GENERIC 0u
#define IAA_UNIT_HERTZ 1u
#define IAA_UNIT_LINEAR_GAIN 2u
#define IAA_UNIT_DECIBELS 3u
#define IAA_UNIT_SECONDS 4u
#define IAA_UNIT_MILLISECONDS 5u
#define IAA_UNIT_PERCENT 6u
#define IAA_UNIT_BOOLEAN 7u

/** A value that can change while the node runs (graph `params`, `iaa set`, timelines). */
typedef struct iaa_parameter {
    /** The symbol in graph files and commands: [A-Za-z0-9_-]+, unique within the node. */
    const char *name;
    /** A human name, e.g. "Rate"; NULL means `name`. */
    const char *display_name;
    /** The smallest and largest accepted value (finite, min <= max). */
    float min;
    float max;
    /** The value before anything sets it; min <= default_value <= max. */
    float default_value;
    /** One of IAA_UNIT_*. */
    uint32_t unit;
    /** Nonzero: the value jumps at the next cycle; zero: the engine ramps it (no clicks). */
    uint32_t discrete;
} iaa_parameter;

/* ---- Component --------------------------------------------------------------------------- */

/** What the node publishes as an Inter-App Audio component. Each code is four ASCII characters. */
typedef struct iaa_component {
    /** "aurg" generator (audio out only), "auri" instrument (MIDI in, audio out), "aurx" effect
     *  (audio in and out), "aurm" music effect (audio and MIDI in, audio out). The ports must
     *  match the type. */
    const char *type;
    /** Four ASCII characters naming this node within its manufacturer, e.g. "trem". */
    const char *subtype;
    /** Four ASCII characters naming the maker, e.g. "demo". */
    const char *manufacturer;
    /** The component's name, e.g. "Demo: Tremolo"; NULL means the descriptor's `name`. */
    const char *name;
    /** The component's version, e.g. 0x00010000 for 1.0.0. */
    uint32_t version;
} iaa_component;

/* ---- One cycle --------------------------------------------------------------------------- */

/** A parameter's value across one cycle, already smoothed by the engine: `start + step * frame`
 *  for frame < ramp_frames, then `end`. ramp_frames is 0 when the value is steady. */
typedef struct iaa_ramp {
    float start;
    float step;
    uint32_t ramp_frames;
    float end;
} iaa_ramp;

/** One MIDI message at an exact frame of the cycle. */
typedef struct iaa_midi_event {
    /** Offset from the first frame of the cycle (0 <= frame < frames). */
    uint32_t frame;
    /** Bytes used in `data` (1 to 3). */
    uint8_t size;
    /** Status byte, then up to two data bytes. */
    uint8_t data[3];
} iaa_midi_event;

/** The host's transport at the first frame of the cycle. */
typedef struct iaa_transport {
    /** Nonzero while the host plays / records. */
    uint32_t playing;
    uint32_t recording;
    /** Beats per minute. */
    double tempo;
    double beats_per_bar;
    /** Beats since the transport's start. */
    double beat;
    /** The bar (from 1) and the beat within it (from 0). */
    int32_t bar;
    double beat_in_bar;
    /** The transport's frame position. */
    int64_t sample_time;
} iaa_transport;

/** Everything `process` sees during one cycle. All pointers stay valid until `process` returns. */
typedef struct iaa_process_context {
    /** Frames in this cycle (1 ... max_frames given to create); every buffer holds this many. */
    uint32_t frames;
    /** The engine's sample rate in Hz (the one given to create). */
    double sample_rate;
    /** Frames rendered since the engine started, at the first frame of this cycle. */
    int64_t sample_time;
    /** One read-only buffer per audio input port, in table order. An unconnected input reads
     *  silence. An output buffer may be the same memory as an input buffer: read a frame's input
     *  before writing that frame's output. */
    const float *const *inputs;
    uint32_t input_count;
    /** One buffer per audio output port, in table order; write every frame of every one. */
    float *const *outputs;
    uint32_t output_count;
    /** One smoothed ramp per parameter, in table order. */
    const iaa_ramp *parameters;
    uint32_t parameter_count;
    /** This cycle's MIDI messages for the node's MIDI inputs, merged, in frame order. */
    const iaa_midi_event *midi;
    uint32_t midi_count;
    /** The host's transport (never NULL). */
    const iaa_transport *transport;
    /** ABI 2. Asks the host to play, stop or toggle recording (IAA_TRANSPORT_*), as an
     *  Inter-App Audio node's transport controls do; the engine acts after the cycle. Safe on
     *  the audio thread. Call it as `c->request_transport(c->host, IAA_TRANSPORT_PLAY)`. */
    void (*request_transport)(void *host, uint32_t request);
    void *host;
    /** ABI 3. Where a node whose output lags its input (a lookahead, a block transform) writes
     *  that lag in frames, as an LV2 plugin writes its `reportsLatency` port: `*c->latency = 64;`.
     *  The engine reports it to JACK and delays the graph's other paths to meet it. Write it in
     *  every cycle, or whenever it changes; a node that never writes it has no latency. Never
     *  NULL for a version 3 plugin. */
    uint32_t *latency;
} iaa_process_context;

/** Requests for iaa_process_context.request_transport. */
#define IAA_TRANSPORT_PLAY 1u
#define IAA_TRANSPORT_STOP 2u
#define IAA_TRANSPORT_TOGGLE_RECORD 3u

/* ---- The descriptor ---------------------------------------------------------------------- */

/** One node type a plugin offers. Lives as long as the library (make it static). */
typedef struct iaa_plugin_descriptor {
    /** Unique within the library: [A-Za-z0-9_.-]+. A graph names it as "lib.so#id" when the
     *  library holds more than one descriptor. */
    const char *id;
    /** A human name, e.g. "Tremolo". */
    const char *name;
    /** One sentence for `iaa plugins`; may be NULL. */
    const char *summary;
    iaa_component component;
    /** The static port table (port_count entries). */
    const iaa_port *ports;
    uint32_t port_count;
    /** The static parameter table (parameter_count entries); may be NULL when the count is 0. */
    const iaa_parameter *parameters;
    uint32_t parameter_count;

    /** Control side. Creates an instance for `sample_rate` and cycles of at most `max_frames`
     *  frames; allocate everything process needs here. On failure return NULL and write a
     *  NUL-terminated reason of at most error_size bytes into `error` (the engine shows it). */
    void *(*create)(const struct iaa_plugin_descriptor *descriptor, double sample_rate,
                    uint32_t max_frames, char *error, size_t error_size);
    /** Audio thread. Renders one cycle. No malloc, no locks, no I/O, no waiting. */
    void (*process)(void *instance, const iaa_process_context *context);
    /** Audio thread, optional (NULL): called just before `process` with each parameter's new
     *  target (its ramp's `end`) on the first cycle and whenever it changes, for nodes that
     *  compute coefficients per change. Same rules as `process`. */
    void (*set_parameter)(void *instance, uint32_t index, float value);
    /** Control side. Returns the instance to its initial state (phases, delay lines). */
    void (*reset)(void *instance);
    /** Control side. Frees the instance; called once, never while `process` runs. */
    void (*destroy)(void *instance);
    /** Free for the plugin's own use (the Swift export helper keeps its node factory here). */
    const void *user_data;

    /* Added in ABI version 2 (a version 1 descriptor ends at user_data). */

    /** The entitlements the node needs, by the names graph files use: "inter-app-audio",
     *  "priority-audio", "microphone"; each at most once. This is a request, not a grant: a graph
     *  that uses the node loads only when it grants every one of them to the app holding the
     *  node (`"entitlements": ["microphone"]`), otherwise it fails with missingEntitlement. May be
     *  NULL when entitlement_count is 0. */
    const char *const *entitlements;
    uint32_t entitlement_count;
} iaa_plugin_descriptor;

/** What `iaa_plugin_entry` returns. Lives as long as the library (make it static). */
typedef struct iaa_plugin_list {
    /** IAA_PLUGIN_ABI_VERSION as the plugin was compiled. Always the first field. */
    uint32_t abi_version;
    /** Entries in `descriptors`. */
    uint32_t count;
    const iaa_plugin_descriptor *const *descriptors;
} iaa_plugin_list;

/** The type of the entry symbol. Called on the control side, possibly more than once: return
 *  the same list every time. */
typedef const iaa_plugin_list *(*iaa_plugin_entry_function)(void);

/** The ABI version the engine itself was built with (for diagnostics). */
extern const unsigned iaa_engine_plugin_abi_version;

#ifdef __cplusplus
}
#endif

#endif /* IAA_PLUGIN_H */
