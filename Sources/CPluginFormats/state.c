// LV2 state: what a plugin keeps beyond its control ports (a loaded sample's path, a preset
// bank, internal settings), saved as Turtle through lilv so a graph file can carry it, and
// restored right after the instance is created, before it ever runs. Control side only.
#include "fx_internal.h"
#include <stdlib.h>
#include <string.h>

#include <lv2/state/state.h>

/// The URI iaa gives the snapshots it writes; the graph file holds the text, not a file.
static const char state_uri[] = "urn:iaa:state";

int iaa_fx_plugin_has_state(const iaa_fx_plugin *plugin) {
    if (plugin->format != IAA_FX_LV2) return 0;
    iaa_lv2_lock();
    LilvNode *interface = lilv_new_uri(iaa_lv2_world(), LV2_STATE__interface);
    int result = lilv_plugin_has_extension_data(plugin->lv2, interface);
    lilv_node_free(interface);
    iaa_lv2_unlock();
    return result;
}

/// Port values stay out of the snapshot: the graph's `params` hold them, smoothed like any others.
static const void *no_port_value(const char *symbol, void *context, uint32_t *size, uint32_t *type) {
    (void)symbol;
    (void)context;
    *size = 0;
    *type = 0;
    return NULL;
}

char *iaa_fx_state_save(iaa_fx_instance *instance, char *error, size_t error_size) {
    if (!instance->lv2) {
        iaa_fx_error(error, error_size, "only LV2 plugins keep state");
        return NULL;
    }
    LV2_Feature map = {LV2_URID__map, iaa_fx_host_map()};
    const LV2_Feature *features[] = {&map, NULL};
    // save() may run while the audio thread runs the instance (LV2 state's threading rule);
    // the world lock only guards lilv's own tables.
    iaa_lv2_lock();
    LilvState *state = lilv_state_new_from_instance(instance->plugin->lv2, instance->lv2, iaa_fx_host_map(), NULL, NULL,
                                                    NULL, NULL, no_port_value, NULL,
                                                    LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE, features);
    char *text = NULL;
    if (state && lilv_state_get_num_properties(state) > 0) {
        text = lilv_state_to_string(iaa_lv2_world(), iaa_fx_host_map(), iaa_fx_host_unmap(), state, state_uri, NULL);
    } else if (!state) {
        iaa_fx_error(error, error_size, "LV2 plugin <%s> could not save its state", instance->plugin->identifier);
    }
    lilv_state_free(state);
    iaa_lv2_unlock();
    return text;
}

void iaa_fx_string_free(char *text) { lilv_free(text); }

/// Parses `text` and checks that it belongs to `plugin`; NULL with a message otherwise. Locked.
static LilvState *parse(const iaa_fx_plugin *plugin, const char *text, char *error, size_t error_size) {
    LilvState *state = lilv_state_new_from_string(iaa_lv2_world(), iaa_fx_host_map(), text);
    if (!state) {
        iaa_fx_error(error, error_size, "not an LV2 state snapshot (Turtle with a pset:Preset, as iaa dump --graph writes)");
        return NULL;
    }
    const LilvNode *owner = lilv_state_get_plugin_uri(state);
    if (!owner || strcmp(lilv_node_as_uri(owner), plugin->identifier) != 0) {
        iaa_fx_error(error, error_size, "the state was saved by <%s>, not by <%s>", owner ? lilv_node_as_uri(owner) : "?",
                     plugin->identifier);
        lilv_state_free(state);
        return NULL;
    }
    return state;
}

int iaa_fx_state_check(const iaa_fx_plugin *plugin, const char *text, char *error, size_t error_size) {
    if (plugin->format != IAA_FX_LV2) {
        iaa_fx_error(error, error_size, "only LV2 plugins keep state");
        return 0;
    }
    iaa_lv2_lock();
    LilvState *state = parse(plugin, text, error, error_size);
    lilv_state_free(state);
    iaa_lv2_unlock();
    return state != NULL;
}

static int restore(iaa_fx_instance *instance, LilvState *state) {
    LV2_Feature map = {LV2_URID__map, iaa_fx_host_map()};
    const LV2_Feature *features[] = {&map, NULL};
    // restore() is in LV2's instantiation class: the instance is not running yet (it is
    // installed only after this returns), so nothing runs concurrently.
    lilv_state_restore(state, instance->lv2, NULL, NULL, 0, features);
    return 1;
}

int iaa_fx_state_restore(iaa_fx_instance *instance, const char *text, char *error, size_t error_size) {
    if (!instance->lv2) {
        iaa_fx_error(error, error_size, "only LV2 plugins keep state");
        return 0;
    }
    iaa_lv2_lock();
    LilvState *state = parse(instance->plugin, text, error, error_size);
    if (state) restore(instance, state);
    lilv_state_free(state);
    iaa_lv2_unlock();
    return state != NULL;
}

void iaa_lv2_load_default_state(iaa_fx_instance *instance) {
    iaa_lv2_lock();
    LilvWorld *world = iaa_lv2_world();
    // A plugin's default state is the state:state of its own description (the bundle's files).
    LilvState *state = lilv_state_new_from_world(world, iaa_fx_host_map(), lilv_plugin_get_uri(instance->plugin->lv2));
    if (state) restore(instance, state);
    lilv_state_free(state);
    iaa_lv2_unlock();
}
