import Foundation
import TestKit

/// A C plugin that misbehaves on request, for the isolation tests: an effect that halves its
/// input until its `mode` parameter says 1 segfault, 2 abort, 3 loop forever, 4 write NaN, or
/// 5 malloc and sleep 50 ms in process, and on a render worker thread only (`iaa worker N`) 6
/// segfault or 7 sleep 20 ms, or on any other thread only 8 spin 0.5 ms; and `#crash-create`,
/// which segfaults in `create`.
enum MisbehavingPlugin {
    static let source = """
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iaa_plugin.h"

/* An effect that halves its input until its `mode` parameter asks it to misbehave in process:
 * 1 segfault, 2 abort, 3 loop forever, 4 write NaN, 5 malloc and sleep 50 ms each cycle; on a
 * render worker thread only, 6 segfault, 7 sleep 20 ms; off the workers only, 8 spin 0.5 ms. */
typedef struct bad { volatile int *nowhere; } bad;

static void *bad_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
    (void)d; (void)rate; (void)frames; (void)error; (void)size;
    return calloc(1, sizeof(bad));
}

static void *crash_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
    (void)d; (void)rate; (void)frames; (void)error; (void)size;
    volatile int *nowhere = NULL;
    *nowhere = 1;
    return NULL;
}

static int on_worker(void) {
    char name[17] = {0};
    return prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && strncmp(name, "iaa worker", 10) == 0;
}

static void bad_process(void *instance, const iaa_process_context *c) {
    bad *self = instance;
    int mode = (int)c->parameters[0].end;
    for (uint32_t f = 0; f < c->frames; f++) c->outputs[0][f] = c->inputs[0][f] * 0.5f;
    switch (mode) {
    case 1: *self->nowhere = 1; break;
    case 2: abort();
    case 3: for (volatile unsigned long spin = 0;; spin++) {} break;
    case 4: c->outputs[0][c->frames / 2] = NAN; break;
    case 5: {
        char *block = malloc(1 << 20);
        if (block) memset(block, 1, 1 << 20);
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        free(block);
        break;
    }
    case 6: if (on_worker()) *self->nowhere = 1; break;
    case 7: if (on_worker()) { struct timespec pause = {0, 20 * 1000 * 1000}; nanosleep(&pause, NULL); } break;
    case 8: if (!on_worker()) {
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        do clock_gettime(CLOCK_MONOTONIC, &now);
        while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 500000L);
    } break;
    default: break;
    }
}

static void bad_reset(void *instance) { (void)instance; }
static void bad_destroy(void *instance) { free(instance); }

static const iaa_port ports[] = {
    {"in", "Input", IAA_PORT_INPUT, IAA_PORT_AUDIO, NULL},
    {"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL},
};
static const iaa_parameter parameters[] = {
    {"mode", "Misbehaviour", 0.0f, 8.0f, 0.0f, IAA_UNIT_GENERIC, 1},
};
static const iaa_plugin_descriptor bad_node = {
    "bad", "Bad", "Halves its input until told to misbehave", {"aurx", "badn", "test", NULL, 0x10000},
    ports, 2, parameters, 1, bad_create, bad_process, NULL, bad_reset, bad_destroy, NULL, NULL, 0
};
static const iaa_plugin_descriptor crash_node = {
    "crash-create", "Crash on create", "Segfaults in create", {"aurx", "crsh", "test", NULL, 0x10000},
    ports, 2, parameters, 1, crash_create, bad_process, NULL, bad_reset, bad_destroy, NULL, NULL, 0
};
static const iaa_plugin_descriptor *const all[] = { &bad_node, &crash_node };
static const iaa_plugin_list list = { IAA_PLUGIN_ABI_VERSION, 2, all };
IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
"""

    /// Builds `libbad.so` into `directory` (a copy of the one build of this source).
    static func build(in directory: URL) throws {
        try CachedCBuild.plugin(source, output: directory.appendingPathComponent("libbad.so").path)
    }

    /// A graph: a tone into `good` (a gain, to @playback) and into the bad app (to nothing);
    /// `badFirst` lists the bad app before the good one (so it runs first among apps free together).
    /// `busyGood` makes `good` the bad plugin in mode 8: a render worker woken when the tone is
    /// done finds `bad` still to run while JACK's thread spins in `good`.
    static func graph(bad plugin: String?, mode: Int = 0, isolation: String = "\"isolation\": { \"maxCrashes\": 100 }",
                      badFirst: Bool = false, busyGood: Bool = false) -> String {
        let bad = plugin.map { ", { \"id\": \"bad\", \"plugin\": \"\($0)\", \"params\": { \"mode\": \(mode) } }" } ?? ""
        let goodPlugin = busyGood ? plugin.map { "\"\($0)\", \"params\": { \"mode\": 8 }" } : nil
        let good = ", { \"id\": \"good\", \"plugin\": \(goodPlugin ?? "\"builtin:gain\"") }"
        let connection = plugin == nil ? "" : ", { \"from\": \"tone:out\", \"to\": \"bad:in\" }"
        return """
            { "format": "iaa-graph/1", "name": "isolation", \(isolation),
              "apps": [
                { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 500, "amplitude": 0.5 } }\(badFirst ? bad + good : good + bad)
              ],
              "connections": [ { "from": "tone:out", "to": "good:in" }\(connection) ],
              "jack": { "connections": [ { "from": "good:out", "to": "@playback" } ] } }
            """
    }
}
