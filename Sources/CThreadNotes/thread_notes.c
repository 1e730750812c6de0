/* Thread notes and the fatal-signal line; see iaa_thread_notes.h. Only async-signal-safe calls in the handler. */
#define _GNU_SOURCE
#include "iaa_thread_notes.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

_Thread_local iaa_step_note *iaa_rendering __attribute__((tls_model("initial-exec"))) = NULL;
_Thread_local unsigned long long iaa_waited_ns __attribute__((tls_model("initial-exec"))) = 0;

static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal / sizeof fatal[0])
static struct sigaction previous[FATAL_COUNT];

static const char *signal_name(int number) {
    switch (number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "a signal";
    }
}

static void say(const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t written = write(2, text, left);
        if (written <= 0) return;
        text += written;
        left -= (size_t)written;
    }
}

static void on_fatal(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    const iaa_step_note *note = iaa_rendering;
    long step = note ? iaa_noted_step(note) : -1;
    if (step >= 0 && step < note->count) {
        const char *app = note->names[step];
        say("iaa: app \"");
        say(app ? app : "?");
        say("\" crashed the engine with ");
        say(signal_name(number));
        say(" in its process call");
        char thread[17] = {0};
        if (prctl(PR_GET_NAME, thread, 0, 0, 0) == 0) {
            say(" (thread \"");
            say(thread);
            say("\")");
        }
        say(", and every app stopped with it. Give it \"isolation\": \"process\" in the graph "
            "so that a crash silences only that app (README, \"Isolating plugins\").\n");
    }
    /* Hand the signal on: restore the handler we replaced and, for a signal that will not come
     * again by itself (sent with kill/tkill/raise, as abort does), raise it once more. A fault
     * raised by an instruction recurs when the handler returns and reaches that handler. */
    for (unsigned index = 0; index < FATAL_COUNT; index++) {
        if (fatal[index] == number) sigaction(number, &previous[index], NULL);
    }
    if (info == NULL || info->si_code <= 0) raise(number);
    errno = saved;
}

int iaa_crash_note_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (unsigned index = 0; index < FATAL_COUNT; index++) {
        if (sigaction(fatal[index], &action, &previous[index]) != 0) return errno;
    }
    return 0;
}
