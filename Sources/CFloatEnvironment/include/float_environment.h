#ifndef IAA_FLOAT_ENVIRONMENT_H
#define IAA_FLOAT_ENVIRONMENT_H
#include <stdint.h>

/* Denormal floats cost up to ~100x per operation on x86, so a decaying filter or reverb tail
 * that reaches that range can blow a cycle's deadline. The render thread flushes them to zero
 * (x86: FTZ and DAZ in MXCSR; AArch64: FZ in FPCR). Both calls return the previous state, so a
 * thread that renders only for a while (offline) can restore it. Realtime-safe. */
uint64_t iaa_flush_denormals(void);
void iaa_restore_float_environment(uint64_t previous);

#endif
