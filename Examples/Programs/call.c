/* call: a voice call as an iaa program app, in category playAndRecord, mode voiceChat. The
 * graph grants the app priority-audio, so activating interrupts the other apps (music stops,
 * navigation cannot speak over it); when the call hangs up it deactivates with
 * notifyOthersOnDeactivation, so the music resumes. The "far end" is an echo: what the app's
 * input gives the call (the microphone, routed by the engine to the call's `in` port) comes back
 * on its `out` port half a second later, as an echo-test call does.
 *
 *   call -a call -n call -d 10        a ten-second call
 *
 * Options: -a APP (default call), -n JACK client name (default call), -s control socket,
 * -d seconds (default 10). Session events are printed on stdout. */
#include <iaa_session.h>
#include <jack/jack.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { ECHO_FRAMES = 24000 }; /* half a second at 48 kHz */

static jack_port_t *voice_in, *voice_out;
static float echo[ECHO_FRAMES];
static size_t cursor;

/* Real-time: a fixed delay line, nothing else. */
static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    const float *in = jack_port_get_buffer(voice_in, frames);
    float *out = jack_port_get_buffer(voice_out, frames);
    for (jack_nframes_t frame = 0; frame < frames; frame++) {
        out[frame] = echo[cursor];
        echo[cursor] = in[frame];
        cursor = (cursor + 1) % ECHO_FRAMES;
    }
    return 0;
}

static void on_event(const iaa_session_event *event, void *user) {
    (void)user;
    if (event->kind == IAA_SESSION_EVENT_INTERRUPTION_BEGAN) printf("call interrupted (%s)\n", event->reason);
    else printf("event %s %s\n", event->name, event->reason);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *app = "call", *name = "call", *socket_path = NULL;
    double seconds = 10;
    for (int option; (option = getopt(argc, argv, "a:n:s:d:")) != -1;) {
        if (option == 'a') app = optarg;
        else if (option == 'n') name = optarg;
        else if (option == 's') socket_path = optarg;
        else if (option == 'd') seconds = atof(optarg);
        else { fprintf(stderr, "usage: call [-a APP] [-n CLIENT] [-s SOCKET] [-d SECONDS]\n"); return 64; }
    }
    jack_client_t *client = jack_client_open(name, JackNoStartServer, NULL);
    if (client == NULL) { fprintf(stderr, "call: no JACK server\n"); return 2; }
    voice_in = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    voice_out = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);

    char error[512];
    iaa_session *session = NULL;
    iaa_session_status status = iaa_session_open(app, socket_path, on_event, NULL, &session, error, sizeof error);
    if (status == IAA_SESSION_OK) status = iaa_session_set_category(session, "playAndRecord", "voiceChat", 0);
    if (status == IAA_SESSION_OK) status = iaa_session_set_active(session, true, 0);
    if (status != IAA_SESSION_OK) {
        fprintf(stderr, "call: %s\n", session ? iaa_session_last_error(session) : error);
        return 1;
    }
    jack_activate(client);
    printf("call connected for %.0f s\n", seconds);
    fflush(stdout);
    usleep((useconds_t)(seconds * 1e6));
    jack_deactivate(client);
    iaa_session_set_active(session, false, IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION);
    printf("call ended\n");
    iaa_session_close(session);
    jack_client_close(client);
    return 0;
}
