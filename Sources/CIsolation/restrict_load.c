/* The child's first step, before the plugin's library is opened (the load phase): no new
 * privileges, Landlock granting only reads beneath the folders the loader and the plugin formats
 * need, and a seccomp filter refusing (EPERM) whatever would make a process, reach the network,
 * or touch another process. docs/isolation.md, "Least privilege". */
#define _GNU_SOURCE
#include "iaa_isolation.h"
#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int iaa_isolation_thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(tasks);
    return count;
}

/* Refused outright: making a process or running a program (clone without CLONE_THREAD is
 * below), any socket, reading or writing another process, System V IPC and POSIX message
 * queues (objects that outlive the process, or another program's), leaving or entering
 * namespaces, mounts, kernel interfaces a plugin has no use for (eBPF, perf, io_uring, whose
 * requests would bypass this filter, keyrings, personality, userfaultfd, file handles), and what
 * only a privileged process could do, for an engine run as root. A name libseccomp does not
 * know on this machine is skipped. */
static const char *const refused[] = {
    "fork", "vfork", "execve", "execveat",
    "socket", "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
    "tkill", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "setsid", "setpgid", "unshare", "setns",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr",
    "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "personality", "userfaultfd",
    "open_by_handle_at", "name_to_handle_at",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups", "capset",
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "iopl", "ioperm",
    "swapon", "swapoff", "syslog", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "quotactl", "vhangup", "mknod", "mknodat",
};

/* Refused when their first argument names a process other than this one: signals (abort()
 * raises at itself with tgkill, so that stays). */
static const char *const only_to_self[] = {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"};

/* Refused when their first argument is a pid rather than 0 (this process): another process's
 * scheduling, CPUs, limits and memory. One comparison per argument is all libseccomp takes, so
 * this process's own pid spelled out is refused too. */
static const char *const only_on_self[] = {
    "sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity", "prlimit64",
    "get_robust_list", "migrate_pages", "move_pages",
};

static int refuse(scmp_filter_ctx filter, const char *name, int error, unsigned count, const struct scmp_arg_cmp *condition) {
    int call = seccomp_syscall_resolve_name(name);
    if (call == __NR_SCMP_ERROR) return 0;
    return seccomp_rule_add_array(filter, SCMP_ACT_ERRNO(error), call, count, condition);
}

static int apply_seccomp(void) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) return -1;
    int failed = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    for (size_t index = 0; index < sizeof refused / sizeof refused[0] && !failed; index++) {
        failed = refuse(filter, refused[index], EPERM, 0, NULL);
    }
    /* Threads yes, processes no. clone3 passes its flags in memory the filter cannot read, so it
     * answers ENOSYS: the C library then falls back to clone, whose flags it can. */
    struct scmp_arg_cmp no_thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    if (!failed) failed = refuse(filter, "clone", EPERM, 1, &no_thread);
    if (!failed) failed = refuse(filter, "clone3", ENOSYS, 0, NULL);
    /* The parent-death signal set at spawn stays: the child cannot outlive the engine. */
    struct scmp_arg_cmp deathsig = SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG);
    if (!failed) failed = refuse(filter, "prctl", EPERM, 1, &deathsig);
    struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)getpid());
    for (size_t index = 0; index < sizeof only_to_self / sizeof only_to_self[0] && !failed; index++) {
        failed = refuse(filter, only_to_self[index], EPERM, 1, &other);
    }
    struct scmp_arg_cmp explicit_pid = SCMP_A0(SCMP_CMP_NE, 0);
    for (size_t index = 0; index < sizeof only_on_self / sizeof only_on_self[0] && !failed; index++) {
        failed = refuse(filter, only_on_self[index], EPERM, 1, &explicit_pid);
    }
    /* setpriority and ioprio_set: only PRIO_PROCESS / IOPRIO_WHO_PROCESS (1) of 0. */
    struct scmp_arg_cmp not_process = SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS);
    struct scmp_arg_cmp not_self = SCMP_A1(SCMP_CMP_NE, 0);
    if (!failed) failed = refuse(filter, "setpriority", EPERM, 1, &not_process);
    if (!failed) failed = refuse(filter, "setpriority", EPERM, 1, &not_self);
    struct scmp_arg_cmp not_io_process = SCMP_A0(SCMP_CMP_NE, 1);
    if (!failed) failed = refuse(filter, "ioprio_set", EPERM, 1, &not_io_process);
    if (!failed) failed = refuse(filter, "ioprio_set", EPERM, 1, &not_self);
    /* F_SETOWN and F_SETOWN_EX would aim SIGIO at another process. */
    struct scmp_arg_cmp setown = SCMP_A1(SCMP_CMP_EQ, F_SETOWN);
    struct scmp_arg_cmp setown_ex = SCMP_A1(SCMP_CMP_EQ, F_SETOWN_EX);
    if (!failed) failed = refuse(filter, "fcntl", EPERM, 1, &setown);
    if (!failed) failed = refuse(filter, "fcntl", EPERM, 1, &setown_ex);
    if (!failed) failed = seccomp_load(filter);
    seccomp_release(filter);
    return failed ? -1 : 0;
}

unsigned iaa_isolation_restrict_load(const char *const *readable, size_t count, char *note, size_t note_size) {
    return iaa_isolation_apply(readable, count, apply_seccomp, note, note_size);
}
