// LV2 plugins through lilv: describing ports, refusing plugins that need features iaa lacks,
// and creating instances with the features a host is expected to give.
#include "fx_internal.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/midi/midi.h>
#include <lv2/port-props/port-props.h>
#include <lv2/state/state.h>
#include <lv2/time/time.h>
#include <lv2/units/units.h>

/// The features iaa gives every instance, and the ones that promise something of the host
/// that needs no data (isLive, hardRTCapable, inPlaceBroken). State's mapPath and freePath are
/// given by lilv to every save and restore (state.c); loadDefaultState is honoured at creation.
static const char *const supported_features[] = {
    LV2_URID__map, LV2_URID__unmap, LV2_OPTIONS__options, LV2_BUF_SIZE__boundedBlockLength,
    LV2_LOG__log, LV2_WORKER__schedule, LV2_CORE__isLive, LV2_CORE__hardRTCapable, LV2_CORE__inPlaceBroken,
    LV2_STATE__loadDefaultState, LV2_STATE__mapPath, LV2_STATE__freePath,
    NULL,
};

static int supported(const char *uri) {
    for (int index = 0; supported_features[index]; index++) {
        if (strcmp(supported_features[index], uri) == 0) return 1;
    }
    return 0;
}

// lilv's world is not thread-safe, and graphs load on whichever thread asks: every use of it
// (describing, listing, instantiating, freeing) holds this lock. Running an instance does not.
static pthread_mutex_t world_lock = PTHREAD_MUTEX_INITIALIZER;

void iaa_lv2_lock(void) { pthread_mutex_lock(&world_lock); }
void iaa_lv2_unlock(void) { pthread_mutex_unlock(&world_lock); }

static LilvNode *uri_node(const char *uri) { return lilv_new_uri(iaa_lv2_world(), uri); }

static int has_property(const LilvPlugin *plugin, const LilvPort *port, const char *uri) {
    LilvNode *node = uri_node(uri);
    int result = lilv_port_has_property(plugin, port, node);
    lilv_node_free(node);
    return result;
}

/// True when the port carries the designation `uri` (lv2:designation).
static int designated(const LilvPlugin *plugin, const LilvPort *port, const char *uri) {
    LilvNode *predicate = uri_node(LV2_CORE__designation);
    LilvNode *object = uri_node(uri);
    LilvNodes *found = lilv_port_get_value(plugin, port, predicate);
    int result = 0;
    LILV_FOREACH (nodes, it, found) {
        if (lilv_node_equals(lilv_nodes_get(found, it), object)) result = 1;
    }
    lilv_nodes_free(found);
    lilv_node_free(object);
    lilv_node_free(predicate);
    return result;
}

static int is_a(const LilvPlugin *plugin, const LilvPort *port, const char *uri) {
    LilvNode *node = uri_node(uri);
    int result = lilv_port_is_a(plugin, port, node);
    lilv_node_free(node);
    return result;
}

static int supports(const LilvPlugin *plugin, const LilvPort *port, const char *uri) {
    LilvNode *node = uri_node(uri);
    int result = lilv_port_supports_event(plugin, port, node);
    lilv_node_free(node);
    return result;
}

static const char *unit_of(const LilvPlugin *plugin, const LilvPort *port) {
    LilvNode *predicate = uri_node(LV2_UNITS__unit);
    LilvNodes *units = lilv_port_get_value(plugin, port, predicate);
    lilv_node_free(predicate);
    const char *result = NULL;
    if (units && lilv_nodes_size(units) > 0) {
        const LilvNode *unit = lilv_nodes_get_first(units);
        LilvNode *symbol_predicate = uri_node(LV2_UNITS__symbol);
        LilvNode *symbol = lilv_world_get(iaa_lv2_world(), unit, symbol_predicate, NULL);
        lilv_node_free(symbol_predicate);
        if (symbol) {
            result = iaa_fx_strdup(lilv_node_as_string(symbol));
            lilv_node_free(symbol);
        } else if (lilv_node_is_uri(unit)) {
            const char *uri = lilv_node_as_uri(unit);
            const char *mark = strrchr(uri, '#');
            result = iaa_fx_strdup(mark ? mark + 1 : uri);
        }
    }
    lilv_nodes_free(units);
    return result;
}

