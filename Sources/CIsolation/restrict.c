/* The child's last step before its first cycle: no new privileges, Landlock, seccomp.
 * Landlock's structs and rights are spelled out here because Debian 12's kernel headers stop at
 * its third ABI while the kernels it runs on offer more; the kernel checks the size we pass. */
#define _GNU_SOURCE
#include "iaa_isolation.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

int iaa_isolation_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
    return abi < 0 ? 0 : (int)abi;
}

int iaa_isolation_seccomp_available(void) {
    /* PR_GET_SECCOMP fails with EINVAL where the kernel was built without seccomp. */
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

/* Every filesystem right the ABI knows, handled and granted to no path: no file can be opened,
 * made or removed. From ABI 4 no TCP bind or connect; from ABI 6 no abstract unix socket outside
 * the domain and no signal to a process outside it. */
static int apply_landlock(int abi) {
    struct ruleset_attr attr = {0, 0, 0};
    attr.handled_access_fs = (1ull << 13) - 1;            /* ABI 1: execute ... make_sym */
    if (abi >= 2) attr.handled_access_fs |= 1ull << 13;   /* refer */
    if (abi >= 3) attr.handled_access_fs |= 1ull << 14;   /* truncate */
    if (abi >= 5) attr.handled_access_fs |= 1ull << 15;   /* ioctl_dev */
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        attr.handled_access_net = (1ull << 0) | (1ull << 1);
        size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = (1ull << 0) | (1ull << 1);
        size = 3 * sizeof(uint64_t);
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    int result = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    close(ruleset);
    return result;
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
    unsigned applied = 0;
    if (note && note_size) note[0] = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) applied |= IAA_RESTRICT_NO_NEW_PRIVS;
    int abi = iaa_isolation_landlock_abi();
    if (abi > 0 && apply_landlock(abi) == 0) {
        applied |= IAA_RESTRICT_LANDLOCK;
    } else if (note && note_size) {
        snprintf(note, note_size, "%s", abi > 0 ? "Landlock refused the ruleset; " : "the kernel has no Landlock; ");
    }
    if (iaa_isolation_seccomp_available() && apply_seccomp() == 0) {
        applied |= IAA_RESTRICT_SECCOMP;
    } else if (note && note_size) {
        size_t used = strlen(note);
        snprintf(note + used, note_size - used, "no seccomp filter could be loaded; ");
    }
    return applied;
}
