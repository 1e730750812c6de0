/* The system calls behind process isolation; see iaa_isolation.h and docs/isolation.md. */
#define _GNU_SOURCE
#include "iaa_isolation.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static size_t align_up(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

iaa_isolation_layout iaa_isolation_layout_for(uint32_t inputs, uint32_t outputs, uint32_t parameters, uint32_t max_frames) {
    iaa_isolation_layout layout;
    layout.ramps = align_up(sizeof(iaa_isolation_header), 64);
    layout.midi = align_up(layout.ramps + sizeof(iaa_ramp) * (parameters ? parameters : 1), 64);
    layout.inputs = align_up(layout.midi + sizeof(iaa_midi_event) * IAA_ISOLATION_MIDI_CAPACITY, 64);
    size_t block = align_up(sizeof(float) * max_frames, 64);
    layout.outputs = layout.inputs + block * inputs;
    layout.total = align_up(layout.outputs + block * outputs, 4096);
    return layout;
}

int iaa_isolation_segment_create(size_t size) {
    int fd = (int)syscall(SYS_memfd_create, "iaa-isolated-node", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    /* Neither side can shrink it under the other's mapping (a SIGBUS in the engine otherwise). */
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    return fd;
}

void *iaa_isolation_segment_map(int fd, size_t size) {
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return base == MAP_FAILED ? NULL : base;
}

void iaa_isolation_segment_unmap(void *base, size_t size) {
    if (base) munmap(base, size);
}

int iaa_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec timeout, *limit = NULL;
    if (timeout_ns >= 0) {
        timeout.tv_sec = (time_t)(timeout_ns / 1000000000);
        timeout.tv_nsec = (long)(timeout_ns % 1000000000);
        limit = &timeout;
    }
    if (syscall(SYS_futex, word, FUTEX_WAIT, expected, limit, NULL, 0) == 0) return 0;
    return errno == EAGAIN ? 0 : errno;
}

int iaa_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns) {
    struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time, which every hand-over of a
     * cycle can share with the anchor; FUTEX_WAKE wakes it (the bitset matches any). */
    if (syscall(SYS_futex, word, FUTEX_WAIT_BITSET, expected, &until, NULL, FUTEX_BITSET_MATCH_ANY) == 0) return 0;
    return errno == EAGAIN ? 0 : errno;
}

iaa_deadline_anchor iaa_deadline_anchor_make(void) {
    iaa_deadline_anchor anchor = {timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK), 0};
    return anchor;
}

void iaa_deadline_anchor_cover(iaa_deadline_anchor *anchor, uint64_t deadline_ns, uint64_t now_ns) {
    if (anchor->fd < 0 || (anchor->armed_until > now_ns && anchor->armed_until <= deadline_ns)) return;
    struct itimerspec when = {{0, 0}, {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)}};
    if (timerfd_settime(anchor->fd, TFD_TIMER_ABSTIME, &when, NULL) == 0) anchor->armed_until = deadline_ns;
}

void iaa_deadline_anchor_close(iaa_deadline_anchor *anchor) {
    if (anchor->fd >= 0) close(anchor->fd);
    anchor->fd = -1;
}

void iaa_futex_wake(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

int iaa_current_cpu(void) { return sched_getcpu(); }

int iaa_pin_thread(unsigned long thread, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np((pthread_t)thread, sizeof set, &set);
}

int iaa_pin_process(pid_t pid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(pid, sizeof set, &set) == 0 ? 0 : errno;
}

int iaa_retire_process(pid_t pid) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) CPU_SET(cpu, &set);
    /* Fails for CPUs a cpuset withholds only when none is allowed; the kernel masks the rest. */
    int failed = sched_setaffinity(pid, sizeof set, &set) == 0 ? 0 : errno;
    struct sched_param idle = {0};
    if (sched_setscheduler(pid, SCHED_IDLE, &idle) != 0 && failed == 0) failed = errno;
    return failed;
}

int iaa_isolation_output_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }

pid_t iaa_isolation_spawn(const char *path, char *const argv[], int segment_fd, int output_fd,
                          const iaa_child_limits *limits, int *pidfd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* The child, until exec: async-signal-safe calls only. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);  /* the engine died before PDEATHSIG was set */
        /* Out of the way of descriptors 0 to 3 before they are filled. */
        if (output_fd >= 0 && output_fd <= IAA_ISOLATION_SEGMENT_FD) {
            output_fd = fcntl(output_fd, F_DUPFD_CLOEXEC, IAA_ISOLATION_SEGMENT_FD + 1);
            if (output_fd < 0) _exit(127);
        }
        if (segment_fd < 0) {
            /* A helper program without a segment: descriptor 3 is closed with the rest. */
        } else if (segment_fd == IAA_ISOLATION_SEGMENT_FD) {
            /* dup2 onto itself would keep close-on-exec. */
            if (fcntl(segment_fd, F_SETFD, 0) != 0) _exit(127);
        } else if (dup2(segment_fd, IAA_ISOLATION_SEGMENT_FD) < 0) {
            _exit(127);
        }
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        /* The child's output goes to the engine through the pipe, which tags every line; the
         * engine's own stderr is out of its reach. dup2 clears close-on-exec on the copies. */
        if (output_fd >= 0 && (dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0)) _exit(127);
        /* Everything else goes: the control socket, JACK's sockets and shm, lock files. */
        int keep = segment_fd < 0 ? 2 : IAA_ISOLATION_SEGMENT_FD;
        if (syscall(SYS_close_range, keep + 1, ~0u, 0) != 0) {
            for (int fd = keep + 1; fd < 65536; fd++) close(fd);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct rlimit zero = {0, 0};
        setrlimit(RLIMIT_CORE, &zero);
        if (limits && limits->address_space) {
            struct rlimit memory = {limits->address_space, limits->address_space};
            setrlimit(RLIMIT_AS, &memory);
        }
        if (limits && limits->open_files) {
            struct rlimit files = {limits->open_files, limits->open_files};
            setrlimit(RLIMIT_NOFILE, &files);
        }
        execv(path, argv);
        _exit(127);
    }
    if (pidfd) *pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    return pid;
}

int iaa_isolation_poll_child_output(int pidfd, int wakeup, int output, int timeout_ms) {
    /* A negative descriptor is ignored by poll. */
    struct pollfd entries[3] = {{wakeup, POLLIN, 0}, {pidfd, POLLIN, 0}, {output, POLLIN, 0}};
    int ready = poll(entries, 3, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -1;
    if (wakeup >= 0 && (entries[0].revents & POLLIN)) {
        uint64_t count;
        ssize_t drained = read(wakeup, &count, sizeof count);
        (void)drained;
    }
    int seen = 0;
    if (pidfd >= 0 && (entries[1].revents & (POLLIN | POLLHUP))) seen |= IAA_POLL_CHILD_ENDED;
    if (output >= 0 && (entries[2].revents & (POLLIN | POLLHUP | POLLERR))) seen |= IAA_POLL_CHILD_OUTPUT;
    return seen;
}

int iaa_wait_signal(int status) { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }

int iaa_wait_exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 0; }

int iaa_isolation_poll_exit(int pidfd, int timeout_ms) {
    int seen = iaa_isolation_poll_child_output(pidfd, -1, -1, timeout_ms);
    return seen < 0 ? -1 : (seen & IAA_POLL_CHILD_ENDED ? 1 : 0);
}

int iaa_wakeup_make(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void iaa_wakeup_signal(int fd) {
    if (fd < 0) return;
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

int iaa_isolation_reap(pid_t pid, int *status) {
    int result = waitpid(pid, status, WNOHANG);
    if (result < 0) return -1;
    return result == pid ? 1 : 0;
}

const char *iaa_isolation_signal_name(int number) {
    switch (number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGSYS: return "SIGSYS";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    case SIGPIPE: return "SIGPIPE";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGALRM: return "SIGALRM";
    default: return NULL;
    }
}
