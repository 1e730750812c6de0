/* The session library: a client of the engine's control protocol (PROTOCOL.md) that speaks for
 * one program app. One reader thread owns the socket's input and hands replies to the waiting
 * caller and events to the dispatcher thread, which runs the program's callback: so a callback
 * may call the library (its request is answered through the reader), and no callback ever runs
 * on the caller's thread. json-c encodes and decodes the JSON lines. */
#define _GNU_SOURCE
#include "iaa_session.h"

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct pending_event {
    struct pending_event *next;
    json_object *payload; /* the line's "event" object */
} pending_event;

struct iaa_session {
    int fd;
    pthread_t reader;
    pthread_t dispatcher;
    /* Guards everything below it; `changed` is broadcast on every change. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* One request at a time: replies come back in order anyway, and one waiter keeps it simple. */
    pthread_mutex_t call_lock;
    int64_t next_id;
    int64_t awaited_id;
    json_object *reply;
    bool gone;
    bool stopping;
    pending_event *head, *tail;
    iaa_session_callback callback;
    void *user;
    char app[128];
    char error[1024];
};

static void set_error(char *buffer, size_t size, const char *format, const char *detail) {
    if (buffer == NULL || size == 0) return;
    snprintf(buffer, size, format, detail);
}

/* The engine's default socket: what `iaa` and `iaa run` use (SocketLocation in the engine). */
static void default_socket_path(char *path, size_t size) {
    const char *chosen = getenv("IAA_SOCKET");
    if (chosen != NULL && chosen[0] != '\0') {
        snprintf(path, size, "%s", chosen);
        return;
    }
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime != NULL && runtime[0] != '\0') {
        snprintf(path, size, "%s/iaa/iaa.sock", runtime);
    } else {
        snprintf(path, size, "/tmp/iaa-%u/iaa.sock", (unsigned)getuid());
    }
}

static void handle_line(iaa_session *session, const char *line) {
    json_object *object = json_tokener_parse(line);
    if (object == NULL) return;
    json_object *id = NULL, *event = NULL;
    pthread_mutex_lock(&session->lock);
    if (json_object_object_get_ex(object, "id", &id) && json_object_is_type(id, json_type_int)) {
        if (json_object_get_int64(id) == session->awaited_id && session->reply == NULL) {
            session->reply = object;
            object = NULL;
        }
    } else if (json_object_object_get_ex(object, "event", &event)) {
        pending_event *pending = calloc(1, sizeof *pending);
        if (pending != NULL) {
            pending->payload = json_object_get(event);
            if (session->tail != NULL) session->tail->next = pending; else session->head = pending;
            session->tail = pending;
        }
    }
    pthread_cond_broadcast(&session->changed);
    pthread_mutex_unlock(&session->lock);
    if (object != NULL) json_object_put(object);
}

static void *read_lines(void *argument) {
    iaa_session *session = argument;
    size_t capacity = 1 << 16, used = 0;
    char *buffer = malloc(capacity);
    while (buffer != NULL) {
        if (used + 1 >= capacity) {
            char *larger = realloc(buffer, capacity * 2);
            if (larger == NULL) break;
            buffer = larger;
            capacity *= 2;
        }
        ssize_t count = read(session->fd, buffer + used, capacity - used - 1);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        used += (size_t)count;
        size_t start = 0;
        for (size_t index = 0; index < used; index++) {
            if (buffer[index] != '\n') continue;
            buffer[index] = '\0';
            handle_line(session, buffer + start);
            start = index + 1;
        }
        memmove(buffer, buffer + start, used - start);
        used -= start;
    }
    free(buffer);
    pthread_mutex_lock(&session->lock);
    session->gone = true;
    pthread_cond_broadcast(&session->changed);
    pthread_mutex_unlock(&session->lock);
    return NULL;
}

static const char *member_string(json_object *object, const char *key) {
    json_object *value = NULL;
    if (!json_object_object_get_ex(object, key, &value) || !json_object_is_type(value, json_type_string)) return "";
    return json_object_get_string(value);
}

