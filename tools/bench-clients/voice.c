/* One voice as its own JACK client, for tools/bench: a sine oscillator into a gain, written to
 * one output port in the process callback. The engine's voice is builtin:oscillator -> builtin:gain.
 *
 *   voice CLIENT SERVER FREQUENCY AMPLITUDE GAIN
 *
 * Stops cleanly on SIGTERM or SIGINT. */
#include <jack/jack.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop = 0;
static jack_port_t *out_port;
static double phase = 0, increment = 0;
static float amplitude = 0.5f, gain = 0.5f;

static void on_signal(int sig) { (void)sig; stop = 1; }
static void on_shutdown(void *arg) { (void)arg; stop = 1; }

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    float *out = jack_port_get_buffer(out_port, frames);
    float level = amplitude * gain;
    for (jack_nframes_t i = 0; i < frames; i++) {
        out[i] = level * sinf((float)phase);
        phase += increment;
        if (phase >= 2 * M_PI) phase -= 2 * M_PI;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: voice CLIENT SERVER FREQUENCY AMPLITUDE GAIN\n");
        return 64;
    }
    jack_status_t status;
    jack_client_t *client = jack_client_open(argv[1], JackNoStartServer | JackUseExactName | JackServerName,
                                             &status, argv[2]);
    if (!client) {
        fprintf(stderr, "voice %s: cannot open a JACK client on server '%s' (status 0x%x)\n", argv[1], argv[2], status);
        return 2;
    }
    amplitude = strtof(argv[4], NULL);
    gain = strtof(argv[5], NULL);
    increment = 2 * M_PI * strtod(argv[3], NULL) / jack_get_sample_rate(client);
    out_port = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!out_port) {
        fprintf(stderr, "voice %s: cannot register port 'out'\n", argv[1]);
        jack_client_close(client);
        return 1;
    }
    jack_set_process_callback(client, process, NULL);
    jack_on_shutdown(client, on_shutdown, NULL);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (jack_activate(client)) {
        fprintf(stderr, "voice %s: cannot activate the client\n", argv[1]);
        jack_client_close(client);
        return 1;
    }
    while (!stop) usleep(20000);
    jack_client_close(client);
    return 0;
}
