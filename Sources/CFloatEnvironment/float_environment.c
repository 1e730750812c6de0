#include "float_environment.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

uint64_t iaa_flush_denormals(void) {
    unsigned int previous = _mm_getcsr();
    _mm_setcsr(previous | 0x8040); /* FTZ (bit 15) and DAZ (bit 6) */
    return previous;
}

void iaa_restore_float_environment(uint64_t previous) { _mm_setcsr((unsigned int)previous); }

#elif defined(__aarch64__)

uint64_t iaa_flush_denormals(void) {
    uint64_t previous;
    __asm__ volatile("mrs %0, fpcr" : "=r"(previous));
    __asm__ volatile("msr fpcr, %0" : : "r"(previous | (1ull << 24))); /* FZ */
    return previous;
}

void iaa_restore_float_environment(uint64_t previous) { __asm__ volatile("msr fpcr, %0" : : "r"(previous)); }

#else

uint64_t iaa_flush_denormals(void) { return 0; }
void iaa_restore_float_environment(uint64_t previous) { (void)previous; }

#endif
