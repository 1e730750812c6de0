/* The mixer for tools/bench's separate-clients run: N inputs (in_1..in_N) summed into one
 * output, as its own JACK client. It counts process callbacks (cycles) and xruns.
 *
 *   mixer CLIENT SERVER N
 *
 * On SIGUSR1 it prints one line "cycles C xruns X load L" (L: JACK's DSP load, percent) on
 * stdout; on SIGTERM or SIGINT it prints the same line and exits. The main loop only sleeps. */
#include <jack/jack.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop = 0, report = 0;
static jack_port_t **in_ports, *out_port;
static int inputs = 0;
static atomic_llong cycles = 0, xruns = 0;

static void on_signal(int sig) { if (sig == SIGUSR1) report = 1; else stop = 1; }
static void on_shutdown(void *arg) { (void)arg; stop = 1; }
static int on_xrun(void *arg) { (void)arg; atomic_fetch_add_explicit(&xruns, 1, memory_order_relaxed); return 0; }

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    float *out = jack_port_get_buffer(out_port, frames);
    memset(out, 0, sizeof(float) * frames);
    for (int p = 0; p < inputs; p++) {
        const float *in = jack_port_get_buffer(in_ports[p], frames);
        for (jack_nframes_t i = 0; i < frames; i++) out[i] += in[i];
    }
    atomic_fetch_add_explicit(&cycles, 1, memory_order_relaxed);
    return 0;
}

static void print_counts(jack_client_t *client) {
    printf("cycles %lld xruns %lld load %.2f\n", (long long)atomic_load(&cycles), (long long)atomic_load(&xruns),
           jack_cpu_load(client));
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[3]) < 1) {
        fprintf(stderr, "usage: mixer CLIENT SERVER INPUTS\n");
        return 64;
    }
    inputs = atoi(argv[3]);
    jack_status_t status;
    jack_client_t *client = jack_client_open(argv[1], JackNoStartServer | JackUseExactName | JackServerName,
                                             &status, argv[2]);
    if (!client) {
        fprintf(stderr, "mixer %s: cannot open a JACK client on server '%s' (status 0x%x)\n", argv[1], argv[2], status);
        return 2;
    }
    in_ports = calloc((size_t)inputs, sizeof *in_ports);
    for (int p = 0; p < inputs; p++) {
        char name[32];
        snprintf(name, sizeof name, "in_%d", p + 1);
        in_ports[p] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        if (!in_ports[p]) {
            fprintf(stderr, "mixer %s: cannot register port '%s'\n", argv[1], name);
            jack_client_close(client);
            return 1;
        }
    }
    out_port = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!out_port) {
        fprintf(stderr, "mixer %s: cannot register port 'out'\n", argv[1]);
        jack_client_close(client);
        return 1;
    }
    jack_set_process_callback(client, process, NULL);
    jack_set_xrun_callback(client, on_xrun, NULL);
    jack_on_shutdown(client, on_shutdown, NULL);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGUSR1, on_signal);
    if (jack_activate(client)) {
        fprintf(stderr, "mixer %s: cannot activate the client\n", argv[1]);
        jack_client_close(client);
        return 1;
    }
    while (!stop) {
        usleep(10000);
        if (report) { report = 0; print_counts(client); }
    }
    print_counts(client);
    jack_client_close(client);
    return 0;
}
