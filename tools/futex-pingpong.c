/* The floor under an isolated node's hand-over on this machine: two processes pinned to one CPU
 * hand a turn back and forth through two process-shared futex words in shared memory, as the
 * engine's audio thread and an isolated child do every cycle (docs/isolation.md), with no audio
 * work at all. Prints the CPU time of both processes per round trip.
 *
 *   cc -O2 -o /tmp/futex-pingpong tools/futex-pingpong.c && /tmp/futex-pingpong [ROUNDS] [CPU]
 *
 * Run as root (or with rtprio) to use SCHED_FIFO as the engine does; otherwise it says so and runs
 * at normal priority. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void futex_wait(_Atomic uint32_t *word, uint32_t expected) {
    while (atomic_load(word) == expected) syscall(SYS_futex, word, FUTEX_WAIT, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0); }

static double cpu_seconds(int who) {
    struct rusage usage;
    getrusage(who, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static int setup(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
    struct sched_param param = {.sched_priority = 70};
    return sched_setscheduler(0, SCHED_FIFO, &param) == 0;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    int cpu = argc > 2 ? atoi(argv[2]) : 0;
    /* request: the engine's turn counter for the child; reply: the child's answer. */
    _Atomic uint32_t *words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (words == MAP_FAILED) return perror("mmap"), 1;
    _Atomic uint32_t *request = &words[0], *reply = &words[16];
    int fifo = setup(cpu);
    pid_t child = fork();
    if (child == 0) {
        setup(cpu);
        for (uint32_t turn = 1; turn <= (uint32_t)rounds; turn++) {
            futex_wait(request, turn - 1);
            atomic_store(reply, turn);
            futex_wake(reply);
        }
        _exit(0);
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double before = cpu_seconds(RUSAGE_SELF);
    for (uint32_t turn = 1; turn <= (uint32_t)rounds; turn++) {
        atomic_store(request, turn);
        futex_wake(request);
        futex_wait(reply, turn - 1);
    }
    double engine = cpu_seconds(RUSAGE_SELF) - before;
    waitpid(child, NULL, 0);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double both = engine + cpu_seconds(RUSAGE_CHILDREN);
    double wall = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("futex ping-pong, 2 processes pinned to CPU %d, %s: %ld round trips\n", cpu,
           fifo ? "SCHED_FIFO 70" : "normal priority (no permission for SCHED_FIFO)", rounds);
    printf("CPU per round trip (both processes): %.2f us; wall per round trip: %.2f us\n",
           both / rounds * 1e6, wall / rounds * 1e6);
    return 0;
}
