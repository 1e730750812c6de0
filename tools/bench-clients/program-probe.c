/* For tools/bench-programs: measures what routing a program through an iaa program app costs in
 * time, with two JACK clients in this one process.
 *
 *   program-probe latency SERVER_PORT            (e.g. iaa-bench:lat.out_1)
 *   program-probe duck SOCKET APP WATCHED_PORT   (e.g. …/e.sock nav iaa-bench:music.out_1)
 *
 * latency: client "probe-src" (the program app's program) writes each frame's own index
 * (frame mod 65536, / 65536: exact in a float) on its port "out"; client "probe-sink" reads
 * SERVER_PORT and compares the index it finds with its own cycle's first frame. The difference in
 * periods is the latency the route adds (0: JACK ran program, engine and sink in one cycle).
 * duck: "probe-src" writes a constant 0.5 (the program behind the watched app); the session
 * library activates APP (category playback, duckOthers); the sink finds the first cycle where
 * WATCHED_PORT falls below unity and the first where it reaches the duck level, and prints both
 * in cycles after the activate request was sent. Prints one line `key value…` per figure. */
#include <iaa_session.h>
#include <jack/jack.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jack_client_t *source, *sink;
static jack_port_t *out, *in;
static bool counting;                 /* latency mode: write frame indices */
static _Atomic long long delay_sum, delay_cycles;
static _Atomic jack_nframes_t activated_at, first_lower, first_ducked;

static int source_process(jack_nframes_t frames, void *arg) {
    (void)arg;
    float *buffer = jack_port_get_buffer(out, frames);
    jack_nframes_t start = jack_last_frame_time(source);
    for (jack_nframes_t i = 0; i < frames; i++) buffer[i] = counting ? (float)((start + i) % 65536) / 65536.0f : 0.5f;
    return 0;
}

static int sink_process(jack_nframes_t frames, void *arg) {
    (void)arg;
    const float *buffer = jack_port_get_buffer(in, frames);
    jack_nframes_t start = jack_last_frame_time(sink);
    if (counting) {
        if (buffer[1] == 0.0f) return 0; /* not routed yet */
        long heard = lroundf(buffer[0] * 65536.0f);
        long delay = ((long)(start % 65536) - heard + 65536) % 65536;
        atomic_fetch_add(&delay_sum, delay);
        atomic_fetch_add(&delay_cycles, 1);
        return 0;
    }
    if (atomic_load(&activated_at) == 0) return 0;
    float level = fabsf(buffer[frames - 1]);
    if (atomic_load(&first_lower) == 0 && level < 0.5f * 0.999f) atomic_store(&first_lower, start);
    if (atomic_load(&first_ducked) == 0 && level <= 0.5f * 0.2512f * 1.001f) atomic_store(&first_ducked, start);
    return 0;
}

static jack_client_t *open_client(const char *name, JackProcessCallback process, jack_port_t **port, unsigned long flags) {
    jack_client_t *client = jack_client_open(name, JackNoStartServer, NULL);
    if (client == NULL) { fprintf(stderr, "program-probe: no JACK server\n"); exit(2); }
    *port = jack_port_register(client, flags & JackPortIsOutput ? "out" : "in", JACK_DEFAULT_AUDIO_TYPE, flags, 0);
    jack_set_process_callback(client, process, NULL);
    jack_activate(client);
    return client;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: program-probe latency PORT | duck SOCKET APP PORT\n"); return 64; }
    counting = strcmp(argv[1], "latency") == 0;
    const char *watched = counting ? argv[2] : argc > 4 ? argv[4] : NULL;
    if (watched == NULL) { fprintf(stderr, "usage: program-probe duck SOCKET APP PORT\n"); return 64; }
    source = open_client("probe-src", source_process, &out, JackPortIsOutput);
    sink = open_client("probe-sink", sink_process, &in, JackPortIsInput);
    if (jack_connect(sink, watched, "probe-sink:in") != 0) { fprintf(stderr, "program-probe: cannot connect %s\n", watched); return 1; }
    jack_nframes_t period = jack_get_buffer_size(sink);
    if (counting) {
        sleep(3); /* the engine routes probe-src when it sees it; then 2 s of cycles */
        long long cycles = atomic_load(&delay_cycles);
        printf("latency_frames %.2f cycles %lld period %u\n", cycles ? (double)atomic_load(&delay_sum) / cycles : -1.0, cycles, period);
        return cycles ? 0 : 1;
    }
    char error[512];
    iaa_session *session;
    if (iaa_session_open(argv[3], argv[2], NULL, NULL, &session, error, sizeof error) != IAA_SESSION_OK ||
        iaa_session_set_category(session, "playback", "voicePrompt", IAA_SESSION_OPTION_DUCK_OTHERS) != IAA_SESSION_OK) {
        fprintf(stderr, "program-probe: %s\n", error);
        return 1;
    }
    sleep(1);
    jack_nframes_t sent = jack_frame_time(sink);
    atomic_store(&activated_at, sent);
    if (iaa_session_set_active(session, true, 0) != IAA_SESSION_OK) {
        fprintf(stderr, "program-probe: %s\n", iaa_session_last_error(session));
        return 1;
    }
    jack_nframes_t replied = jack_frame_time(sink);
    usleep(200000);
    jack_nframes_t lower = atomic_load(&first_lower), ducked = atomic_load(&first_ducked);
    printf("duck reply_cycles %.2f first_lower_cycles %.2f ducked_cycles %.2f period %u\n",
           (double)(replied - sent) / period, lower ? (double)(lower - sent) / period : -1.0,
           ducked ? (double)(ducked - sent) / period : -1.0, period);
    iaa_session_close(session);
    return ducked ? 0 : 1;
}
