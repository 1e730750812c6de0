/* nav-prompt: a navigation voice as an iaa program app. It plays a sound file (speech rendered by
 * espeak-ng, say) through its own JACK client whenever a prompt is due, with an audio session in
 * category playback, mode voicePrompt and option duckOthers: while it speaks, the engine ducks the
 * other apps; when it is done it deactivates with notifyOthersOnDeactivation.
 *
 *   espeak-ng -w turn.wav "In two hundred metres, turn left"
 *   nav-prompt -a nav -n nav-prompt -c 3 -r 5 turn.wav      (prompts start at 0, 5 and 10 s)
 *
 * Options: -a APP (default nav), -n JACK client name (default nav-prompt), -s control socket,
 * -c prompts (default 1, 0 = forever), -r seconds from one prompt's start to the next's (default
 * 5; a prompt longer than that is followed by the next at once). A file at another rate than
 * JACK's (espeak-ng writes 22,050 Hz) is resampled when it is loaded; a stereo file plays its
 * first channel. Without an engine listening yet (started just before, with `iaa run … &`) it
 * waits up to 10 s for one. Events from the engine are printed on stdout, one per line ("event
 * interruption began"). The JACK port is left unconnected: the engine routes it through the app. */
#include <iaa_session.h>
#include <jack/jack.h>
#include <sndfile.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* The file's first channel at JACK's rate: linear interpolation, plenty for a voice prompt. */
static int load(const char *path, jack_nframes_t rate) {
    SF_INFO info = {0};
    SNDFILE *file = sf_open(path, SFM_READ, &info);
    if (file == NULL) {
        fprintf(stderr, "nav-prompt: cannot read %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    float *frames = malloc(sizeof(float) * (size_t)info.frames * (size_t)info.channels);
    float *mono = malloc(sizeof(float) * (size_t)info.frames + sizeof(float));
    if (frames == NULL || mono == NULL) return -1;
    size_t count = (size_t)sf_readf_float(file, frames, info.frames);
    sf_close(file);
    for (size_t frame = 0; frame < count; frame++) mono[frame] = frames[frame * (size_t)info.channels];
    free(frames);
    double step = (double)info.samplerate / rate; /* file frames per JACK frame */
    sample_count = count == 0 ? 0 : (size_t)((double)(count - 1) / step) + 1;
    samples = malloc(sizeof(float) * (sample_count + 1));
    if (samples == NULL) return -1;
    for (size_t frame = 0; frame < sample_count; frame++) {
        double at = frame * step;
        size_t index = (size_t)at;
        double fraction = at - (double)index;
        float next = index + 1 < count ? mono[index + 1] : mono[index];
        samples[frame] = (float)((1 - fraction) * mono[index] + fraction * next);
    }
    free(mono);
    atomic_store(&position, sample_count);
    return 0;
}

/* Seconds on the monotonic clock. */
static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

/* Sleeps until `when` on the monotonic clock (at once when it has passed). */
static void sleep_until(double when) {
    struct timespec time = {.tv_sec = (time_t)when, .tv_nsec = (long)((when - (double)(time_t)when) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, NULL) != 0) {}
}

static const char usage[] =
    "usage: nav-prompt [-a APP] [-n CLIENT] [-s SOCKET] [-c COUNT] [-r SECONDS] FILE\n"
    "Plays FILE (a sound file at any rate; the first channel) as app APP's voice prompt, COUNT times.\n"
    "  -a APP      the program app it speaks for (default nav)\n"
    "  -n CLIENT   its JACK client name (default nav-prompt)\n"
    "  -s SOCKET   the engine's control socket (default: the iaa engine's)\n"
    "  -c COUNT    how many prompts (default 1, 0 = forever)\n"
    "  -r SECONDS  from one prompt's start to the next's (default 5)\n";

int main(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *app = "nav", *client_name = "nav-prompt", *socket_path = NULL;
    int count = 1, option;
    double period = 5;
    while ((option = getopt(argc, argv, "a:n:s:c:r:")) != -1) {
        switch (option) {
        case 'a': app = optarg; break;
        case 'n': client_name = optarg; break;
        case 's': socket_path = optarg; break;
        case 'c': count = atoi(optarg); break;
        case 'r': period = atof(optarg); break;
        default: fputs(usage, stderr); return 64;
        }
    }
    if (optind != argc - 1) { fputs(usage, stderr); return 64; }
    setvbuf(stdout, NULL, _IOLBF, 0);

    jack_client_t *client = jack_client_open(client_name, JackNoStartServer, NULL);
    if (client == NULL) { fprintf(stderr, "nav-prompt: no JACK server\n"); return 2; }
    if (load(argv[optind], jack_get_sample_rate(client)) != 0) return 1;
    port = jack_port_register(client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(client, process, NULL);

    char error[512];
    iaa_session *session;
    iaa_session_status opened;
    double give_up = now() + 10;
    while ((opened = iaa_session_open(app, socket_path, on_event, NULL, &session, error, sizeof error)) == IAA_SESSION_ERROR_NO_ENGINE
           && now() < give_up)
        usleep(100000);
    if (opened != IAA_SESSION_OK) {
        fprintf(stderr, "nav-prompt: %s\n", error);
        return 1;
    }
    if (iaa_session_set_category(session, "playback", "voicePrompt", IAA_SESSION_OPTION_DUCK_OTHERS) != IAA_SESSION_OK) {
        fprintf(stderr, "nav-prompt: %s\n", iaa_session_last_error(session));
        return 1;
    }
    jack_activate(client);
    double start = now();
    /* A prompt that ran past its period delays the ones after it; they do not catch up in a burst. */
    for (int prompt = 0; count == 0 || prompt < count; prompt++, start = start + period > now() ? start + period : now()) {
        sleep_until(start);
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
