/*
 * iaa_isolation.h: what the engine and an isolated node's child process share.
 *
 * One memfd per isolated app holds, in order: the header below, the parameter ramps, the MIDI
 * events, the audio inputs and the audio outputs (docs/isolation.md draws it). Both processes map
 * it MAP_SHARED; `request` and `reply` are process-shared futex words (no FUTEX_PRIVATE_FLAG).
 * The accessors below are the only way either side touches a word the other side writes.
 */
#ifndef IAA_ISOLATION_H
#define IAA_ISOLATION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "iaa_plugin.h"

/** "IAAI" and the layout's version: the child refuses a segment of another version. */
#define IAA_ISOLATION_MAGIC 0x49414149u
#define IAA_ISOLATION_VERSION 4u
/** MIDI events per cycle the segment holds (later ones in a cycle are dropped). */
#define IAA_ISOLATION_MIDI_CAPACITY 1024u
/** The value the supervisor stores in `reply` when the child died, to end a wait at once. */
#define IAA_ISOLATION_DEAD 0xFFFFFFFFu
/** The descriptor number the segment has in the child. */
#define IAA_ISOLATION_SEGMENT_FD 3

/** iaa_isolation_header.child_state */
#define IAA_CHILD_STARTING 0u
/** The node is created and prepared; the child waits for cycles. */
#define IAA_CHILD_READY 1u
/** Creating the node failed; `error` says why and the child exits. */
#define IAA_CHILD_FAILED 2u

typedef struct iaa_isolation_header {
    uint32_t magic;
    uint32_t version;
    uint32_t input_count;
    uint32_t output_count;
    uint32_t parameter_count;
    uint32_t max_frames;
    double sample_rate;
    uint64_t total_size;
    /* Futex words, each on a cache line of its own (offsets 64, 128, 192: the segment starts on
     * a page), so that the two sides never write one line. Padding, not _Alignas: Swift imports it. */
    uint32_t padding0[6];
    uint32_t request;   /* the engine: the number of the cycle to render */
    /* The engine: nonzero while it waits (or is about to wait) for `reply`, so the child wakes
     * it. Several children started together (a wave) run one after another without waking the
     * engine; only the one it waits for does (docs/isolation.md, "Waves"). */
    uint32_t wake_on_reply;
    uint32_t padding1[14];
    uint32_t reply;     /* the child: the number of the cycle rendered */
    /* The child: the number of the cycle it began rendering. A cycle not answered in time that
     * the child never began was not its fault: another child held the CPU they share. */
    uint32_t started;
    uint32_t padding2[14];
    uint32_t child_state;
    uint32_t stop;                   /* nonzero: the child exits at its next wake-up */
    uint32_t reset;                  /* a counter: the child resets its node when it changes */
    uint32_t transport_request;      /* the node's last IAA_TRANSPORT_* request (the child writes) */
    uint32_t restrictions;           /* the IAA_RESTRICT_* bits the child applied to itself */
    uint32_t engine_cpu;             /* the CPU the engine's audio thread last ran on (UINT32_MAX: none yet) */
    uint32_t latency;                /* the node's reported latency in frames (the child writes) */
    /* This cycle, written by the engine before `request`. */
    uint32_t frames;
    uint32_t midi_count;
    int64_t sample_time;
    iaa_transport transport;
    char error[512];
} iaa_isolation_header;

_Static_assert(offsetof(iaa_isolation_header, request) == 64, "request on its own cache line");
_Static_assert(offsetof(iaa_isolation_header, reply) == 128, "reply on its own cache line");
_Static_assert(offsetof(iaa_isolation_header, child_state) == 192, "child_state on its own cache line");

/** Where each region starts in a segment for these counts, and its total size. */
typedef struct iaa_isolation_layout {
    size_t ramps;
    size_t midi;
    size_t inputs;
    size_t outputs;
    size_t total;
} iaa_isolation_layout;

iaa_isolation_layout iaa_isolation_layout_for(uint32_t inputs, uint32_t outputs, uint32_t parameters, uint32_t max_frames);

