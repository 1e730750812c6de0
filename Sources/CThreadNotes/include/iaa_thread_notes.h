/*
 * iaa_thread_notes.h: what a rendering thread notes about itself, in thread-local words nothing
 * else writes:
 * - which app's node it runs, for the one line the engine writes when a plugin in its own process
 *   crashes it ("app "bad" crashed the engine with SIGSEGV …");
 * - how long it waited for isolated children this cycle, which is the engine's work done in
 *   another process: a cycle made late by a slow child is iaa's xrun, not the system's.
 *
 * Each plan owns one iaa_step_note: its app names and the step being run, which the control side
 * also reads (to name the app a stalled cycle is stuck in). While it renders, a thread points
 * its thread-local `iaa_rendering` at that note; a fatal signal on the thread reads it in the
 * handler (its own thread's word: no lock, no other thread's state) and then lets the signal take
 * its course (the previous handler, or the default: the process ends with the signal, exit status
 * 128 + N, as before).
 */
#ifndef IAA_THREAD_NOTES_H
#define IAA_THREAD_NOTES_H

/** A plan's app names in step order and the step its renderer runs (-1: none). */
typedef struct iaa_step_note {
    const char *const *names;
    long count;
    long step; /* atomic: written by the rendering thread, read by the control side */
} iaa_step_note;

/* initial-exec: a fixed offset from the thread pointer, so touching them never calls into the
 * dynamic loader (which may allocate) on the audio thread. */
extern _Thread_local iaa_step_note *iaa_rendering __attribute__((tls_model("initial-exec")));
extern _Thread_local unsigned long long iaa_waited_ns __attribute__((tls_model("initial-exec")));

/** The plan this thread starts rendering, or NULL when the cycle's work is over. Realtime: safe. */
static inline void iaa_note_rendering(iaa_step_note *note) { iaa_rendering = note; }
/** The step running now, or -1 between cycles. Realtime: safe. */
static inline void iaa_note_step(iaa_step_note *note, long step) { __atomic_store_n(&note->step, step, __ATOMIC_RELAXED); }
/** The step a plan's renderer runs (any thread). */
static inline long iaa_noted_step(const iaa_step_note *note) { return __atomic_load_n(&note->step, __ATOMIC_RELAXED); }

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
