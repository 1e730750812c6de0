/* nav-prompt: a navigation voice as an iaa program app. It plays a sound file (speech rendered by
 * espeak-ng, say) through its own JACK client whenever a prompt is due, with an audio session in
 * category playback, mode voicePrompt and option duckOthers: while it speaks, the engine ducks the
 * other apps; when it is done it deactivates with notifyOthersOnDeactivation.
 *
 *   espeak-ng -w turn.wav "In two hundred metres, turn left"
 *   nav-prompt -a nav -n nav-prompt -c 3 -r 5 turn.wav
 *
 * Options: -a APP (default nav), -n JACK client name (default nav-prompt), -s control socket,
 * -c prompts (default 1, 0 = forever), -r seconds between prompts (default 5). Events from the
 * engine are printed on stdout, one per line ("event interruption began"). The JACK port is left
 * unconnected: the engine routes it through the app. */
#include <iaa_session.h>
#include <jack/jack.h>
#include <sndfile.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jack_port_t *port;
static float *samples;           /* the prompt, mono, at JACK's rate */
static size_t sample_count;
static atomic_size_t position;   /* next frame to play; sample_count when idle */

/* Real-time: copies the prompt and nothing else. */
static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    float *out = jack_port_get_buffer(port, frames);
    size_t at = atomic_load_explicit(&position, memory_order_acquire);
    for (jack_nframes_t frame = 0; frame < frames; frame++) out[frame] = at < sample_count ? samples[at++] : 0.0f;
    atomic_store_explicit(&position, at, memory_order_release);
    return 0;
}

/* Runs on the session library's thread. */
static void on_event(const iaa_session_event *event, void *user) {
    (void)user;
    switch (event->kind) {
    case IAA_SESSION_EVENT_INTERRUPTION_BEGAN:
        printf("event interruption began\n");
        atomic_store(&position, sample_count); /* an interrupted prompt is dropped, not resumed */
        break;
    case IAA_SESSION_EVENT_INTERRUPTION_ENDED: printf("event interruption ended%s\n", event->should_resume ? " shouldResume" : ""); break;
    default: printf("event %s%s%s\n", event->name, event->reason[0] ? " " : "", event->reason); break;
    }
    fflush(stdout);
}

static int load(const char *path, jack_nframes_t rate) {
    SF_INFO info = {0};
    SNDFILE *file = sf_open(path, SFM_READ, &info);
    if (file == NULL) {
        fprintf(stderr, "nav-prompt: cannot read %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    if ((jack_nframes_t)info.samplerate != rate) {
        fprintf(stderr, "nav-prompt: %s is %d Hz and JACK runs at %u Hz; convert it first (sox %s -r %u out.wav)\n", path,
                info.samplerate, rate, path, rate);
        sf_close(file);
        return -1;
    }
    float *frames = malloc(sizeof(float) * (size_t)info.frames * (size_t)info.channels);
    samples = malloc(sizeof(float) * (size_t)info.frames);
    if (frames == NULL || samples == NULL) return -1;
    sample_count = (size_t)sf_readf_float(file, frames, info.frames);
    for (size_t frame = 0; frame < sample_count; frame++) samples[frame] = frames[frame * (size_t)info.channels];
    free(frames);
    sf_close(file);
    atomic_store(&position, sample_count);
    return 0;
}

int main(int argc, char **argv) {
    const char *app = "nav", *client_name = "nav-prompt", *socket_path = NULL;
    int count = 1, option;
    double rest = 5;
    while ((option = getopt(argc, argv, "a:n:s:c:r:")) != -1) {
        switch (option) {
        case 'a': app = optarg; break;
        case 'n': client_name = optarg; break;
        case 's': socket_path = optarg; break;
        case 'c': count = atoi(optarg); break;
        case 'r': rest = atof(optarg); break;
        default: fprintf(stderr, "usage: nav-prompt [-a APP] [-n CLIENT] [-s SOCKET] [-c COUNT] [-r SECONDS] FILE.wav\n"); return 64;
        }
    }
    if (optind != argc - 1) { fprintf(stderr, "usage: nav-prompt [-a APP] [-n CLIENT] [-s SOCKET] [-c COUNT] [-r SECONDS] FILE.wav\n"); return 64; }
    setvbuf(stdout, NULL, _IOLBF, 0);

    jack_client_t *client = jack_client_open(client_name, JackNoStartServer, NULL);
    if (client == NULL) { fprintf(stderr, "nav-prompt: no JACK server\n"); return 2; }
    if (load(argv[optind], jack_get_sample_rate(client)) != 0) return 1;
    port = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);

    char error[512];
    iaa_session *session;
    if (iaa_session_open(app, socket_path, on_event, NULL, &session, error, sizeof error) != IAA_SESSION_OK) {
        fprintf(stderr, "nav-prompt: %s\n", error);
        return 1;
    }
    if (iaa_session_set_category(session, "playback", "voicePrompt", IAA_SESSION_OPTION_DUCK_OTHERS) != IAA_SESSION_OK) {
        fprintf(stderr, "nav-prompt: %s\n", iaa_session_last_error(session));
        return 1;
    }
    jack_activate(client);
    for (int prompt = 0; count == 0 || prompt < count; prompt++) {
        if (prompt > 0) usleep((useconds_t)(rest * 1e6));
        iaa_session_status status = iaa_session_set_active(session, true, 0);
        if (status != IAA_SESSION_OK) {
            printf("refused %s\n", iaa_session_last_error(session));
            continue;
        }
        bool other = false;
        iaa_session_is_other_audio_playing(session, &other);
        printf("active otherAudioPlaying=%s\n", other ? "true" : "false");
        atomic_store_explicit(&position, 0, memory_order_release);
        while (atomic_load_explicit(&position, memory_order_acquire) < sample_count) usleep(10000);
        iaa_session_set_active(session, false, IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION);
        printf("done\n");
    }
    iaa_session_close(session);
    jack_client_close(client);
    return 0;
}
