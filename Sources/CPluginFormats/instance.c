// What LV2 and LADSPA instances have in common: buffers allocated at creation, and one
// real-time safe run() that connects the engine's buffers, copies control values, writes
// the MIDI and time:Position events into the atom input, and calls the plugin.
#include "fx_internal.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

const char *iaa_fx_plugin_name(const iaa_fx_plugin *plugin) { return plugin->name; }
const char *iaa_fx_plugin_identifier(const iaa_fx_plugin *plugin) { return plugin->identifier; }
const char *iaa_fx_plugin_class(const iaa_fx_plugin *plugin) { return plugin->class_label; }
const char *iaa_fx_plugin_author(const iaa_fx_plugin *plugin) { return plugin->author; }
const char *iaa_fx_plugin_binary(const iaa_fx_plugin *plugin) { return plugin->binary; }
int iaa_fx_plugin_is_instrument(const iaa_fx_plugin *plugin) { return plugin->is_instrument; }
int iaa_fx_plugin_port_count(const iaa_fx_plugin *plugin) { return plugin->port_count; }
const iaa_fx_port *iaa_fx_plugin_port(const iaa_fx_plugin *plugin, int index) { return &plugin->ports[index]; }

void iaa_fx_plugin_free(iaa_fx_plugin *plugin) {
    if (!plugin) return;
    for (int index = 0; index < plugin->port_count; index++) {
        iaa_fx_port *port = &plugin->ports[index];
        free((void *)port->symbol);
        free((void *)port->name);
        free((void *)port->unit);
        for (int point = 0; point < port->scale_count; point++) free((void *)port->scale_labels[point]);
        free((void *)port->scale_labels);
        free((void *)port->scale_values);
    }
    free(plugin->ports);
    free(plugin->extra);
    free(plugin->name);
    free(plugin->identifier);
    free(plugin->class_label);
    free(plugin->author);
    free(plugin->binary);
    if (plugin->library) dlclose(plugin->library);
    // The LilvPlugin belongs to the world, which lives as long as the process.
    free(plugin);
}

static void connect(iaa_fx_instance *instance, int port, void *buffer) {
    if (instance->lv2) {
        lilv_instance_connect_port(instance->lv2, (uint32_t)port, buffer);
    } else {
        instance->plugin->ladspa->connect_port(instance->ladspa, (unsigned long)port, buffer);
    }
}

iaa_fx_instance *iaa_fx_instantiate(iaa_fx_plugin *plugin, double sample_rate, uint32_t maximum_frames, char *error,
                                    size_t error_size) {
    iaa_fx_instance *instance = calloc(1, sizeof *instance);
    int count = plugin->port_count;
    instance->plugin = plugin;
    instance->maximum_frames = maximum_frames;
    instance->midi_port = -1;
    instance->values = calloc((size_t)count + 1, sizeof(float));
    instance->audio_inputs = calloc((size_t)count + 1, sizeof(int));
    instance->audio_outputs = calloc((size_t)count + 1, sizeof(int));
    instance->control_inputs = calloc((size_t)count + 1, sizeof(int));
    instance->port_buffers = calloc((size_t)count + 1, sizeof(void *));
    // Room for a full cycle of MIDI (the engine passes at most 1024 events) plus a time:Position.
    instance->atom_capacity = 1024 * 32 + 4096;
    for (int index = 0; index < count; index++) {
        const iaa_fx_port *port = &plugin->ports[index];
        switch (port->kind) {
        case IAA_FX_AUDIO_IN: instance->audio_inputs[instance->audio_input_count++] = index; break;
        case IAA_FX_AUDIO_OUT: instance->audio_outputs[instance->audio_output_count++] = index; break;
        case IAA_FX_CONTROL_IN:
            instance->control_inputs[instance->control_input_count++] = index;
            instance->values[index] = port->default_value;
            break;
        case IAA_FX_CONTROL_OUT: break;
        case IAA_FX_MIDI_IN:
        case IAA_FX_OTHER:
            if (plugin->extra[index].is_atom) {
                instance->port_buffers[index] = calloc(1, instance->atom_capacity);
                if (port->kind == IAA_FX_MIDI_IN && instance->midi_port < 0) {
                    instance->midi_port = index;
                    instance->wants_time = (port->flags & IAA_FX_TIME_POSITION) != 0;
                }
            } else {
                // CV and unknown ports read (or write) a silent buffer of a full cycle.
                instance->port_buffers[index] = calloc(maximum_frames, sizeof(float));
            }
            break;
        }
    }
    if (plugin->in_place_broken && instance->audio_input_count > 0) {
        instance->in_place_copies = calloc((size_t)instance->audio_input_count * maximum_frames, sizeof(float));
    }
    int created = plugin->format == IAA_FX_LV2 ? iaa_lv2_instantiate(instance, sample_rate, error, error_size)
                                               : iaa_ladspa_instantiate(instance, sample_rate, error, error_size);
    if (!created) {
        iaa_fx_instance_free(instance);
        return NULL;
    }
    for (int index = 0; index < count; index++) {
        iaa_fx_port_kind kind = plugin->ports[index].kind;
        if (kind == IAA_FX_CONTROL_IN || kind == IAA_FX_CONTROL_OUT) connect(instance, index, &instance->values[index]);
        else if (instance->port_buffers[index]) connect(instance, index, instance->port_buffers[index]);
    }
    // Activated only now: some plugins read control values (a delay's maximum) in activate().
    if (instance->lv2) {
        lilv_instance_activate(instance->lv2);
    } else if (plugin->ladspa->activate) {
        plugin->ladspa->activate(instance->ladspa);
    }
    return instance;
}