static void describe_scale(const LilvPlugin *plugin, const LilvPort *lilv_port, iaa_fx_port *port) {
    LilvScalePoints *points = lilv_port_get_scale_points(plugin, lilv_port);
    if (!points) return;
    int count = (int)lilv_scale_points_size(points);
    float *values = calloc((size_t)count, sizeof *values);
    char **labels = calloc((size_t)count, sizeof *labels);
    int index = 0;
    LILV_FOREACH (scale_points, it, points) {
        const LilvScalePoint *point = lilv_scale_points_get(points, it);
        values[index] = lilv_node_as_float(lilv_scale_point_get_value(point));
        labels[index] = iaa_fx_strdup(lilv_node_as_string(lilv_scale_point_get_label(point)));
        index++;
    }
    lilv_scale_points_free(points);
    port->scale_count = index;
    port->scale_values = values;
    port->scale_labels = (const char *const *)labels;
}

static void describe_port(const LilvPlugin *plugin, uint32_t index, iaa_fx_port *port, iaa_fx_port_extra *extra) {
    const LilvPort *lilv_port = lilv_plugin_get_port_by_index(plugin, index);
    port->symbol = iaa_fx_strdup(lilv_node_as_string(lilv_port_get_symbol(plugin, lilv_port)));
    LilvNode *name = lilv_port_get_name(plugin, lilv_port);
    port->name = iaa_fx_strdup(name ? lilv_node_as_string(name) : port->symbol);
    lilv_node_free(name);
    int input = is_a(plugin, lilv_port, LV2_CORE__InputPort);
    extra->is_input = input;
    if (is_a(plugin, lilv_port, LV2_CORE__AudioPort)) {
        port->kind = input ? IAA_FX_AUDIO_IN : IAA_FX_AUDIO_OUT;
    } else if (is_a(plugin, lilv_port, LV2_CORE__ControlPort)) {
        port->kind = input ? IAA_FX_CONTROL_IN : IAA_FX_CONTROL_OUT;
        LilvNode *def = NULL, *min = NULL, *max = NULL;
        lilv_port_get_range(plugin, lilv_port, &def, &min, &max);
        port->minimum = min ? lilv_node_as_float(min) : 0;
        port->maximum = max ? lilv_node_as_float(max) : 1;
        port->default_value = def ? lilv_node_as_float(def) : port->minimum;
        lilv_node_free(def);
        lilv_node_free(min);
        lilv_node_free(max);
        if (has_property(plugin, lilv_port, LV2_CORE__toggled)) port->flags |= IAA_FX_TOGGLED;
        if (has_property(plugin, lilv_port, LV2_CORE__integer)) port->flags |= IAA_FX_INTEGER;
        if (has_property(plugin, lilv_port, LV2_CORE__enumeration)) port->flags |= IAA_FX_ENUMERATION;
        if (has_property(plugin, lilv_port, LV2_PORT_PROPS__logarithmic)) port->flags |= IAA_FX_LOGARITHMIC;
        if (!input && (has_property(plugin, lilv_port, LV2_CORE__reportsLatency) || designated(plugin, lilv_port, LV2_CORE__latency)))
            port->flags |= IAA_FX_REPORTS_LATENCY;
        port->unit = unit_of(plugin, lilv_port);
        describe_scale(plugin, lilv_port, port);
    } else if (is_a(plugin, lilv_port, LV2_ATOM__AtomPort)) {
        extra->is_atom = 1;
        port->kind = IAA_FX_OTHER;
        if (input && supports(plugin, lilv_port, LV2_MIDI__MidiEvent)) port->kind = IAA_FX_MIDI_IN;
        if (input && supports(plugin, lilv_port, LV2_TIME__Position)) port->flags |= IAA_FX_TIME_POSITION;
    } else {
        extra->is_cv = is_a(plugin, lilv_port, LV2_CORE__CVPort);
        port->kind = IAA_FX_OTHER;
    }
}

