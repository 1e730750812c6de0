/* The crew's atomics and futexes (iaa_render_crew.h). C, because futex(2) has no wrapper Swift can
 * call (syscall is variadic), and the waits want the same words the atomics use. */
#define _GNU_SOURCE
#include "iaa_render_crew.h"

#include <linux/futex.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Spins before sleeping: a step queued by another thread usually arrives within a few µs, and a
 * futex sleep and wake costs more than that. */
enum { SPINS = 2000 };

static void futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(uint32_t *word, int count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

static inline void pause_cpu(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void push(iaa_crew *crew, int32_t step) {
    iaa_crew_plan *plan = crew->plan;
    int32_t ticket = __atomic_fetch_add(&crew->tail, 1, __ATOMIC_RELAXED);
    int32_t previous = __atomic_exchange_n(&plan->queue[ticket], step, __ATOMIC_RELEASE);
    if (previous == -2) futex_wake((uint32_t *)&plan->queue[ticket], 1);
}

void iaa_crew_open(iaa_crew *crew, iaa_crew_plan *plan) {
    for (int32_t i = 0; i < plan->count; i++) {
        plan->remaining[i] = plan->sources[i];
        plan->queue[i] = -1;
    }
    crew->plan = plan;
    crew->head = 0;
    crew->tail = 0;
    crew->finished = 0;
    for (int32_t i = 0; i < plan->count; i++) {
        if (plan->sources[i] == 0) push(crew, i);
    }
    __atomic_store_n(&crew->open, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&crew->generation, 1, __ATOMIC_RELEASE);
    futex_wake(&crew->generation, 1 << 30);
}

int32_t iaa_crew_next(iaa_crew *crew) {
    iaa_crew_plan *plan = crew->plan;
    int32_t ticket = __atomic_fetch_add(&crew->head, 1, __ATOMIC_RELAXED);
    if (ticket >= plan->count) return -1;
    int32_t *slot = &plan->queue[ticket];
    for (int spin = 0; spin < SPINS; spin++) {
        int32_t step = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (step >= 0) return step;
        pause_cpu();
    }
    for (;;) {
        int32_t expected = -1;
        /* Say a thread sleeps here, unless the step arrived meanwhile. */
        __atomic_compare_exchange_n(slot, &expected, -2, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
        int32_t step = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (step >= 0) return step;
        futex_wait((uint32_t *)slot, (uint32_t)-2);
    }
}

void iaa_crew_finish(iaa_crew *crew, int32_t step) {
    iaa_crew_plan *plan = crew->plan;
    for (int32_t i = plan->first[step]; i < plan->first[step + 1]; i++) {
        int32_t next = plan->successors[i];
        if (__atomic_sub_fetch(&plan->remaining[next], 1, __ATOMIC_ACQ_REL) == 0) push(crew, next);
    }
    int32_t finished = __atomic_add_fetch(&crew->finished, 1, __ATOMIC_SEQ_CST);
    if (finished == plan->count && __atomic_load_n(&crew->leader_waits, __ATOMIC_SEQ_CST))
        futex_wake((uint32_t *)&crew->finished, 1);
}

uint64_t iaa_crew_close(iaa_crew *crew) {
    iaa_crew_plan *plan = crew->plan;
    uint64_t started = 0;
    /* Every ticket is taken (the leader's last `next` said so); the last steps may still run. */
    for (int spin = 0;; spin++) {
        int32_t finished = __atomic_load_n(&crew->finished, __ATOMIC_SEQ_CST);
        if (finished >= plan->count) break;
        if (started == 0) started = now_ns();
        if (spin < SPINS) { pause_cpu(); continue; }
        __atomic_store_n(&crew->leader_waits, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&crew->finished, __ATOMIC_SEQ_CST) == finished)
            futex_wait((uint32_t *)&crew->finished, (uint32_t)finished);
        __atomic_store_n(&crew->leader_waits, 0, __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(&crew->open, 0, __ATOMIC_SEQ_CST);
    /* A worker that joined before the store above is counted in `active`; one that joins after
     * it sees the cycle closed and leaves without touching the plan. */
    for (int spin = 0;; spin++) {
        uint32_t active = __atomic_load_n(&crew->active, __ATOMIC_SEQ_CST);
        if (active == 0) break;
        if (started == 0) started = now_ns();
        if (spin < SPINS) { pause_cpu(); continue; }
        __atomic_store_n(&crew->leader_waits, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&crew->active, __ATOMIC_SEQ_CST) != 0) futex_wait(&crew->active, active);
        __atomic_store_n(&crew->leader_waits, 0, __ATOMIC_SEQ_CST);
    }
    return started == 0 ? 0 : now_ns() - started;
}

uint32_t iaa_crew_await(iaa_crew *crew, uint32_t seen) {
    for (int spin = 0; spin < SPINS; spin++) {
        uint32_t generation = __atomic_load_n(&crew->generation, __ATOMIC_ACQUIRE);
        if (generation != seen) return generation;
        pause_cpu();
    }
    for (;;) {
        uint32_t generation = __atomic_load_n(&crew->generation, __ATOMIC_ACQUIRE);
        if (generation != seen) return generation;
        futex_wait(&crew->generation, seen);
    }
}

int iaa_crew_join(iaa_crew *crew) {
    __atomic_fetch_add(&crew->active, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&crew->open, __ATOMIC_SEQ_CST)) return 1;
    iaa_crew_leave(crew);
    return 0;
}

void iaa_crew_leave(iaa_crew *crew) {
    __atomic_fetch_sub(&crew->active, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&crew->leader_waits, __ATOMIC_SEQ_CST)) futex_wake(&crew->active, 1);
}

void iaa_crew_name_worker(int index) {
    char name[16];
    snprintf(name, sizeof name, "iaa worker %d", index + 1);
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

void iaa_crew_stop(iaa_crew *crew) {
    __atomic_store_n(&crew->stopping, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&crew->generation, 1, __ATOMIC_RELEASE);
    futex_wake(&crew->generation, 1 << 30);
}
