#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include "peer_credentials.h"

int CPeerCredentials_get(int fd, uint32_t *uid, int32_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = (uint32_t)credentials.uid;
    *pid = (int32_t)credentials.pid;
    return 0;
}

int CPeerCredentials_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
