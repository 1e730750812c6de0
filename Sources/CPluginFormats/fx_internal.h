// Shared between the LV2, LADSPA and common parts of the plugin-format host. Not public.
#ifndef IAA_FX_INTERNAL_H
#define IAA_FX_INTERNAL_H

#include "iaa_plugin_formats.h"
#include <ladspa.h>
#include <lilv/lilv.h>
#include <lv2/atom/forge.h>
#include <lv2/urid/urid.h>
#include <lv2/options/options.h>
#include <lv2/log/log.h>
#include <lv2/worker/worker.h>

enum { IAA_FX_LV2 = 0, IAA_FX_LADSPA = 1 };

/// How a port is connected, beyond what the engine sees.
typedef struct iaa_fx_port_extra {
    int is_atom;
    int is_input;
    int is_cv;
} iaa_fx_port_extra;

struct iaa_fx_plugin {
    int format;
    char *name;
    char *identifier;
    char *class_label;
    char *author;
    char *binary;           // the shared library the plugin's code is in (its real path when known)
    int is_instrument;
    int in_place_broken;
    int loads_default_state;
    int port_count;
    iaa_fx_port *ports;
    iaa_fx_port_extra *extra;
    const LilvPlugin *lv2;
    void *library;
    const LADSPA_Descriptor *ladspa;
};

/// The LV2 URIDs the host uses, mapped once.
typedef struct iaa_fx_urids {
    LV2_URID atom_Sequence, atom_Chunk, atom_Int, atom_Float, atom_Long, atom_Double, atom_Object, atom_Blank;
    LV2_URID midi_MidiEvent, time_Position, time_frame, time_speed, time_bpm, time_bar, time_barBeat,
        time_beat, time_beatsPerBar, time_beatUnit;
    LV2_URID bufsz_min, bufsz_max, bufsz_nominal, param_sampleRate;
} iaa_fx_urids;

/// The worker extension: requests from the plugin run on the host's worker thread.
typedef struct iaa_fx_worker iaa_fx_worker;

struct iaa_fx_instance {
    iaa_fx_plugin *plugin;
    LilvInstance *lv2;
    LADSPA_Handle ladspa;
    uint32_t maximum_frames;
    float *values;          // one per port (control inputs and outputs; unused for others)
    int *audio_inputs, audio_input_count;
    int *audio_outputs, audio_output_count;
    int *control_inputs, control_input_count;
    int midi_port;          // -1 when none
    int wants_time;
    void **port_buffers;    // for atom and CV ports: owned buffers
    size_t atom_capacity;
    float *in_place_copies; // audio_input_count * maximum_frames, when the plugin is in-place broken
    LV2_Atom_Forge forge;
    iaa_fx_transport last_transport;
    int sent_transport;
    // LV2 features and their data (stable addresses for the instance's life).
    LV2_Options_Option options[5];
    int32_t block_min, block_max;
    float sample_rate_option;
    iaa_fx_worker *worker;
};

iaa_fx_urids *iaa_fx_host_urids(void);
LV2_URID_Map *iaa_fx_host_map(void);
LV2_URID_Unmap *iaa_fx_host_unmap(void);
LV2_Log_Log *iaa_fx_host_log(void);
/// The installed LV2 world, loaded on first use (thread-safe).
LilvWorld *iaa_lv2_world(void);
/// Held around every use of the lilv world (not thread-safe); never on the audio thread.
void iaa_lv2_lock(void);
void iaa_lv2_unlock(void);

char *iaa_fx_strdup(const char *text);
void iaa_fx_error(char *error, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/// Create the plugin's instance (not yet activated); 0 with a message on failure.
int iaa_lv2_instantiate(iaa_fx_instance *instance, double sample_rate, char *error, size_t error_size);
int iaa_ladspa_instantiate(iaa_fx_instance *instance, double sample_rate, char *error, size_t error_size);

/// Restores the state:state of the plugin's own description (LV2 state:loadDefaultState).
void iaa_lv2_load_default_state(iaa_fx_instance *instance);

/// A worker whose schedule feature can be given to lilv_plugin_instantiate; it does nothing until started.
iaa_fx_worker *iaa_fx_worker_new(iaa_fx_instance *instance);
/// Starts the worker thread for the plugin instance `handle` with its worker interface.
void iaa_fx_worker_start(iaa_fx_worker *worker, const LV2_Worker_Interface *interface, LV2_Handle handle);
void iaa_fx_worker_free(iaa_fx_worker *worker);
/// Delivers finished work's responses to the plugin, on the audio thread before run.
void iaa_fx_worker_deliver(iaa_fx_worker *worker);
LV2_Worker_Schedule *iaa_fx_worker_schedule(iaa_fx_worker *worker);
/// Finishes the cycle (end_run).
void iaa_fx_worker_end_run(iaa_fx_worker *worker);

#endif
