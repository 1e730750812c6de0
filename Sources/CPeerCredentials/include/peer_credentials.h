#ifndef IAA_PEER_CREDENTIALS_H
#define IAA_PEER_CREDENTIALS_H

#include <stdint.h>

/// Reads the uid and pid of the process at the other end of a connected Unix socket, as the kernel
/// recorded them at connect() time (SO_PEERCRED). Returns 0, or -1 with errno set.
/// A shim because glibc declares `struct ucred` only under _GNU_SOURCE, which Swift's Glibc lacks.
int CPeerCredentials_get(int fd, uint32_t *uid, int32_t *pid);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), also hidden behind _GNU_SOURCE. Atomic
/// close-on-exec matters: a client socket leaked into a child the engine spawns (jackd) would
/// keep the client from ever seeing its connection close.
int CPeerCredentials_accept(int fd);

#endif