/** Atomic accessors for the words both processes touch. */
static inline uint32_t iaa_isolation_load(const uint32_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
static inline void iaa_isolation_store(uint32_t *word, uint32_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }
/** Sequentially consistent store and load, for the one store-then-load handshake: the child
 *  stores `reply` then loads `wake_on_reply`, the engine stores `wake_on_reply` then loads
 *  `reply`; with both orders kept, at least one side sees the other's store, so a child never
 *  skips the wake-up of an engine that is going to sleep. */
static inline void iaa_isolation_store_ordered(uint32_t *word, uint32_t value) { __atomic_store_n(word, value, __ATOMIC_SEQ_CST); }
static inline uint32_t iaa_isolation_load_ordered(const uint32_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }

/** A new anonymous segment of `size` bytes (memfd, close-on-exec, sealed at that size); -1 and errno on failure. */
int iaa_isolation_segment_create(size_t size);
/** Maps a segment shared, read and write; NULL on failure. */
void *iaa_isolation_segment_map(int fd, size_t size);
void iaa_isolation_segment_unmap(void *base, size_t size);

/** Waits while `*word == expected`, at most `timeout_ns` (< 0: no limit). 0 when woken or the
 *  word differs, ETIMEDOUT, or EINTR. */
int iaa_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns);
/** Waits while `*word == expected`, until CLOCK_MONOTONIC reaches `deadline_ns` (absolute).
 *  0 when woken or the word differs, ETIMEDOUT, or EINTR. */
int iaa_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns);

/**
 * A timer that is already pending at a cycle's first deadline, so that the kernel need not
 * reprogram the CPU's timer hardware for every bounded wait after it: a bounded wait queues a
 * timer, and only a timer that becomes the CPU's earliest reprograms the hardware (on arming and
 * again on cancelling). On a virtual machine each reprogramming is a trap to the hypervisor,
 * which made every hand-over to an isolated node cost ~10 µs more. Nobody reads the timer; it
 * only has to be queued first. Owned by the audio thread after creation.
 */
typedef struct iaa_deadline_anchor {
    int fd;                 /* a timerfd on CLOCK_MONOTONIC, -1 when none could be made */
    uint64_t armed_until;   /* the pending expiry, CLOCK_MONOTONIC ns (0: none) */
} iaa_deadline_anchor;

/** A new anchor (control side); fd -1 where timerfd is missing, and then arming does nothing. */
iaa_deadline_anchor iaa_deadline_anchor_make(void);
/** Arms the anchor for `deadline_ns` unless one is pending that expires no later (audio thread;
 *  one timerfd_settime a cycle). `now_ns` is the caller's clock reading. */
void iaa_deadline_anchor_cover(iaa_deadline_anchor *anchor, uint64_t deadline_ns, uint64_t now_ns);
void iaa_deadline_anchor_close(iaa_deadline_anchor *anchor);

/** Wakes every waiter on `word`. */
void iaa_futex_wake(uint32_t *word);

/** The CPU the calling thread runs on (a vDSO or rseq read, no system call), -1 if unknown. */
int iaa_current_cpu(void);
/** Pins the thread `thread` of this process to `cpu` alone: 0, or an errno. */
int iaa_pin_thread(unsigned long thread, int cpu);
/** Pins the process `pid` (its main thread: a child's only thread) to `cpu` alone: 0, or an errno. */
int iaa_pin_process(pid_t pid, int cpu);
/** Lets the process `pid` (a child's only thread) run on any CPU, and only when a CPU is idle
 *  (SCHED_IDLE): a child on its way out then tears down without taking a cycle's time from
 *  the audio thread and the children still running, pinned to the same CPU. 0, or an errno. */
int iaa_retire_process(pid_t pid);

/** Limits the child gets before exec. */
typedef struct iaa_child_limits {
    /** RLIMIT_AS in bytes (0: unchanged). */
    uint64_t address_space;
    /** RLIMIT_NOFILE. */
    uint64_t open_files;
} iaa_child_limits;

/** Starts `path` with `argv` (NULL-terminated) as a child: its own process group, SIGKILL when
 *  the calling thread ends (PR_SET_PDEATHSIG: spawn from a thread that outlives the child),
 *  `segment_fd` as descriptor 3 (-1: none, for a helper program such as a link's bridge), stdin on /dev/null, stdout and stderr on
 *  `output_fd` (the write end of the child's output pipe; -1: stdout on /dev/null and stderr
 *  kept), every other descriptor closed, the limits set, core dumps off. Returns the pid (and a
 *  pidfd in `*pidfd`, -1 where the kernel has none) or -1 with errno. Only async-signal-safe calls
 *  run between fork and exec. */