void iaa_fx_instance_free(iaa_fx_instance *instance) {
    if (!instance) return;
    if (instance->lv2) {
        lilv_instance_deactivate(instance->lv2);
        // The worker calls into the instance: stop it first.
        iaa_fx_worker_free(instance->worker);
        instance->worker = NULL;
        iaa_lv2_lock();
        lilv_instance_free(instance->lv2);
        iaa_lv2_unlock();
    }
    iaa_fx_worker_free(instance->worker);
    if (instance->ladspa) {
        const LADSPA_Descriptor *d = instance->plugin->ladspa;
        if (d->deactivate) d->deactivate(instance->ladspa);
        d->cleanup(instance->ladspa);
    }
    for (int index = 0; index < instance->plugin->port_count; index++) free(instance->port_buffers[index]);
    free(instance->port_buffers);
    free(instance->values);
    free(instance->audio_inputs);
    free(instance->audio_outputs);
    free(instance->control_inputs);
    free(instance->in_place_copies);
    free(instance);
}

void iaa_fx_reset(iaa_fx_instance *instance) {
    if (instance->lv2) {
        lilv_instance_deactivate(instance->lv2);
        lilv_instance_activate(instance->lv2);
    } else {
        const LADSPA_Descriptor *d = instance->plugin->ladspa;
        if (d->deactivate) d->deactivate(instance->ladspa);
        if (d->activate) d->activate(instance->ladspa);
    }
}

float *iaa_fx_control(iaa_fx_instance *instance, int port) { return &instance->values[port]; }

static int transport_changed(const iaa_fx_transport *a, const iaa_fx_transport *b) {
    // A rolling transport moves every cycle; only a jump (not the expected advance) is news.
    return a->playing != b->playing || a->tempo != b->tempo || a->beats_per_bar != b->beats_per_bar ||
           a->frame != b->next_frame;
}

