/* For tools/bench: prints the CPU time (user + system, all threads, in nanoseconds) a running
 * process has used, read with clock_getcpuclockid(3); finer than /proc/PID/stat's clock ticks.
 *
 *   cputime PID
 *
 * Exits 1 when the process is gone or its clock cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cputime PID\n");
        return 64;
    }
    clockid_t clock;
    struct timespec time;
    if (clock_getcpuclockid((pid_t)atoi(argv[1]), &clock) != 0 || clock_gettime(clock, &time) != 0) {
        fprintf(stderr, "cputime: cannot read the CPU clock of process %s\n", argv[1]);
        return 1;
    }
    printf("%lld\n", (long long)time.tv_sec * 1000000000LL + time.tv_nsec);
    return 0;
}
