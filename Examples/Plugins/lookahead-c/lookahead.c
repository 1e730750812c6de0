/* A lookahead: the input comes out `delay` frames later, through a ring allocated in create, and
 * the node reports that delay as its latency (plugin ABI 3), so the engine delays the graph's
 * other paths to meet it. A limiter or a linear-phase filter would do its work on the delayed
 * signal; this one only delays. Build: ./build.sh (makes liblookahead.so next to graph.json). */
#include <stdio.h>
#include <stdlib.h>

#include "iaa_plugin.h"

enum { PARAM_DELAY };

/* The longest delay, in frames (1 s at 48 kHz). */
#define MAX_DELAY 48000u

typedef struct lookahead {
    float *ring;   /* the last `mask + 1` input frames */
    uint32_t mask; /* ring size - 1; the size is a power of two above MAX_DELAY */
    uint32_t write; /* where the next input frame goes */
} lookahead;

static void *lookahead_create(const iaa_plugin_descriptor *descriptor, double sample_rate, uint32_t max_frames,
                              char *error, size_t error_size) {
    (void)descriptor;
    (void)sample_rate;
    (void)max_frames;
    lookahead *self = calloc(1, sizeof *self);
    uint32_t size = 1;
    while (size <= MAX_DELAY) size *= 2;
    float *ring = calloc(size, sizeof *ring);
    if (self == NULL || ring == NULL) {
        free(self);
        free(ring);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->ring = ring;
    self->mask = size - 1;
    return self;
}

/* Audio thread: no malloc, no locks. `delay` is discrete, so it is one value per cycle. */
static void lookahead_process(void *instance, const iaa_process_context *c) {
    lookahead *self = instance;
    uint32_t delay = (uint32_t)(c->parameters[PARAM_DELAY].end + 0.5f);
    if (delay > MAX_DELAY) delay = MAX_DELAY;
    const float *in = c->inputs[0];
    float *out = c->outputs[0];
    for (uint32_t frame = 0; frame < c->frames; frame++) {
        self->ring[self->write & self->mask] = in[frame]; /* in and out may share memory: read first */
        out[frame] = self->ring[(self->write - delay) & self->mask];
        self->write++;
    }
    /* ABI 3: how many frames the output lags the input. Written every cycle (one store), so a
     * new `delay` is reported in the cycle it takes effect. */
    *c->latency = delay;
}

static void lookahead_reset(void *instance) {
    lookahead *self = instance;
    for (uint32_t index = 0; index <= self->mask; index++) self->ring[index] = 0;
    self->write = 0;
}

static void lookahead_destroy(void *instance) {
    lookahead *self = instance;
    free(self->ring);
    free(self);
}

static const iaa_port ports[] = {
    {"in", "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL},
    {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},
};

static const iaa_parameter parameters[] = {
    /* Whole frames, so discrete: a ramped delay would bend the pitch while it moves. */
    [PARAM_DELAY] = {"delay", "Delay (frames)", 0.0f, (float)MAX_DELAY, 240.0f, IAA_UNIT_GENERIC, 1},
};

static const iaa_plugin_descriptor lookahead_descriptor = {
    .id = "lookahead",
    .name = "Lookahead",
    .summary = "Delays its input by `delay` frames and reports that delay as its latency.",
    .component = {"aurx", "look", "demo", "Demo: Lookahead", 0x00010000},
    .ports = ports,
    .port_count = sizeof ports / sizeof ports[0],
    .parameters = parameters,
    .parameter_count = sizeof parameters / sizeof parameters[0],
    .create = lookahead_create,
    .process = lookahead_process,
    .set_parameter = NULL,
    .reset = lookahead_reset,
    .destroy = lookahead_destroy,
    .user_data = NULL,
    .entitlements = NULL,
    .entitlement_count = 0,
};

static const iaa_plugin_descriptor *const descriptors[] = {&lookahead_descriptor};

static const iaa_plugin_list list = {IAA_PLUGIN_ABI_VERSION, 1, descriptors};

IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) {
    return &list;
}