static void deliver(iaa_session *session, json_object *payload) {
    iaa_session_event event = {IAA_SESSION_EVENT_OTHER, member_string(payload, "name"), member_string(payload, "reason"),
                               false, false};
    const char *type = member_string(payload, "type");
    if (strcmp(event.name, "interruption") == 0) {
        event.kind = strcmp(type, "began") == 0 ? IAA_SESSION_EVENT_INTERRUPTION_BEGAN : IAA_SESSION_EVENT_INTERRUPTION_ENDED;
        json_object *options = NULL;
        if (json_object_object_get_ex(payload, "options", &options) && json_object_is_type(options, json_type_array)) {
            for (size_t index = 0; index < json_object_array_length(options); index++) {
                const char *option = json_object_get_string(json_object_array_get_idx(options, index));
                if (option != NULL && strcmp(option, "shouldResume") == 0) event.should_resume = true;
            }
        }
    } else if (strcmp(event.name, "routeChange") == 0) {
        event.kind = IAA_SESSION_EVENT_ROUTE_CHANGE;
    } else if (strcmp(event.name, "silenceSecondaryAudioHint") == 0) {
        event.kind = IAA_SESSION_EVENT_SILENCE_SECONDARY_AUDIO_HINT;
        event.begin = strcmp(type, "begin") == 0;
    } else if (strcmp(event.name, "mediaServicesWereLost") == 0) {
        event.kind = IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_LOST;
    } else if (strcmp(event.name, "mediaServicesWereReset") == 0) {
        event.kind = IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_RESET;
    }
    if (session->callback != NULL) session->callback(&event, session->user);
}

static void *dispatch_events(void *argument) {
    iaa_session *session = argument;
    pthread_mutex_lock(&session->lock);
    for (;;) {
        while (session->head == NULL && !session->stopping) pthread_cond_wait(&session->changed, &session->lock);
        if (session->head == NULL) break;
        pending_event *pending = session->head;
        session->head = pending->next;
        if (session->head == NULL) session->tail = NULL;
        pthread_mutex_unlock(&session->lock);
        deliver(session, pending->payload);
        json_object_put(pending->payload);
        free(pending);
        pthread_mutex_lock(&session->lock);
    }
    pthread_mutex_unlock(&session->lock);
    return NULL;
}

/* AVAudioSession's codes by the engine's error code names. */
static iaa_session_status status_for(const char *code) {
    static const struct { const char *name; iaa_session_status status; } table[] = {
        {"cannotInterruptOthers", IAA_SESSION_ERROR_CANNOT_INTERRUPT_OTHERS},
        {"missingEntitlement", IAA_SESSION_ERROR_MISSING_ENTITLEMENT},
        {"incompatibleCategory", IAA_SESSION_ERROR_INCOMPATIBLE_CATEGORY},
        {"insufficientPriority", IAA_SESSION_ERROR_INSUFFICIENT_PRIORITY},
        {"sessionNotActive", IAA_SESSION_ERROR_SESSION_NOT_ACTIVE},
        {"isBusy", IAA_SESSION_ERROR_IS_BUSY},
        {"cannotStartPlaying", IAA_SESSION_ERROR_CANNOT_START_PLAYING},
        {"cannotStartRecording", IAA_SESSION_ERROR_CANNOT_START_RECORDING},
        {"badParam", IAA_SESSION_ERROR_BAD_PARAM},
    };
    for (size_t index = 0; index < sizeof table / sizeof table[0]; index++) {
        if (strcmp(code, table[index].name) == 0) return table[index].status;
    }
    return IAA_SESSION_ERROR_REFUSED;
}

/* Sends one request (taking `params`) and waits for its reply; on success *result holds the
 * reply's "result" (a new reference) when result is not NULL. */
