/*
 * iaa_thread_notes.h: what a rendering thread notes about itself, in thread-local words nothing
 * else writes:
 * - which app's node it runs, for the one line the engine writes when a plugin in its own process
 *   crashes it ("app "bad" crashed the engine with SIGSEGV …");
 * - how long it waited for isolated children this cycle, which is the engine's work done in
 *   another process: a cycle made late by a slow child is iaa's xrun, not the system's.
 *
 * The renderer records, per thread, the plan's app names and the step it runs; a fatal signal
 * on that thread reads them in the handler (thread-local: no other thread's state, no lock) and
 * then lets the signal take its course (the previous handler, or the default: the process ends
 * with the signal, exit status 128 + N, as before).
 */
#ifndef IAA_CRASH_NOTE_H
#define IAA_CRASH_NOTE_H

/* initial-exec: a fixed offset from the thread pointer, so touching them never calls into the
 * dynamic loader (which may allocate) on the audio thread. */
extern _Thread_local const char *const *iaa_crash_names __attribute__((tls_model("initial-exec")));
extern _Thread_local long iaa_crash_step __attribute__((tls_model("initial-exec")));
extern _Thread_local unsigned long long iaa_waited_ns __attribute__((tls_model("initial-exec")));

/** The app names of the plan about to render, in step order (NULL when none). Realtime: safe. */
static inline void iaa_crash_note_plan(const char *const *names) { iaa_crash_names = names; }
/** The step running now, or -1 outside a node's work. Realtime: safe. */
static inline void iaa_crash_note_step(long step) { iaa_crash_step = step; }

/** Adds a wait for an isolated child (ns). Realtime: safe. */
static inline void iaa_note_wait(unsigned long long nanoseconds) { iaa_waited_ns += nanoseconds; }
/** The waits noted since the last call, and starts counting again. Realtime: safe. */
static inline unsigned long long iaa_take_waits(void) {
    unsigned long long waited = iaa_waited_ns;
    iaa_waited_ns = 0;
    return waited;
}

/** Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, keeping the handlers
 *  installed before it to pass the signal on to. Once, at start-up; 0 or an errno. */
int iaa_crash_note_install(void);

#endif
