#define _GNU_SOURCE
#include <sys/socket.h>
#include "peer_credentials.h"
int iaa_peer_uid(int fd) {
    struct ucred cred; socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    return (int)cred.uid;
}
