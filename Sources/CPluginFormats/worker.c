// The LV2 worker: a plugin schedules work from run() (audio thread); a host thread calls its
// work() and the responses are handed back through work_response() before the next run().
// Both directions are single-producer single-consumer byte rings preallocated at creation, so
// the audio thread never allocates or locks; it only posts a semaphore.
#include "fx_internal.h"
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { RING_SIZE = 1 << 16 };

typedef struct ring {
    _Atomic size_t write, read;
    uint8_t bytes[RING_SIZE];
} ring;

struct iaa_fx_worker {
    LV2_Worker_Schedule schedule;
    const LV2_Worker_Interface *interface;
    LV2_Handle handle;
    ring requests, responses;
    sem_t wake;
    pthread_t thread;
    int running;
    _Atomic int stopping;
    uint8_t scratch[RING_SIZE];
};

static size_t ring_space(ring *r) {
    return RING_SIZE - (atomic_load_explicit(&r->write, memory_order_relaxed) -
                        atomic_load_explicit(&r->read, memory_order_acquire));
}

static void ring_copy_in(ring *r, size_t at, const void *data, size_t size) {
    for (size_t index = 0; index < size; index++) r->bytes[(at + index) % RING_SIZE] = ((const uint8_t *)data)[index];
}

static void ring_copy_out(ring *r, size_t at, void *data, size_t size) {
    for (size_t index = 0; index < size; index++) ((uint8_t *)data)[index] = r->bytes[(at + index) % RING_SIZE];
}

/// Writes one message (size, then bytes); fails when it does not fit.
static int ring_put(ring *r, uint32_t size, const void *data) {
    if (ring_space(r) < sizeof size + size) return 0;
    size_t at = atomic_load_explicit(&r->write, memory_order_relaxed);
    ring_copy_in(r, at, &size, sizeof size);
    ring_copy_in(r, at + sizeof size, data, size);
    atomic_store_explicit(&r->write, at + sizeof size + size, memory_order_release);
    return 1;
}

/// Reads one message into `data` (at most RING_SIZE bytes); returns its size, or -1 when empty.
static long ring_get(ring *r, void *data) {
    size_t at = atomic_load_explicit(&r->read, memory_order_relaxed);
    if (atomic_load_explicit(&r->write, memory_order_acquire) == at) return -1;
    uint32_t size;
    ring_copy_out(r, at, &size, sizeof size);
    ring_copy_out(r, at + sizeof size, data, size);
    atomic_store_explicit(&r->read, at + sizeof size + size, memory_order_release);
    return size;
}

static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data) {
    iaa_fx_worker *worker = handle;
    if (!worker->running || !ring_put(&worker->requests, size, data)) return LV2_WORKER_ERR_NO_SPACE;
    sem_post(&worker->wake);
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data) {
    iaa_fx_worker *worker = handle;
    return ring_put(&worker->responses, size, data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static void *work_loop(void *argument) {
    iaa_fx_worker *worker = argument;
    uint8_t *message = malloc(RING_SIZE);
    for (;;) {
        sem_wait(&worker->wake);
        if (atomic_load(&worker->stopping)) break;
        long size;
        while ((size = ring_get(&worker->requests, message)) >= 0) {
            worker->interface->work(worker->handle, respond, worker, (uint32_t)size, message);
        }
    }
    free(message);
    return NULL;
}

iaa_fx_worker *iaa_fx_worker_new(iaa_fx_instance *instance) {
    (void)instance;
    iaa_fx_worker *worker = calloc(1, sizeof *worker);
    worker->schedule.handle = worker;
    worker->schedule.schedule_work = schedule_work;
    sem_init(&worker->wake, 0, 0);
    return worker;
}

void iaa_fx_worker_start(iaa_fx_worker *worker, const LV2_Worker_Interface *interface, LV2_Handle handle) {
    if (!interface || !interface->work) return;
    worker->interface = interface;
    worker->handle = handle;
    worker->running = pthread_create(&worker->thread, NULL, work_loop, worker) == 0;
}

void iaa_fx_worker_free(iaa_fx_worker *worker) {
    if (!worker) return;
    if (worker->running) {
        atomic_store(&worker->stopping, 1);
        sem_post(&worker->wake);
        pthread_join(worker->thread, NULL);
    }
    sem_destroy(&worker->wake);
    free(worker);
}

LV2_Worker_Schedule *iaa_fx_worker_schedule(iaa_fx_worker *worker) { return &worker->schedule; }

void iaa_fx_worker_deliver(iaa_fx_worker *worker) {
    if (!worker || !worker->running || !worker->interface->work_response) return;
    long size;
    while ((size = ring_get(&worker->responses, worker->scratch)) >= 0) {
        worker->interface->work_response(worker->handle, (uint32_t)size, worker->scratch);
    }
}

void iaa_fx_worker_end_run(iaa_fx_worker *worker) {
    if (worker && worker->running && worker->interface->end_run) worker->interface->end_run(worker->handle);
}
