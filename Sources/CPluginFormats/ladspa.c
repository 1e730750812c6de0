// LADSPA plugins: a library's descriptors, ports described from their range hints.
#include "fx_internal.h"
#include <ctype.h>
#include <stdio.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// LADSPA ports have names, not symbols: "Amps gain (dB)" becomes "amps_gain_db", and a repeated
/// symbol gets the port index appended so that every symbol is unique.
static char *symbol_from(const char *name, int index, const iaa_fx_port *earlier, int earlier_count) {
    size_t length = strlen(name);
    char *symbol = malloc(length + 16);
    size_t used = 0;
    int gap = 0;
    for (size_t at = 0; at < length; at++) {
        unsigned char c = (unsigned char)name[at];
        if (isalnum(c)) {
            if (gap && used > 0) symbol[used++] = '_';
            symbol[used++] = (char)tolower(c);
            gap = 0;
        } else {
            gap = 1;
        }
    }
    symbol[used] = 0;
    int clash = used == 0;
    for (int other = 0; other < earlier_count && !clash; other++) clash = strcmp(earlier[other].symbol, symbol) == 0;
    if (clash) snprintf(symbol + used, 16, "%s%d", used ? "_" : "port_", index);
    return symbol;
}

static void describe_range(const LADSPA_PortRangeHint *hint, iaa_fx_port *port) {
    LADSPA_PortRangeHintDescriptor d = hint->HintDescriptor;
    float scale = LADSPA_IS_HINT_SAMPLE_RATE(d) ? 48000.0f : 1.0f;
    if (LADSPA_IS_HINT_SAMPLE_RATE(d)) port->flags |= IAA_FX_SAMPLE_RATE;
    if (LADSPA_IS_HINT_TOGGLED(d)) port->flags |= IAA_FX_TOGGLED;
    if (LADSPA_IS_HINT_INTEGER(d)) port->flags |= IAA_FX_INTEGER;
    if (LADSPA_IS_HINT_LOGARITHMIC(d)) port->flags |= IAA_FX_LOGARITHMIC;
    // An unbounded side gets a wide finite bound, so the engine's range check still means something.
    float low = LADSPA_IS_HINT_BOUNDED_BELOW(d) ? hint->LowerBound * scale : (LADSPA_IS_HINT_TOGGLED(d) ? 0 : -1e6f);
    float high = LADSPA_IS_HINT_BOUNDED_ABOVE(d) ? hint->UpperBound * scale : (LADSPA_IS_HINT_TOGGLED(d) ? 1 : 1e6f);
    if (high < low) high = low;
    port->minimum = low;
    port->maximum = high;
    int logarithmic = LADSPA_IS_HINT_LOGARITHMIC(d) && low > 0;
    // The spec's defaults: LOW, MIDDLE and HIGH interpolate 25/50/75 %, geometrically when logarithmic.
    float weight = -1;
    switch (d & LADSPA_HINT_DEFAULT_MASK) {
    case LADSPA_HINT_DEFAULT_MINIMUM: port->default_value = low; break;
    case LADSPA_HINT_DEFAULT_LOW: weight = 0.25f; break;
    case LADSPA_HINT_DEFAULT_MIDDLE: weight = 0.5f; break;
    case LADSPA_HINT_DEFAULT_HIGH: weight = 0.75f; break;
    case LADSPA_HINT_DEFAULT_MAXIMUM: port->default_value = high; break;
    case LADSPA_HINT_DEFAULT_0: port->default_value = 0; break;
    case LADSPA_HINT_DEFAULT_1: port->default_value = 1; break;
    case LADSPA_HINT_DEFAULT_100: port->default_value = 100; break;
    case LADSPA_HINT_DEFAULT_440: port->default_value = 440; break;
    default: port->default_value = low > 0 ? low : (high < 0 ? high : 0); break;
    }
    if (weight >= 0) {
        port->default_value = logarithmic ? expf(logf(low) * (1 - weight) + logf(high) * weight)
                                          : low * (1 - weight) + high * weight;
    }
    if (LADSPA_IS_HINT_INTEGER(d)) port->default_value = roundf(port->default_value);
    if (port->default_value < low) port->default_value = low;
    if (port->default_value > high) port->default_value = high;
}

