/*
 * iaa_session.h — the session library: a program speaks for its iaa app.
 *
 * A program outside the engine (a media player, a navigation voice, a call) names the app the
 * graph gives it, sets its category, mode and options, activates and deactivates with Apple's
 * AVAudioSession result codes, reads isOtherAudioPlaying and secondaryAudioShouldBeSilencedHint,
 * and receives interruptions, route changes and media-services resets as callbacks.
 *
 * Threads: every call may be made from any thread (one request at a time per session); the
 * callback runs on a thread of the library's own, never on the caller's thread and never on the
 * program's audio thread, and may call the library. Link with -liaa-session (pkg-config
 * iaa-session). The protocol underneath is the engine's control protocol (PROTOCOL.md).
 */
#ifndef IAA_SESSION_H
#define IAA_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results: 0, Apple's OSStatus codes for AVAudioSession errors (four characters as an integer,
 * as AVAudioSession.ErrorCode holds them), or the library's own negative codes. */
typedef int32_t iaa_session_status;
#define IAA_SESSION_FOURCC(a, b, c, d) ((int32_t)(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d)))
enum {
    IAA_SESSION_OK = 0,
    IAA_SESSION_ERROR_CANNOT_INTERRUPT_OTHERS = IAA_SESSION_FOURCC('!', 'i', 'n', 't'),
    IAA_SESSION_ERROR_MISSING_ENTITLEMENT = IAA_SESSION_FOURCC('e', 'n', 't', '?'),
    IAA_SESSION_ERROR_INCOMPATIBLE_CATEGORY = IAA_SESSION_FOURCC('!', 'c', 'a', 't'),
    IAA_SESSION_ERROR_INSUFFICIENT_PRIORITY = IAA_SESSION_FOURCC('!', 'p', 'r', 'i'),
    IAA_SESSION_ERROR_SESSION_NOT_ACTIVE = IAA_SESSION_FOURCC('i', 'n', 'a', 'c'),
    IAA_SESSION_ERROR_IS_BUSY = IAA_SESSION_FOURCC('!', 'a', 'c', 't'),
    IAA_SESSION_ERROR_CANNOT_START_PLAYING = IAA_SESSION_FOURCC('!', 'p', 'l', 'a'),
    IAA_SESSION_ERROR_CANNOT_START_RECORDING = IAA_SESSION_FOURCC('!', 'r', 'e', 'c'),
    IAA_SESSION_ERROR_BAD_PARAM = -50,
    /* The library's own. */
    IAA_SESSION_ERROR_NO_ENGINE = -1,      /* no engine listens on the socket */
    IAA_SESSION_ERROR_REFUSED = -2,        /* the engine refused the request (iaa_session_last_error says why) */
    IAA_SESSION_ERROR_DISCONNECTED = -3,   /* the engine went away */
    IAA_SESSION_ERROR_INVALID = -4         /* a NULL or malformed argument */
};

/* Category options (AVAudioSession.CategoryOptions), or-ed together. */
enum {
    IAA_SESSION_OPTION_MIX_WITH_OTHERS = 1u << 0,
    IAA_SESSION_OPTION_DUCK_OTHERS = 1u << 1,
    IAA_SESSION_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS = 1u << 2,
    IAA_SESSION_OPTION_ALLOW_BLUETOOTH = 1u << 3,
    IAA_SESSION_OPTION_ALLOW_BLUETOOTH_A2DP = 1u << 4,
    IAA_SESSION_OPTION_ALLOW_AIR_PLAY = 1u << 5,
    IAA_SESSION_OPTION_DEFAULT_TO_SPEAKER = 1u << 6,
    IAA_SESSION_OPTION_OVERRIDE_MUTED_MICROPHONE_INTERRUPTION = 1u << 7
};

/* Deactivation options (AVAudioSession.SetActiveOptions). */
enum { IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION = 1u << 0 };

typedef enum {
    IAA_SESSION_EVENT_INTERRUPTION_BEGAN,
    IAA_SESSION_EVENT_INTERRUPTION_ENDED,       /* should_resume: AVAudioSession.InterruptionOptions.shouldResume */
    IAA_SESSION_EVENT_ROUTE_CHANGE,             /* reason: "oldDeviceUnavailable", "routeConfigurationChange", … */
    IAA_SESSION_EVENT_SILENCE_SECONDARY_AUDIO_HINT, /* begin: true when other audio asks to be heard alone */
    IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_LOST,
    IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_RESET,
    IAA_SESSION_EVENT_OTHER                     /* name: any other event of the app (suspended, resumed, …) */
} iaa_session_event_kind;

typedef struct {
    iaa_session_event_kind kind;
    const char *name;     /* the engine's event name ("interruption", "routeChange", …) */
    const char *reason;   /* the interruption's or route change's reason, or "" */
    bool should_resume;   /* interruption ended */
    bool begin;           /* silence secondary audio hint */
} iaa_session_event;

/* Valid only during the call. */
typedef void (*iaa_session_callback)(const iaa_session_event *event, void *user);

typedef struct iaa_session iaa_session;

/* Connects to the engine and attaches to app `app`: the engine checks that this process may be
 * that app (its uid and executable against the graph's program block). `socket_path` NULL means
 * $IAA_SOCKET, else the engine's default ($XDG_RUNTIME_DIR/iaa/iaa.sock, or /tmp/iaa-UID/iaa.sock).
 * On failure returns non-zero and writes why into `error` (when not NULL). */
iaa_session_status iaa_session_open(const char *app, const char *socket_path, iaa_session_callback callback,
                                    void *user, iaa_session **session, char *error, size_t error_size);

/* category: "ambient", "soloAmbient", "playback", "record", "playAndRecord", "multiRoute";
 * mode: NULL or "default", "voicePrompt", "spokenAudio", "voiceChat", "moviePlayback", … */
iaa_session_status iaa_session_set_category(iaa_session *session, const char *category, const char *mode,
                                            unsigned options);
/* Activating starts the app's audio; `options` on deactivation: IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION. */
iaa_session_status iaa_session_set_active(iaa_session *session, bool active, unsigned options);
iaa_session_status iaa_session_is_other_audio_playing(iaa_session *session, bool *playing);
iaa_session_status iaa_session_secondary_audio_should_be_silenced_hint(iaa_session *session, bool *hint);
/* Whether the engine hears the app now (not ducked to silence, interrupted or suspended), and its gain. */
iaa_session_status iaa_session_get_gain(iaa_session *session, float *gain);

/* The last failure's message ("('!int') app "music" is in the background…"); "" after a success. */
const char *iaa_session_last_error(iaa_session *session);

/* Detaches: an active session ends as if the program had exited (others are told). Waits for the
 * callback thread; do not call it from the callback. */
void iaa_session_close(iaa_session *session);

#ifdef __cplusplus
}
#endif
#endif
