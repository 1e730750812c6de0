/* A tremolo effect: the input's level swings between 1 and 1 - depth, `rate` times a second.
 * Build: ./build.sh (makes libtremolo.so next to graph.json). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "iaa_plugin.h"

enum { PARAM_RATE, PARAM_DEPTH };

typedef struct tremolo {
    double sample_rate;
    double phase; /* in cycles, 0 <= phase < 1 */
} tremolo;

static void *tremolo_create(const iaa_plugin_descriptor *descriptor, double sample_rate, uint32_t max_frames,
                            char *error, size_t error_size) {
    (void)descriptor;
    (void)max_frames;
    if (sample_rate <= 0) {
        snprintf(error, error_size, "sample rate %g is not positive", sample_rate);
        return NULL;
    }
    tremolo *self = calloc(1, sizeof *self);
    if (self == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    self->sample_rate = sample_rate;
    return self;
}

/* Audio thread: no malloc, no locks. Rate and depth arrive smoothed, one ramp per cycle. */
static void tremolo_process(void *instance, const iaa_process_context *context) {
    tremolo *self = instance;
    const float *in = context->inputs[0];
    float *out = context->outputs[0];
    const iaa_ramp *rate = &context->parameters[PARAM_RATE];
    const iaa_ramp *depth = &context->parameters[PARAM_DEPTH];
    const double two_pi = 6.283185307179586;
    for (uint32_t frame = 0; frame < context->frames; frame++) {
        float r = frame < rate->ramp_frames ? rate->start + rate->step * (float)frame : rate->end;
        float d = frame < depth->ramp_frames ? depth->start + depth->step * (float)frame : depth->end;
        /* 1 at the top of the swing, 1 - depth at the bottom. */
        float gain = 1.0f - d * 0.5f * (1.0f + (float)sin(two_pi * self->phase));
        out[frame] = in[frame] * gain; /* in and out may share memory: read before write */
        self->phase += r / self->sample_rate;
        if (self->phase >= 1.0) self->phase -= 1.0;
    }
}

static void tremolo_reset(void *instance) {
    ((tremolo *)instance)->phase = 0;
}

static void tremolo_destroy(void *instance) {
    free(instance);
}

static const iaa_port ports[] = {
    {"in", "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL},
    {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},
};

static const iaa_parameter parameters[] = {
    [PARAM_RATE] = {"rate", "Rate", 0.1f, 20.0f, 5.0f, IAA_UNIT_HERTZ, 0},
    [PARAM_DEPTH] = {"depth", "Depth", 0.0f, 1.0f, 0.5f, IAA_UNIT_GENERIC, 0},
};

static const iaa_plugin_descriptor tremolo_descriptor = {
    .id = "tremolo",
    .name = "Tremolo",
    .summary = "Swings the level of its input between 1 and 1 - depth, rate times a second.",
    .component = {"aurx", "trem", "demo", "Demo: Tremolo", 0x00010000},
    .ports = ports,
    .port_count = sizeof ports / sizeof ports[0],
    .parameters = parameters,
    .parameter_count = sizeof parameters / sizeof parameters[0],
    .create = tremolo_create,
    .process = tremolo_process,
    .set_parameter = NULL,
    .reset = tremolo_reset,
    .destroy = tremolo_destroy,
    .user_data = NULL,
    /* ABI 2: the entitlements the node needs, e.g. {"microphone"}; a tremolo needs none. */
    .entitlements = NULL,
    .entitlement_count = 0,
};

static const iaa_plugin_descriptor *const descriptors[] = {&tremolo_descriptor};

static const iaa_plugin_list list = {IAA_PLUGIN_ABI_VERSION, 1, descriptors};

IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) {
    return &list;
}