static LADSPA_Descriptor_Function entry_of(void *library) {
    return (LADSPA_Descriptor_Function)dlsym(library, "ladspa_descriptor");
}

int iaa_ladspa_each(const char *path, void (*visit)(void *, const char *, unsigned long, const char *), void *context) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) return -1;
    LADSPA_Descriptor_Function entry = entry_of(library);
    int count = 0;
    for (const LADSPA_Descriptor *d; entry && (d = entry((unsigned long)count)); count++) {
        visit(context, d->Label, d->UniqueID, d->Name);
    }
    dlclose(library);
    return entry ? count : -1;
}

iaa_fx_plugin *iaa_ladspa_open(const char *path, const char *label, char *error, size_t error_size) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        iaa_fx_error(error, error_size, "%s could not be loaded: %s", path, dlerror());
        return NULL;
    }
    LADSPA_Descriptor_Function entry = entry_of(library);
    if (!entry) {
        iaa_fx_error(error, error_size, "%s is not a LADSPA library: it exports no ladspa_descriptor", path);
        dlclose(library);
        return NULL;
    }
    const LADSPA_Descriptor *found = NULL;
    unsigned long count = 0;
    for (const LADSPA_Descriptor *d; (d = entry(count)); count++) {
        if (label ? strcmp(d->Label, label) == 0 : count == 0) found = d;
    }
    if (!found || (!label && count != 1)) {
        if (label) {
            iaa_fx_error(error, error_size, "%s has no LADSPA plugin labelled \"%s\"", path, label);
        } else {
            iaa_fx_error(error, error_size, "%s holds %lu LADSPA plugins; name one by its label", path, count);
        }
        dlclose(library);
        return NULL;
    }
    iaa_fx_plugin *plugin = calloc(1, sizeof *plugin);
    plugin->format = IAA_FX_LADSPA;
    plugin->library = library;
    plugin->ladspa = found;
    plugin->name = iaa_fx_strdup(found->Name);
    plugin->author = iaa_fx_strdup(found->Maker ? found->Maker : "");
    plugin->binary = iaa_fx_strdup(path);
    plugin->class_label = iaa_fx_strdup("");
    size_t size = strlen(path) + strlen(found->Label) + 2;
    plugin->identifier = malloc(size);
    snprintf(plugin->identifier, size, "%s/%s", path, found->Label);
    plugin->in_place_broken = LADSPA_IS_INPLACE_BROKEN(found->Properties);
    plugin->port_count = (int)found->PortCount;
    plugin->ports = calloc(found->PortCount, sizeof *plugin->ports);
    plugin->extra = calloc(found->PortCount, sizeof *plugin->extra);
    for (int index = 0; index < plugin->port_count; index++) {
        LADSPA_PortDescriptor d = found->PortDescriptors[index];
        iaa_fx_port *port = &plugin->ports[index];
        port->name = iaa_fx_strdup(found->PortNames[index]);
        port->symbol = symbol_from(found->PortNames[index], index, plugin->ports, index);
        plugin->extra[index].is_input = LADSPA_IS_PORT_INPUT(d);
        if (LADSPA_IS_PORT_AUDIO(d)) {
            port->kind = LADSPA_IS_PORT_INPUT(d) ? IAA_FX_AUDIO_IN : IAA_FX_AUDIO_OUT;
        } else {
            port->kind = LADSPA_IS_PORT_INPUT(d) ? IAA_FX_CONTROL_IN : IAA_FX_CONTROL_OUT;
            describe_range(&found->PortRangeHints[index], port);
            // LADSPA has no property for it; hosts (Ardour, Audacity) read an output called "latency".
            if (port->kind == IAA_FX_CONTROL_OUT && strcasecmp(found->PortNames[index], "latency") == 0)
                port->flags |= IAA_FX_REPORTS_LATENCY;
        }
    }
    return plugin;
}

int iaa_ladspa_instantiate(iaa_fx_instance *instance, double sample_rate, char *error, size_t error_size) {
    const LADSPA_Descriptor *d = instance->plugin->ladspa;
    instance->ladspa = d->instantiate(d, (unsigned long)sample_rate);
    if (!instance->ladspa) {
        iaa_fx_error(error, error_size, "LADSPA plugin %s refused to instantiate at %.0f Hz", instance->plugin->identifier,
                     sample_rate);
        return 0;
    }
    return 1;
}