pid_t iaa_isolation_spawn(const char *path, char *const argv[], int segment_fd, int output_fd,
                          const iaa_child_limits *limits, int *pidfd);

/** A pipe for a child's output: `fds[0]` the engine's read end, `fds[1]` the child's write end,
 *  both close-on-exec and non-blocking (a child that prints faster than the engine reads loses
 *  lines instead of stalling, and the engine never waits on it). 0, or -1 with errno. */
int iaa_isolation_output_pipe(int fds[2]);

/** Waits up to `timeout_ms` for the child behind `pidfd` to end: 1 ended, 0 not yet, -1 error. */
int iaa_isolation_poll_exit(int pidfd, int timeout_ms);
/** What `iaa_isolation_poll_child_output` saw (bits). */
#define IAA_POLL_CHILD_ENDED 1
#define IAA_POLL_CHILD_OUTPUT 2

/** Waits up to `timeout_ms` for the child behind `pidfd` to end, for `output` (the read end of
 *  its output pipe, or -1) to be readable, or for `wakeup` (an eventfd, or -1, which it drains) to
 *  be signalled: the IAA_POLL_CHILD_* bits seen (OUTPUT also at the pipe's end), 0 for a timeout
 *  or a wake-up, -1 on error. With `pidfd < 0` only the others and the timeout end it. */
int iaa_isolation_poll_child_output(int pidfd, int wakeup, int output, int timeout_ms);
/** A non-blocking eventfd (close-on-exec) for `iaa_wakeup_signal`; -1 on failure. */
int iaa_wakeup_make(void);
/** Adds one to the eventfd (nothing when `fd < 0`): one non-blocking write, safe on the audio
 *  thread, which calls it only when it flags a fault. */
void iaa_wakeup_signal(int fd);

/** Reaps `pid` without waiting: 1 and its wait status when it ended, 0 while it runs, -1 error. */
int iaa_isolation_reap(pid_t pid, int *status);

/** A reaped child's wait status: the signal that ended it (0 when it exited), and its exit code
 *  (WTERMSIG, WEXITSTATUS: macros Swift does not import). */
int iaa_wait_signal(int status);
int iaa_wait_exit_code(int status);

/** What iaa_isolation_restrict applied (bits). */
#define IAA_RESTRICT_NO_NEW_PRIVS 1u
#define IAA_RESTRICT_LANDLOCK 2u
#define IAA_RESTRICT_SECCOMP 4u

/** In the child, once its node is ready (the process phase): no new privileges, a Landlock ruleset granting no
 *  filesystem (or network, or outside-signal) access, and a seccomp filter allowing only memory,
 *  futexes, clocks, sleeps, writes to open descriptors, signals to itself and exit. Returns the
 *  IAA_RESTRICT_* bits applied; what the kernel lacks is skipped and described in `note`. */
unsigned iaa_isolation_restrict(char *note, size_t note_size);

/** In the child, before the plugin's library is opened (the load phase): no new privileges; a
 *  Landlock ruleset handling every right the ABI knows that grants only reading beneath the
 *  absolute paths in `readable` (folders: files and listings; files: contents; missing ones are
 *  skipped), so nothing is writable and no TCP connection can be made; and a seccomp filter
 *  (default allow, on every thread) refusing with EPERM what would start a process (fork,
 *  vfork, clone without CLONE_THREAD; clone3 answers ENOSYS so that the C library falls back to
 *  clone), run a program, open a socket, trace, read, write or signal another process, clear the
 *  parent-death signal, leave or enter namespaces or mount. The process phase's
 *  `iaa_isolation_restrict` stacks on top. Returns the IAA_RESTRICT_* bits applied; what the
 *  kernel lacks is skipped and described in `note`. Landlock binds only the calling thread and
 *  those it starts later: call it while the process has one thread (`iaa_isolation_thread_count`). */
unsigned iaa_isolation_restrict_load(const char *const *readable, size_t count, char *note, size_t note_size);

/** The number of threads of this process (/proc/self/task), -1 when it cannot be read. */
int iaa_isolation_thread_count(void);

/** The kernel's Landlock ABI version (0: none) and whether seccomp filters are available. */
int iaa_isolation_landlock_abi(void);
int iaa_isolation_seccomp_available(void);

/** The name of signal `number` ("SIGSEGV"), or NULL. */
const char *iaa_isolation_signal_name(int number);

#endif /* IAA_ISOLATION_H */
