#ifndef IAA_PEER_CREDENTIALS_H
#define IAA_PEER_CREDENTIALS_H
/* Placeholder until the control socket lands. */
int iaa_peer_uid(int fd);
#endif
