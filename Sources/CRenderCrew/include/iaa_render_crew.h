/*
 * iaa_render_crew.h: the synchronisation of a cycle split across threads (docs/parallel.md).
 *
 * A crew is JACK's process thread (the leader) and a few worker threads. Each cycle the leader
 * opens the cycle, every thread takes tickets from it and runs the step each ticket holds, and the
 * leader closes it once every step has finished and every worker has left. Everything here is
 * atomics and futexes: no lock, no allocation, no call that may block except the futex waits,
 * which are the documented hand-overs.
 *
 * The queue: `queue[t]` holds the step of ticket t, or -1 while no step has been queued there yet
 * (-2: a thread sleeps on it). A step is queued exactly once a cycle, when its last source
 * finishes, so tickets 0..<count hold every step once; the leader queues the roots first.
 */
#ifndef IAA_RENDER_CREW_H
#define IAA_RENDER_CREW_H

#include <stdint.h>

/** A plan's dependency tables (read-only while it runs) and its per-cycle counters. */
typedef struct iaa_crew_plan {
    int32_t count;
    /** Per step: how many steps feed it (distinct sources inside the graph). */
    const int32_t *sources;
    /** Successors of step i: successors[first[i] ..< first[i + 1]]. */
    const int32_t *first;
    const int32_t *successors;
    /** Per step, per cycle: sources not yet finished; and the queue by ticket. */
    int32_t *remaining;
    int32_t *queue;
} iaa_crew_plan;

/** The crew's shared words. */
typedef struct iaa_crew {
    /** Bumped by the leader to start a cycle (and to stop); workers sleep on it. */
    uint32_t generation;
    /** 1 once the crew is asked to stop. */
    uint32_t stopping;
    /** 1 while the open cycle may be joined. */
    uint32_t open;
    /** Workers inside the open cycle. The leader sleeps on it, or on `finished`, to close the
     *  cycle, and says so in `leader_waits`. */
    uint32_t active;
    uint32_t leader_waits;
    /** The next ticket, and how many steps have finished. */
    int32_t head;
    int32_t tail;
    int32_t finished;
    /** The plan the open cycle runs. */
    iaa_crew_plan *plan;
} iaa_crew;

/** Leader: resets the plan's counters, queues its roots and wakes the workers. Realtime: safe. */
void iaa_crew_open(iaa_crew *crew, iaa_crew_plan *plan);
/** Any thread in the cycle: the next step to run, waiting for it to be queued; -1 when every
 *  ticket is taken. Realtime: safe (spins briefly, then sleeps on a futex). */
int32_t iaa_crew_next(iaa_crew *crew);
/** Any thread: `step` has finished; queues the successors it was the last source of. Realtime: safe. */
void iaa_crew_finish(iaa_crew *crew, int32_t step);
/** Leader: waits until every step has finished and every worker has left, then closes the cycle.
 *  Returns the nanoseconds it waited. Realtime: safe (the documented wait for the workers). */
uint64_t iaa_crew_close(iaa_crew *crew);

/** Worker: sleeps until the generation moves from `seen`; returns the new one. Not realtime work:
 *  this is where a worker waits between cycles. */
uint32_t iaa_crew_await(iaa_crew *crew, uint32_t seen);
/** Worker: joins the open cycle; 0 when it closed meanwhile (then leave at once). */
int iaa_crew_join(iaa_crew *crew);
/** Worker: leaves the cycle it joined. */
void iaa_crew_leave(iaa_crew *crew);
/** Control side: asks every worker to return from `iaa_crew_await`. */
void iaa_crew_stop(iaa_crew *crew);
/** Worker, once as it starts: names its thread "iaa worker N" (N from 1), as `ps -L`, `top -H`, gdb
 *  and the engine's crash line show it. Not realtime work. */
void iaa_crew_name_worker(int index);
/** Worker: whether the crew was asked to stop. */
static inline int iaa_crew_stopping(const iaa_crew *crew) { return (int)__atomic_load_n(&crew->stopping, __ATOMIC_ACQUIRE); }

#endif