static const char *missing_feature(const LilvPlugin *plugin) {
    static __thread char missing[512];
    LilvNodes *required = lilv_plugin_get_required_features(plugin);
    const char *result = NULL;
    LILV_FOREACH (nodes, it, required) {
        const char *uri = lilv_node_as_uri(lilv_nodes_get(required, it));
        if (!supported(uri)) {
            strncpy(missing, uri, sizeof missing - 1);
            result = missing;
            break;
        }
    }
    lilv_nodes_free(required);
    return result;
}

static iaa_fx_plugin *open_locked(const char *uri, char *error, size_t error_size);

iaa_fx_plugin *iaa_lv2_open(const char *uri, char *error, size_t error_size) {
    iaa_lv2_lock();
    iaa_fx_plugin *plugin = open_locked(uri, error, error_size);
    iaa_lv2_unlock();
    return plugin;
}

static iaa_fx_plugin *open_locked(const char *uri, char *error, size_t error_size) {
    LilvWorld *world = iaa_lv2_world();
    LilvNode *node = lilv_new_uri(world, uri);
    const LilvPlugin *lilv_plugin = node ? lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), node) : NULL;
    lilv_node_free(node);
    if (!lilv_plugin) {
        iaa_fx_error(error, error_size, "no installed LV2 plugin has the URI <%s>", uri);
        return NULL;
    }
    const char *missing = missing_feature(lilv_plugin);
    if (missing) {
        iaa_fx_error(error, error_size, "LV2 plugin <%s> requires the feature <%s>, which iaa does not provide", uri, missing);
        return NULL;
    }
    iaa_fx_plugin *plugin = calloc(1, sizeof *plugin);
    plugin->format = IAA_FX_LV2;
    plugin->lv2 = lilv_plugin;
    plugin->identifier = iaa_fx_strdup(uri);
    LilvNode *name = lilv_plugin_get_name(lilv_plugin);
    plugin->name = iaa_fx_strdup(name ? lilv_node_as_string(name) : uri);
    lilv_node_free(name);
    LilvNode *author = lilv_plugin_get_author_name(lilv_plugin);
    plugin->author = iaa_fx_strdup(author ? lilv_node_as_string(author) : "");
    lilv_node_free(author);
    /* Where its code is: the engine runs a binary outside the system's folders isolated. */
    const LilvNode *library_uri = lilv_plugin_get_library_uri(lilv_plugin);
    char *library_path = library_uri ? lilv_file_uri_parse(lilv_node_as_uri(library_uri), NULL) : NULL;
    plugin->binary = iaa_fx_strdup(library_path ? library_path : "");
    lilv_free(library_path);
    const LilvPluginClass *class = lilv_plugin_get_class(lilv_plugin);
    plugin->class_label = iaa_fx_strdup(class ? lilv_node_as_string(lilv_plugin_class_get_label(class)) : "");
    const char *class_uri = class ? lilv_node_as_uri(lilv_plugin_class_get_uri(class)) : "";
    plugin->is_instrument = strcmp(class_uri, LV2_CORE__InstrumentPlugin) == 0;
    LilvNode *broken = uri_node(LV2_CORE__inPlaceBroken);
    plugin->in_place_broken = lilv_plugin_has_feature(lilv_plugin, broken);
    lilv_node_free(broken);
    LilvNode *default_state = uri_node(LV2_STATE__loadDefaultState);
    plugin->loads_default_state = lilv_plugin_has_feature(lilv_plugin, default_state);
    lilv_node_free(default_state);
    plugin->port_count = (int)lilv_plugin_get_num_ports(lilv_plugin);
    plugin->ports = calloc((size_t)plugin->port_count, sizeof *plugin->ports);
    plugin->extra = calloc((size_t)plugin->port_count, sizeof *plugin->extra);
    for (int index = 0; index < plugin->port_count; index++) {
        describe_port(lilv_plugin, (uint32_t)index, &plugin->ports[index], &plugin->extra[index]);
    }
    return plugin;
}

