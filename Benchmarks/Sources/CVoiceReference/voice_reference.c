#include "CVoiceReference.h"
#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static const float two_pi = 6.28318530717958647692f;

void cvr_voice_set_cutoff(cvr_voice *voice, double cutoff, double sample_rate) {
    const double g = tan(3.14159265358979323846 * cutoff / sample_rate), G = g / (1 + g), c = 1 - 2 * G;
    voice->lowpass_gain = (float)G;
    voice->feedback = (float)c;
    double power = 1;
    for (int k = 0; k < 8; k++) {
        power *= c;
        voice->powers[k] = (float)power;
    }
}

void cvr_render_scalar(cvr_voice *voices, int count, float *out, int frames) {
    memset(out, 0, (size_t)frames * sizeof(float));
    for (int v = 0; v < count; v++) {
        cvr_voice *voice = &voices[v];
        float phase = voice->phase, x1 = voice->previous_input, y1 = voice->previous_output;
        const float increment = voice->increment, amplitude = voice->amplitude, gain = voice->gain;
        const float G = voice->lowpass_gain, c = voice->feedback;
#pragma clang loop vectorize(disable) interleave(disable)
        for (int f = 0; f < frames; f++) {
            float sample = amplitude * sinf(two_pi * phase); /* oscillator */
            sample *= gain;                                   /* gain */
            const float y = c * y1 + G * (sample + x1);      /* one-pole lowpass */
            x1 = sample;
            y1 = y;
            out[f] += y;                                      /* mixer bus */
            phase += increment;
            if (phase >= 1.0f) phase -= 1.0f;
        }
        voice->phase = phase;
        voice->previous_input = x1;
        voice->previous_output = y1;
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
        const float gain = voice->amplitude * voice->gain, G = voice->lowpass_gain, c = voice->feedback;
        float x1 = voice->previous_input, y1 = voice->previous_output;
        for (int f = 0; f < frames; f++) {
            const float x = gain * poly_sine(start + (float)f * increment);
            y1 = c * y1 + G * (x + x1);
            x1 = x;
            out[f] += y1;
        }
        voice->previous_input = x1;
        voice->previous_output = y1;
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
    const __m256i last = _mm256_set1_epi32(7);
    /* Lane shifts up by 1, 2 and 4 (a permute, then the vacated lanes zeroed). */
    const __m256i up1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), up2 = _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5);
    const __m256i up4 = _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
    const __m256 keep1 = _mm256_castsi256_ps(_mm256_setr_epi32(0, -1, -1, -1, -1, -1, -1, -1));
    const __m256 keep2 = _mm256_castsi256_ps(_mm256_setr_epi32(0, 0, -1, -1, -1, -1, -1, -1));
    const __m256 keep4 = _mm256_castsi256_ps(_mm256_setr_epi32(0, 0, 0, 0, -1, -1, -1, -1));
    for (int v = 0; v < count; v++) {
        cvr_voice *voice = &voices[v];
        const float start = voice->phase, increment = voice->increment;
        const float gain = voice->amplitude * voice->gain;
        const __m256 vstart = _mm256_set1_ps(start), vinc = _mm256_set1_ps(increment);
        const __m256 vgain = _mm256_set1_ps(gain);
        __m256 x1 = _mm256_set1_ps(voice->previous_input), y1 = _mm256_set1_ps(voice->previous_output);
        const float c = voice->feedback;
        const __m256 vG = _mm256_set1_ps(voice->lowpass_gain), powers = _mm256_loadu_ps(voice->powers);
        const __m256 c1 = _mm256_set1_ps(c), c2 = _mm256_set1_ps(c * c), c4 = _mm256_set1_ps(c * c * c * c);
        int f = 0;
        for (; f < whole; f += 8) {
            __m256 frame = _mm256_add_ps(_mm256_set1_ps((float)f), lanes);
            __m256 sample = _mm256_mul_ps(sine8(_mm256_fmadd_ps(frame, vinc, vstart)), vgain);
            /* The lowpass block as a prefix scan: u = G·(x + x[−1]), z[k] = Σ c^(k−j)·u[j] in three
               shift-FMA steps, then y = z + c^(k+1)·y[−1]; only the last FMA waits for the previous block. */
            const __m256 previous = _mm256_blend_ps(_mm256_permutevar8x32_ps(sample, up1), x1, 0x01);
            __m256 z = _mm256_mul_ps(vG, _mm256_add_ps(sample, previous));
            z = _mm256_fmadd_ps(c1, _mm256_and_ps(_mm256_permutevar8x32_ps(z, up1), keep1), z);
            z = _mm256_fmadd_ps(c2, _mm256_and_ps(_mm256_permutevar8x32_ps(z, up2), keep2), z);
            z = _mm256_fmadd_ps(c4, _mm256_and_ps(_mm256_permutevar8x32_ps(z, up4), keep4), z);
            __m256 y = _mm256_fmadd_ps(powers, y1, z);
            _mm256_storeu_ps(out + f, _mm256_add_ps(y, _mm256_loadu_ps(out + f)));
            x1 = _mm256_permutevar8x32_ps(sample, last);
            y1 = _mm256_permutevar8x32_ps(y, last);
        }
        float xs = _mm256_cvtss_f32(x1), ys = _mm256_cvtss_f32(y1);
        const float G = voice->lowpass_gain;
        for (; f < frames; f++) {
            const float xf = gain * poly_sine(start + (float)f * increment);
            ys = c * ys + G * (xf + xs);
            xs = xf;
            out[f] += ys;
        }
        voice->previous_input = xs;
        voice->previous_output = ys;
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