static iaa_session_status call(iaa_session *session, const char *method, json_object *params, json_object **result) {
    pthread_mutex_lock(&session->call_lock);
    pthread_mutex_lock(&session->lock);
    int64_t id = ++session->next_id;
    session->awaited_id = id;
    bool gone = session->gone;
    pthread_mutex_unlock(&session->lock);

    json_object *request = json_object_new_object();
    json_object_object_add(request, "id", json_object_new_int64(id));
    json_object_object_add(request, "method", json_object_new_string(method));
    json_object_object_add(request, "params", params);
    const char *text = json_object_to_json_string_ext(request, JSON_C_TO_STRING_PLAIN);
    size_t length = strlen(text), sent = 0;
    while (!gone && sent <= length) {
        /* The text, then its newline. */
        ssize_t count = sent < length ? send(session->fd, text + sent, length - sent, MSG_NOSIGNAL)
                                      : send(session->fd, "\n", 1, MSG_NOSIGNAL);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) { gone = true; break; }
        sent += (size_t)count;
    }
    json_object_put(request);

    json_object *reply = NULL;
    pthread_mutex_lock(&session->lock);
    while (!gone && session->reply == NULL && !session->gone) pthread_cond_wait(&session->changed, &session->lock);
    reply = session->reply;
    session->reply = NULL;
    session->awaited_id = 0;
    pthread_mutex_unlock(&session->lock);
    pthread_mutex_unlock(&session->call_lock);

    if (reply == NULL) {
        snprintf(session->error, sizeof session->error, "the engine closed the connection (it stopped, or refused this program)");
        return IAA_SESSION_ERROR_DISCONNECTED;
    }
    json_object *error = NULL, *value = NULL;
    iaa_session_status status = IAA_SESSION_OK;
    if (json_object_object_get_ex(reply, "error", &error)) {
        status = status_for(member_string(error, "code"));
        snprintf(session->error, sizeof session->error, "%s: %s", member_string(error, "code"), member_string(error, "message"));
    } else {
        session->error[0] = '\0';
        if (result != NULL && json_object_object_get_ex(reply, "result", &value)) *result = json_object_get(value);
    }
    json_object_put(reply);
    return status;
}

static json_object *app_params(iaa_session *session) {
    json_object *params = json_object_new_object();
    json_object_object_add(params, "app", json_object_new_string(session->app));
    return params;
}

iaa_session_status iaa_session_open(const char *app, const char *socket_path, iaa_session_callback callback,
                                    void *user, iaa_session **out, char *error, size_t error_size) {
    if (app == NULL || out == NULL || strlen(app) >= sizeof ((iaa_session *)0)->app) {
        set_error(error, error_size, "%s", "iaa_session_open needs an app id (at most 127 bytes) and a place for the session");
        return IAA_SESSION_ERROR_INVALID;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (socket_path != NULL) snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path);
    else default_socket_path(address.sun_path, sizeof address.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        char detail[256 + sizeof address.sun_path];
        snprintf(detail, sizeof detail, "%s (%s)", address.sun_path, strerror(errno));
        set_error(error, error_size, "no iaa engine listens on %s; start one with `iaa run GRAPH`, or pass the socket path", detail);
        if (fd >= 0) close(fd);
        return IAA_SESSION_ERROR_NO_ENGINE;
    }
    iaa_session *session = calloc(1, sizeof *session);
    if (session == NULL) {
        close(fd);
        set_error(error, error_size, "%s", "out of memory");
        return IAA_SESSION_ERROR_INVALID;
    }
    session->fd = fd;
    session->callback = callback;
    session->user = user;
    snprintf(session->app, sizeof session->app, "%s", app);
    pthread_mutex_init(&session->lock, NULL);
    pthread_mutex_init(&session->call_lock, NULL);
    pthread_cond_init(&session->changed, NULL);
    pthread_create(&session->reader, NULL, read_lines, session);
    pthread_create(&session->dispatcher, NULL, dispatch_events, session);
    iaa_session_status status = call(session, "program.attach", app_params(session), NULL);
    if (status != IAA_SESSION_OK) {
        set_error(error, error_size, "%s", session->error);
        iaa_session_close(session);
        return status;
    }
    *out = session;
    return IAA_SESSION_OK;
}

