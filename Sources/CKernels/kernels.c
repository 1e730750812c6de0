#include "iaa_kernels.h"
#include <stddef.h>
#include <stdlib.h>

/* Eight floats and eight 32-bit words: one AVX register, or two SSE2/NEON registers. */
typedef float f8 __attribute__((vector_size(32)));
typedef unsigned u8 __attribute__((vector_size(32)));
/* Four doubles and four 64-bit words: one AVX register, or two SSE2/NEON registers. */
typedef double d4 __attribute__((vector_size(32)));
typedef long long l4 __attribute__((vector_size(32)));

/* The portable build passes f8 values only between always-inline helpers of one translation unit,
 * so the AVX-less calling convention that -Wpsabi warns about is never used at a call. */
#pragma clang diagnostic ignored "-Wpsabi"

#define K(name) name##_portable
#include "kernels_body.h"
#undef K

#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#define K(name) name##_avx2
#include "kernels_body.h"
#undef K
#pragma clang attribute pop
#endif

const iaa_kernel_table *iaa_kernels_active = &table_portable;
static iaa_kernel_set active_set = IAA_KERNELS_PORTABLE;

static int cpu_has_avx2_fma(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* Once, when the library is loaded, before any thread can render: the audio thread then only
 * reads a pointer that never changes again. IAA_KERNELS=portable keeps the baseline build (to
 * compare the two on one machine). */
__attribute__((constructor)) static void choose_kernels(void) {
    const char *forced = getenv("IAA_KERNELS");
    if (forced && forced[0] == 'p') return;
    if (cpu_has_avx2_fma()) {
        iaa_kernels_active = iaa_kernels_of(IAA_KERNELS_AVX2_FMA);
        active_set = IAA_KERNELS_AVX2_FMA;
    }
}

iaa_kernel_set iaa_kernels_selected(void) { return active_set; }

const iaa_kernel_table *iaa_kernels_of(iaa_kernel_set set) {
    switch (set) {
    case IAA_KERNELS_PORTABLE:
        return &table_portable;
    case IAA_KERNELS_AVX2_FMA:
#if defined(__x86_64__)
        return cpu_has_avx2_fma() ? &table_avx2 : NULL;
#else
        return NULL;
#endif
    }
    return NULL;
}

const char *iaa_kernel_set_name(iaa_kernel_set set) {
    return set == IAA_KERNELS_AVX2_FMA ? "avx2+fma" : "portable";
}