void iaa_lv2_each(void (*visit)(void *, const char *, const char *, const char *), void *context) {
    iaa_lv2_lock();
    const LilvPlugins *plugins = lilv_world_get_all_plugins(iaa_lv2_world());
    LILV_FOREACH (plugins, it, plugins) {
        const LilvPlugin *plugin = lilv_plugins_get(plugins, it);
        LilvNode *name = lilv_plugin_get_name(plugin);
        const LilvPluginClass *class = lilv_plugin_get_class(plugin);
        visit(context, lilv_node_as_uri(lilv_plugin_get_uri(plugin)), name ? lilv_node_as_string(name) : "",
              class ? lilv_node_as_string(lilv_plugin_class_get_label(class)) : "");
        lilv_node_free(name);
    }
    iaa_lv2_unlock();
}

int iaa_lv2_instantiate(iaa_fx_instance *instance, double sample_rate, char *error, size_t error_size) {
    iaa_fx_urids *urids = iaa_fx_host_urids();
    instance->block_min = 1;
    instance->block_max = (int32_t)instance->maximum_frames;
    instance->sample_rate_option = (float)sample_rate;
    LV2_Options_Option *options = instance->options;
    options[0] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urids->bufsz_min, sizeof(int32_t), urids->atom_Int, &instance->block_min};
    options[1] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urids->bufsz_max, sizeof(int32_t), urids->atom_Int, &instance->block_max};
    options[2] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urids->bufsz_nominal, sizeof(int32_t), urids->atom_Int, &instance->block_max};
    options[3] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urids->param_sampleRate, sizeof(float), urids->atom_Float,
                                      &instance->sample_rate_option};
    options[4] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL};
    instance->worker = iaa_fx_worker_new(instance);
    LV2_Feature map = {LV2_URID__map, iaa_fx_host_map()};
    LV2_Feature unmap = {LV2_URID__unmap, iaa_fx_host_unmap()};
    LV2_Feature option_feature = {LV2_OPTIONS__options, options};
    LV2_Feature bounded = {LV2_BUF_SIZE__boundedBlockLength, NULL};
    LV2_Feature log = {LV2_LOG__log, iaa_fx_host_log()};
    LV2_Feature schedule = {LV2_WORKER__schedule, iaa_fx_worker_schedule(instance->worker)};
    const LV2_Feature *features[] = {&map, &unmap, &option_feature, &bounded, &log, &schedule, NULL};
    iaa_lv2_lock();
    instance->lv2 = lilv_plugin_instantiate(instance->plugin->lv2, sample_rate, features);
    iaa_lv2_unlock();
    if (!instance->lv2) {
        iaa_fx_error(error, error_size, "LV2 plugin <%s> refused to instantiate at %.0f Hz", instance->plugin->identifier,
                     sample_rate);
        return 0;
    }
    const LV2_Worker_Interface *interface = lilv_instance_get_extension_data(instance->lv2, LV2_WORKER__interface);
    if (interface) iaa_fx_worker_start(instance->worker, interface, lilv_instance_get_handle(instance->lv2));
    // A plugin that asks for loadDefaultState expects the state:state of its description now.
    if (instance->plugin->loads_default_state) iaa_lv2_load_default_state(instance);
    lv2_atom_forge_init(&instance->forge, iaa_fx_host_map());
    return 1;
}
