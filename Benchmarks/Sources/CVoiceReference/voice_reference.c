#include "CVoiceReference.h"
#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static const float two_pi = 6.28318530717958647692f;

void cvr_render_scalar(cvr_voice *voices, int count, float *out, int frames) {
    memset(out, 0, (size_t)frames * sizeof(float));
    for (int v = 0; v < count; v++) {
        cvr_voice *voice = &voices[v];
        float phase = voice->phase;
        const float increment = voice->increment, amplitude = voice->amplitude;
        const float gain1 = voice->gain1, gain2 = voice->gain2;
#pragma clang loop vectorize(disable) interleave(disable)
        for (int f = 0; f < frames; f++) {
            float sample = amplitude * sinf(two_pi * phase); /* oscillator */
            sample *= gain1;                                  /* gain */
            sample *= gain2;                                  /* gain */
            out[f] += sample;                                 /* mixer bus */
            phase += increment;
            if (phase >= 1.0f) phase -= 1.0f;
        }
        voice->phase = phase;
    }
}

/* sin(2π·cycles) for one lane: the engine's range reduction, in float. */
static inline float poly_sine(float cycles) {
    float r = cycles - rintf(cycles);
    if (r > 0.25f) r = 0.5f - r;
    else if (r < -0.25f) r = -0.5f - r;
    const float t = two_pi * r, t2 = t * t;
    float s = -1.0f / 39916800.0f;
    s = 1.0f / 362880.0f + t2 * s;
    s = -1.0f / 5040.0f + t2 * s;
    s = 1.0f / 120.0f + t2 * s;
    s = -1.0f / 6.0f + t2 * s;
    s = 1.0f + t2 * s;
    return t * s;
}

static void render_vector_portable(cvr_voice *voices, int count, float *out, int frames) {
    memset(out, 0, (size_t)frames * sizeof(float));
    for (int v = 0; v < count; v++) {
        cvr_voice *voice = &voices[v];
        const float start = voice->phase, increment = voice->increment;
        const float gain = voice->amplitude * voice->gain1 * voice->gain2;
        for (int f = 0; f < frames; f++) out[f] += gain * poly_sine(start + (float)f * increment);
        float next = start + (float)frames * increment;
        voice->phase = next - floorf(next);
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma")))
static inline __m256 sine8(__m256 cycles) {
    const __m256 quarter = _mm256_set1_ps(0.25f), half = _mm256_set1_ps(0.5f);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 r = _mm256_sub_ps(cycles, _mm256_round_ps(cycles, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    /* |r| > 1/4: mirror to ±1/2 − r. */
    __m256 magnitude = _mm256_andnot_ps(sign, r);
    __m256 mirrored = _mm256_sub_ps(_mm256_or_ps(half, _mm256_and_ps(sign, r)), r);
    r = _mm256_blendv_ps(r, mirrored, _mm256_cmp_ps(magnitude, quarter, _CMP_GT_OQ));
    const __m256 t = _mm256_mul_ps(_mm256_set1_ps(two_pi), r), t2 = _mm256_mul_ps(t, t);
    __m256 s = _mm256_set1_ps(-1.0f / 39916800.0f);
    s = _mm256_fmadd_ps(t2, s, _mm256_set1_ps(1.0f / 362880.0f));
    s = _mm256_fmadd_ps(t2, s, _mm256_set1_ps(-1.0f / 5040.0f));
    s = _mm256_fmadd_ps(t2, s, _mm256_set1_ps(1.0f / 120.0f));
    s = _mm256_fmadd_ps(t2, s, _mm256_set1_ps(-1.0f / 6.0f));
    s = _mm256_fmadd_ps(t2, s, _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(t, s);
}

__attribute__((target("avx2,fma")))
static void render_vector_avx2(cvr_voice *voices, int count, float *out, int frames) {
    memset(out, 0, (size_t)frames * sizeof(float));
    const int whole = frames & ~7;
    const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    for (int v = 0; v < count; v++) {
        cvr_voice *voice = &voices[v];
        const float start = voice->phase, increment = voice->increment;
        const float gain = voice->amplitude * voice->gain1 * voice->gain2;
        const __m256 vstart = _mm256_set1_ps(start), vinc = _mm256_set1_ps(increment);
        const __m256 vgain = _mm256_set1_ps(gain);
        int f = 0;
        for (; f < whole; f += 8) {
            __m256 frame = _mm256_add_ps(_mm256_set1_ps((float)f), lanes);
            __m256 sample = sine8(_mm256_fmadd_ps(frame, vinc, vstart));
            _mm256_storeu_ps(out + f, _mm256_fmadd_ps(sample, vgain, _mm256_loadu_ps(out + f)));
        }
        for (; f < frames; f++) out[f] += gain * poly_sine(start + (float)f * increment);
        float next = start + (float)frames * increment;
        voice->phase = next - floorf(next);
    }
}
#endif

int cvr_has_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

void cvr_render_vector(cvr_voice *voices, int count, float *out, int frames) {
#if defined(__x86_64__)
    if (cvr_has_avx2()) { render_vector_avx2(voices, count, out, frames); return; }
#endif
    render_vector_portable(voices, count, out, frames);
}