/// Builds this cycle's atom sequence: time:Position first when it changed, then the MIDI events.
static void write_events(iaa_fx_instance *instance, const iaa_fx_midi *midi, uint32_t midi_count,
                         const iaa_fx_transport *transport) {
    iaa_fx_urids *urids = iaa_fx_host_urids();
    LV2_Atom_Forge *forge = &instance->forge;
    lv2_atom_forge_set_buffer(forge, instance->port_buffers[instance->midi_port], instance->atom_capacity);
    LV2_Atom_Forge_Frame sequence;
    lv2_atom_forge_sequence_head(forge, &sequence, 0);
    if (instance->wants_time && transport &&
        (!instance->sent_transport || transport_changed(transport, &instance->last_transport))) {
        LV2_Atom_Forge_Frame object;
        lv2_atom_forge_frame_time(forge, 0);
        lv2_atom_forge_object(forge, &object, 0, urids->time_Position);
        lv2_atom_forge_key(forge, urids->time_frame);
        lv2_atom_forge_long(forge, transport->frame);
        lv2_atom_forge_key(forge, urids->time_speed);
        lv2_atom_forge_float(forge, transport->playing ? 1.0f : 0.0f);
        lv2_atom_forge_key(forge, urids->time_bpm);
        lv2_atom_forge_float(forge, (float)transport->tempo);
        lv2_atom_forge_key(forge, urids->time_beatsPerBar);
        lv2_atom_forge_float(forge, (float)transport->beats_per_bar);
        lv2_atom_forge_key(forge, urids->time_beatUnit);
        lv2_atom_forge_int(forge, 4);
        lv2_atom_forge_key(forge, urids->time_bar);
        lv2_atom_forge_long(forge, transport->bar);
        lv2_atom_forge_key(forge, urids->time_barBeat);
        lv2_atom_forge_float(forge, (float)transport->bar_beat);
        lv2_atom_forge_key(forge, urids->time_beat);
        lv2_atom_forge_double(forge, transport->beat);
        lv2_atom_forge_pop(forge, &object);
        instance->sent_transport = 1;
    }
    if (transport) instance->last_transport = *transport;
    for (uint32_t index = 0; index < midi_count; index++) {
        const iaa_fx_midi *event = &midi[index];
        uint8_t bytes[3] = {event->status, event->data1, event->data2};
        uint32_t size = event->size > 3 ? 3 : event->size;
        if (!lv2_atom_forge_frame_time(forge, event->frame)) break;
        if (!lv2_atom_forge_atom(forge, size, urids->midi_MidiEvent)) break;
        if (!lv2_atom_forge_write(forge, bytes, size)) break;
    }
    lv2_atom_forge_pop(forge, &sequence);
}

/// Atom outputs get their whole capacity as an empty chunk before every run, as LV2 asks.
static void prepare_atom_outputs(iaa_fx_instance *instance) {
    iaa_fx_plugin *plugin = instance->plugin;
    for (int index = 0; index < plugin->port_count; index++) {
        if (!plugin->extra[index].is_atom || index == instance->midi_port) continue;
        LV2_Atom *atom = instance->port_buffers[index];
        if (plugin->extra[index].is_input) {
            LV2_Atom_Sequence *empty = instance->port_buffers[index];
            empty->atom.type = iaa_fx_host_urids()->atom_Sequence;
            empty->atom.size = sizeof(LV2_Atom_Sequence_Body);
            empty->body.unit = 0;
            empty->body.pad = 0;
        } else {
            atom->type = iaa_fx_host_urids()->atom_Chunk;
            atom->size = (uint32_t)(instance->atom_capacity - sizeof(LV2_Atom));
        }
    }
}

void iaa_fx_run(iaa_fx_instance *instance, uint32_t frames, const float *const *inputs, float *const *outputs,
                const float *controls, const iaa_fx_midi *midi, uint32_t midi_count, const iaa_fx_transport *transport) {
    if (frames > instance->maximum_frames) frames = instance->maximum_frames;
    for (int index = 0; index < instance->audio_input_count; index++) {
        const float *input = inputs[index];
        if (instance->in_place_copies) {
            float *copy = instance->in_place_copies + (size_t)index * instance->maximum_frames;
            memcpy(copy, input, frames * sizeof(float));
            input = copy;
        }
        connect(instance, instance->audio_inputs[index], (void *)input);
    }
    for (int index = 0; index < instance->audio_output_count; index++) {
        connect(instance, instance->audio_outputs[index], outputs[index]);
    }
    for (int index = 0; index < instance->control_input_count; index++) {
        instance->values[instance->control_inputs[index]] = controls[index];
    }
    if (instance->lv2) {
        if (instance->midi_port >= 0) write_events(instance, midi, midi_count, transport);
        prepare_atom_outputs(instance);
        iaa_fx_worker_deliver(instance->worker);
        lilv_instance_run(instance->lv2, frames);
        iaa_fx_worker_end_run(instance->worker);
    } else {
        instance->plugin->ladspa->run(instance->ladspa, frames);
    }
}
