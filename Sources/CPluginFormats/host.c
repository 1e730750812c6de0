// The host services every LV2 instance shares: the URID map (a locked table; plugins map URIs
// while they are instantiated, off the audio thread), the log, and the lilv world.
#include "fx_internal.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lv2/buf-size/buf-size.h>
#include <lv2/midi/midi.h>
#include <lv2/parameters/parameters.h>
#include <lv2/time/time.h>

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static char **uris;
static size_t uri_count, uri_capacity;

static LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri) {
    (void)handle;
    if (!uri) return 0;
    pthread_mutex_lock(&map_lock);
    for (size_t index = 0; index < uri_count; index++) {
        if (strcmp(uris[index], uri) == 0) {
            pthread_mutex_unlock(&map_lock);
            return (LV2_URID)(index + 1);
        }
    }
    if (uri_count == uri_capacity) {
        size_t capacity = uri_capacity ? uri_capacity * 2 : 256;
        char **grown = realloc(uris, capacity * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&map_lock);
            return 0;
        }
        uris = grown;
        uri_capacity = capacity;
    }
    uris[uri_count] = iaa_fx_strdup(uri);
    LV2_URID urid = (LV2_URID)++uri_count;
    pthread_mutex_unlock(&map_lock);
    return urid;
}

static const char *unmap_urid(LV2_URID_Unmap_Handle handle, LV2_URID urid) {
    (void)handle;
    pthread_mutex_lock(&map_lock);
    const char *uri = urid > 0 && urid <= uri_count ? uris[urid - 1] : NULL;
    pthread_mutex_unlock(&map_lock);
    return uri;
}

static LV2_URID_Map host_map = {NULL, map_uri};
static LV2_URID_Unmap host_unmap = {NULL, unmap_urid};

LV2_URID_Map *iaa_fx_host_map(void) { return &host_map; }
LV2_URID_Unmap *iaa_fx_host_unmap(void) { return &host_unmap; }

// Plugins log errors and warnings to stderr prefixed with "lv2: "; notes and traces are dropped
// so that a chatty plugin does not write from the audio thread.
static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list arguments) {
    (void)handle;
    const char *kind = unmap_urid(NULL, type);
    if (!kind || (!strstr(kind, "#Error") && !strstr(kind, "#Warning"))) return 0;
    fputs("lv2: ", stderr);
    return vfprintf(stderr, format, arguments);
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int written = log_vprintf(handle, type, format, arguments);
    va_end(arguments);
    return written;
}

static LV2_Log_Log host_log = {NULL, log_printf, log_vprintf};
LV2_Log_Log *iaa_fx_host_log(void) { return &host_log; }

static iaa_fx_urids urids;
static pthread_once_t urids_once = PTHREAD_ONCE_INIT;

static void map_host_urids(void) {
    urids.atom_Sequence = map_uri(NULL, LV2_ATOM__Sequence);
    urids.atom_Chunk = map_uri(NULL, LV2_ATOM__Chunk);
    urids.atom_Int = map_uri(NULL, LV2_ATOM__Int);
    urids.atom_Float = map_uri(NULL, LV2_ATOM__Float);
    urids.atom_Long = map_uri(NULL, LV2_ATOM__Long);
    urids.atom_Double = map_uri(NULL, LV2_ATOM__Double);
    urids.atom_Object = map_uri(NULL, LV2_ATOM__Object);
    urids.atom_Blank = map_uri(NULL, LV2_ATOM__Blank);
    urids.midi_MidiEvent = map_uri(NULL, LV2_MIDI__MidiEvent);
    urids.time_Position = map_uri(NULL, LV2_TIME__Position);
    urids.time_frame = map_uri(NULL, LV2_TIME__frame);
    urids.time_speed = map_uri(NULL, LV2_TIME__speed);
    urids.time_bpm = map_uri(NULL, LV2_TIME__beatsPerMinute);
    urids.time_bar = map_uri(NULL, LV2_TIME__bar);
    urids.time_barBeat = map_uri(NULL, LV2_TIME__barBeat);
    urids.time_beat = map_uri(NULL, LV2_TIME__beat);
    urids.time_beatsPerBar = map_uri(NULL, LV2_TIME__beatsPerBar);
    urids.time_beatUnit = map_uri(NULL, LV2_TIME__beatUnit);
    urids.bufsz_min = map_uri(NULL, LV2_BUF_SIZE__minBlockLength);
    urids.bufsz_max = map_uri(NULL, LV2_BUF_SIZE__maxBlockLength);
    urids.bufsz_nominal = map_uri(NULL, LV2_BUF_SIZE__nominalBlockLength);
    urids.param_sampleRate = map_uri(NULL, LV2_PARAMETERS__sampleRate);
}

iaa_fx_urids *iaa_fx_host_urids(void) {
    pthread_once(&urids_once, map_host_urids);
    return &urids;
}

static LilvWorld *world;
static pthread_once_t world_once = PTHREAD_ONCE_INIT;

static void load_world(void) {
    world = lilv_world_new();
    lilv_world_load_all(world);
}

LilvWorld *iaa_lv2_world(void) {
    pthread_once(&world_once, load_world);
    return world;
}

char *iaa_fx_strdup(const char *text) {
    if (!text) return NULL;
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy) memcpy(copy, text, length + 1);
    return copy;
}

void iaa_fx_error(char *error, size_t size, const char *format, ...) {
    if (!error || size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}
