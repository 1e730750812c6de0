/* Landlock's structs and rights, spelled out because Debian 12's kernel headers stop at its third
 * ABI while the kernels it runs on offer more; the kernel checks the sizes passed. Private to
 * restrict.c and restrict_load.c, with the driver both phases share. */
#ifndef IAA_LANDLOCK_H
#define IAA_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

struct iaa_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct iaa_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define IAA_LANDLOCK_RULE_PATH_BENEATH 1
#define IAA_LANDLOCK_ACCESS_FS_READ_FILE (1ull << 2)
#define IAA_LANDLOCK_ACCESS_FS_READ_DIR (1ull << 3)

/* Every right the ABI knows, handled (so refused unless a rule grants it): every filesystem
 * right; from ABI 4 TCP bind and connect; from ABI 6 abstract unix sockets and signals outside
 * the domain. Returns the size of `attr` to pass. */
static inline size_t iaa_landlock_handle_everything(int abi, struct iaa_landlock_ruleset_attr *attr) {
    attr->handled_access_fs = (1ull << 13) - 1;            /* ABI 1: execute ... make_sym */
    attr->handled_access_net = 0;
    attr->scoped = 0;
    if (abi >= 2) attr->handled_access_fs |= 1ull << 13;   /* refer */
    if (abi >= 3) attr->handled_access_fs |= 1ull << 14;   /* truncate */
    if (abi >= 5) attr->handled_access_fs |= 1ull << 15;   /* ioctl_dev */
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        attr->handled_access_net = (1ull << 0) | (1ull << 1);
        size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr->scoped = (1ull << 0) | (1ull << 1);
        size = 3 * sizeof(uint64_t);
    }
    return size;
}

/* No new privileges, Landlock granting only reading beneath `readable` (none: nothing at
 * all), then `seccomp`'s filter: what both phases do, each with its own filter. Returns the
 * IAA_RESTRICT_* bits applied and notes in `note` what could not be. */
unsigned iaa_isolation_apply(const char *const *readable, size_t count, int (*seccomp)(void), char *note, size_t note_size);

#endif /* IAA_LANDLOCK_H */