iaa_session_status iaa_session_set_category(iaa_session *session, const char *category, const char *mode, unsigned options) {
    if (session == NULL || category == NULL) return IAA_SESSION_ERROR_INVALID;
    static const char *names[] = {"mixWithOthers", "duckOthers", "interruptSpokenAudioAndMixWithOthers", "allowBluetooth",
                                  "allowBluetoothA2DP", "allowAirPlay", "defaultToSpeaker", "overrideMutedMicrophoneInterruption"};
    json_object *params = app_params(session);
    json_object_object_add(params, "category", json_object_new_string(category));
    if (mode != NULL) json_object_object_add(params, "mode", json_object_new_string(mode));
    json_object *list = json_object_new_array();
    for (unsigned bit = 0; bit < sizeof names / sizeof names[0]; bit++) {
        if (options & (1u << bit)) json_object_array_add(list, json_object_new_string(names[bit]));
    }
    json_object_object_add(params, "options", list);
    return call(session, "session.setCategory", params, NULL);
}

iaa_session_status iaa_session_set_active(iaa_session *session, bool active, unsigned options) {
    if (session == NULL) return IAA_SESSION_ERROR_INVALID;
    json_object *params = app_params(session);
    if (!active && (options & IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION)) {
        json_object_object_add(params, "notifyOthers", json_object_new_boolean(1));
    }
    return call(session, active ? "session.activate" : "session.deactivate", params, NULL);
}

/* Reads one member of the app's session state. */
static iaa_session_status session_member(iaa_session *session, const char *key, json_object **value) {
    json_object *result = NULL, *state = NULL, *member = NULL;
    iaa_session_status status = call(session, "session.get", app_params(session), &result);
    if (status != IAA_SESSION_OK) return status;
    if (json_object_object_get_ex(result, "session", &state) && json_object_object_get_ex(state, key, &member)) {
        *value = json_object_get(member);
    } else {
        snprintf(session->error, sizeof session->error, "the engine's session state has no \"%s\"", key);
        status = IAA_SESSION_ERROR_REFUSED;
    }
    json_object_put(result);
    return status;
}

static iaa_session_status session_flag(iaa_session *session, const char *key, bool *flag) {
    if (session == NULL || flag == NULL) return IAA_SESSION_ERROR_INVALID;
    json_object *value = NULL;
    iaa_session_status status = session_member(session, key, &value);
    if (status == IAA_SESSION_OK) {
        *flag = json_object_get_boolean(value);
        json_object_put(value);
    }
    return status;
}

iaa_session_status iaa_session_is_other_audio_playing(iaa_session *session, bool *playing) {
    return session_flag(session, "otherAudioPlaying", playing);
}

iaa_session_status iaa_session_secondary_audio_should_be_silenced_hint(iaa_session *session, bool *hint) {
    return session_flag(session, "secondaryAudioShouldBeSilencedHint", hint);
}

iaa_session_status iaa_session_get_gain(iaa_session *session, float *gain) {
    if (session == NULL || gain == NULL) return IAA_SESSION_ERROR_INVALID;
    json_object *value = NULL;
    iaa_session_status status = session_member(session, "gain", &value);
    if (status == IAA_SESSION_OK) {
        *gain = (float)json_object_get_double(value);
        json_object_put(value);
    }
    return status;
}

const char *iaa_session_last_error(iaa_session *session) {
    return session == NULL ? "no session" : session->error;
}

void iaa_session_close(iaa_session *session) {
    if (session == NULL) return;
    shutdown(session->fd, SHUT_RDWR);
    pthread_join(session->reader, NULL);
    pthread_mutex_lock(&session->lock);
    session->stopping = true;
    pthread_cond_broadcast(&session->changed);
    pthread_mutex_unlock(&session->lock);
    pthread_join(session->dispatcher, NULL);
    while (session->head != NULL) {
        pending_event *next = session->head->next;
        json_object_put(session->head->payload);
        free(session->head);
        session->head = next;
    }
    if (session->reply != NULL) json_object_put(session->reply);
    close(session->fd);
    pthread_mutex_destroy(&session->lock);
    pthread_mutex_destroy(&session->call_lock);
    pthread_cond_destroy(&session->changed);
    free(session);
}
