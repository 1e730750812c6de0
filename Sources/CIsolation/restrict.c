/* The child's last step before its first cycle (the process phase): no new privileges, Landlock,
 * seccomp; and the steps both phases take. The load phase before it is restrict_load.c. */
#define _GNU_SOURCE
#include "iaa_isolation.h"
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

int iaa_isolation_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
    return abi < 0 ? 0 : (int)abi;
}

int iaa_isolation_seccomp_available(void) {
    /* PR_GET_SECCOMP fails with EINVAL where the kernel was built without seccomp. */
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

/* Grants reading beneath `path` (a folder: its files and listings; a file: its contents). A path
 * that cannot be opened or granted (missing, say) stays unreadable: failing closed, the ruleset
 * still applies. */
static void grant_read(int ruleset, const char *path) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat info;
    if (fstat(fd, &info) == 0) {
        struct iaa_landlock_path_beneath_attr rule = {IAA_LANDLOCK_ACCESS_FS_READ_FILE, fd};
        if (S_ISDIR(info.st_mode)) rule.allowed_access |= IAA_LANDLOCK_ACCESS_FS_READ_DIR;
        (void)syscall(SYS_landlock_add_rule, ruleset, IAA_LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    }
    close(fd);
}

/* Every right the ABI knows handled, and only reading beneath `readable` granted: no file can
 * be written, made or removed, no TCP bind or connect (ABI 4), no abstract unix socket outside
 * the domain and no signal to a process outside it (ABI 6). */
static int apply_landlock(int abi, const char *const *readable, size_t count) {
    struct iaa_landlock_ruleset_attr attr;
    size_t size = iaa_landlock_handle_everything(abi, &attr);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    for (size_t index = 0; index < count; index++) {
        if (readable[index] && readable[index][0] == '/') grant_read(ruleset, readable[index]);
    }
    int result = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    close(ruleset);
    return result;
}

unsigned iaa_isolation_apply(const char *const *readable, size_t count, int (*seccomp)(void), char *note, size_t note_size) {
    unsigned applied = 0;
    if (note && note_size) note[0] = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) applied |= IAA_RESTRICT_NO_NEW_PRIVS;
    int abi = iaa_isolation_landlock_abi();
    if (abi > 0 && apply_landlock(abi, readable, count) == 0) {
        applied |= IAA_RESTRICT_LANDLOCK;
    } else if (note && note_size) {
        snprintf(note, note_size, "%s", abi > 0 ? "Landlock refused the ruleset; " : "the kernel has no Landlock; ");
    }
    if (iaa_isolation_seccomp_available() && seccomp() == 0) {
        applied |= IAA_RESTRICT_SECCOMP;
    } else if (note && note_size) {
        size_t used = strlen(note);
        snprintf(note + used, note_size - used, "no seccomp filter could be loaded; ");
    }
    return applied;
}

/* What a node's process may still do: memory, futexes, clocks and sleeps, write to the
 * descriptors it has, signal itself (abort), and exit. Anything else ends it with SIGSYS. */
static int apply_seccomp(void) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!filter) return -1;
    static const int allowed[] = {
        SCMP_SYS(futex), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk),
        SCMP_SYS(mprotect), SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
        SCMP_SYS(gettimeofday), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(sched_yield),
        SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(close), SCMP_SYS(getpid), SCMP_SYS(gettid),
        SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
        SCMP_SYS(restart_syscall), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getrandom), SCMP_SYS(rseq),
        SCMP_SYS(sched_getaffinity), SCMP_SYS(getrusage),
    };
    int failed = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    for (size_t index = 0; index < sizeof allowed / sizeof allowed[0] && !failed; index++) {
        failed = seccomp_rule_add(filter, SCMP_ACT_ALLOW, allowed[index], 0);
    }
    /* abort() raises SIGABRT with tgkill: only at itself. */
    pid_t self = getpid();
    if (!failed) failed = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    if (!failed) failed = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    if (!failed) failed = seccomp_load(filter);
    seccomp_release(filter);
    return failed ? -1 : 0;
}

unsigned iaa_isolation_restrict(char *note, size_t note_size) {
    return iaa_isolation_apply(NULL, 0, apply_seccomp, note, note_size);
}
