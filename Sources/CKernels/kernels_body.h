/*
 * The kernels' one body, included twice by kernels.c: K(name) names this build's copy
 * (name_portable, name_avx2). In the AVX2 build every function here carries target("avx2,fma"),
 * so the vectors below are single ymm registers and a·b + c contracts to one FMA; in the portable
 * build an f8 is two SSE2 (or NEON) registers. Same operations in the same order in both, so the
 * two agree to a few ulps (FMA skips one rounding).
 */

static inline __attribute__((always_inline)) f8 K(load8)(const float *p) {
    f8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void K(store8)(float *p, f8 v) { __builtin_memcpy(p, &v, sizeof v); }

static inline __attribute__((always_inline)) void K(store_some)(float *p, f8 v, long count) {
    for (long lane = 0; lane < count && lane < 8; lane++) p[lane] = v[lane];
}

/* `count` floats from p, in one load when there are eight, zeros above. */
static inline __attribute__((always_inline)) f8 K(load_upto)(const float *p, long count) {
    if (count >= 8) return K(load8)(p);
    f8 v = (f8){0};
    for (long lane = 0; lane < count; lane++) v[lane] = p[lane];
    return v;
}

static inline __attribute__((always_inline)) void K(store_upto)(float *p, f8 v, long count) {
    if (count >= 8) {
        K(store8)(p, v);
    } else {
        K(store_some)(p, v, count);
    }
}

/* The finiteness check a node reports with its outputs (NodeKit's OutputCheck): x − x is +0 for
 * every finite sample and NaN otherwise, so the OR of its bits over everything written is 0 exactly
 * when all of it is finite. The kernels that write a node's output fold it in while the values are
 * in registers (one subtract and one OR per eight frames) instead of a separate pass that reads
 * every output again (about 60 instructions a step at 64 frames). */
static inline __attribute__((always_inline)) u8 K(check8)(f8 v) { return (u8)(v - v); }

static inline __attribute__((always_inline)) unsigned K(check1)(float x) {
    const float difference = x - x;
    unsigned word;
    __builtin_memcpy(&word, &difference, sizeof word);
    return word;
}

/* The lanes OR-ed together by halving (three shuffles), not lane by lane. */
static inline __attribute__((always_inline)) unsigned K(reduce_check)(u8 bits) {
    bits |= __builtin_shufflevector(bits, bits, 4, 5, 6, 7, 4, 5, 6, 7);
    bits |= __builtin_shufflevector(bits, bits, 2, 3, 2, 3, 2, 3, 2, 3);
    bits |= __builtin_shufflevector(bits, bits, 1, 1, 1, 1, 1, 1, 1, 1);
    return bits[0];
}

/* store_some, returning the check of the lanes it wrote (and only those). */
static inline __attribute__((always_inline)) unsigned K(store_some_checked)(float *p, f8 v, long count) {
    unsigned check = 0;
    for (long lane = 0; lane < count && lane < 8; lane++) {
        p[lane] = v[lane];
        check |= K(check1)(v[lane]);
    }
    return check;
}

/* sin(π·x) for eight lanes: the engine's Float kernel (Nodes/SineBlock.swift), operation for
 * operation. Adding 1.5·2²³ rounds x to the nearest integer q, the sign is q's parity (the
 * rounded value's lowest mantissa bit), and an odd degree-9 polynomial in u = x − q ∈ [−½, ½]
 * whose coefficients carry `scale`. */
static inline __attribute__((always_inline)) f8 K(sine8)(f8 x, float scale) {
    const f8 shifter = (f8){0} + 12582912.0f;
    const f8 shifted = x + shifter;
    const u8 parity = ((u8)shifted) << 31;
    const f8 u = x - (shifted - shifter);
    const f8 u2 = u * u;
    f8 series = (f8){0} + 0.07722013f * scale;
    series = series * u2 - 0.59804505f * scale;
    series = series * u2 + 2.5500324f * scale;
    series = series * u2 - 5.167709f * scale;
    series = series * u2 + 3.141593f * scale;
    return (f8)(((u8)(u * series)) ^ parity);
}

/* A block's start phase in half cycles, as a float: start + frame·increment reduced to [−½, ½]
 * cycle in double. The first block's is start itself, which the caller has reduced: at one frame
 * per cycle the reduction was a third of the kernel's serial latency. */
static inline __attribute__((always_inline)) float K(block_phase)(double start, double increment, long frame) {
    if (frame == 0) return (float)(2 * start);
    const double shifter = 6755399441055744.0; /* 1.5·2⁵²: rounds a double to a whole number */
    double cycles = start + (double)frame * increment;
    cycles = cycles - ((cycles + shifter) - shifter);
    return (float)(2 * cycles);
}

static unsigned K(sine)(float *out, long frames, double start, double increment, const float *offsets,
                        float scale) {
    const f8 low = K(load8)(offsets), high = K(load8)(offsets + 8);
    u8 bits = (u8){0};
    unsigned check = 0;
    long frame = 0;
    /* Whole blocks first, with no per-block test of what is left (it cost a tenth of the loop). */
    for (; frame + 16 <= frames; frame += 16) {
        const float block = K(block_phase)(start, increment, frame);
        const f8 first = K(sine8)(low + block, scale), second = K(sine8)(high + block, scale);
        K(store8)(out + frame, first);
        K(store8)(out + frame + 8, second);
        bits |= K(check8)(first) | K(check8)(second);
    }
    if (frame > 0) check = K(reduce_check)(bits);
    if (frame < frames) {
        const float block = K(block_phase)(start, increment, frame);
        const long left = frames - frame;
        check |= K(store_some_checked)(out + frame, K(sine8)(low + block, scale), left);
        if (left > 8) check |= K(store_some_checked)(out + frame + 8, K(sine8)(high + block, scale), left - 8);
    }
    return check;
}

static void K(scale)(const float *in, float *out, long frames, float gain) {
    long frame = 0;
    for (; frame + 8 <= frames; frame += 8) K(store8)(out + frame, K(load8)(in + frame) * gain);
    for (; frame < frames; frame++) out[frame] = in[frame] * gain;
}

static unsigned K(scale_ramp)(const float *in, float *out, long frames, float start, float step, long ramp_frames,
                              float end) {
    const long ramped = ramp_frames < frames ? ramp_frames : frames;
    unsigned check = 0;
    long frame = 0;
    for (; frame < ramped; frame++) {
        out[frame] = in[frame] * (start + step * (float)frame);
        check |= K(check1)(out[frame]);
    }
    if (frame + 8 <= frames) {
        u8 bits = (u8){0};
        for (; frame + 8 <= frames; frame += 8) {
            const f8 y = K(load8)(in + frame) * end;
            K(store8)(out + frame, y);
            bits |= K(check8)(y);
        }
        check |= K(reduce_check)(bits);
    }
    for (; frame < frames; frame++) {
        out[frame] = in[frame] * end;
        check |= K(check1)(out[frame]);
    }
    return check;
}

/* Lanes shifted up by `by` (1, 2 or 4), zeros coming in. */
#define IAA_SHIFT1(v) __builtin_shufflevector(v, (f8){0}, 8, 0, 1, 2, 3, 4, 5, 6)
#define IAA_SHIFT2(v) __builtin_shufflevector(v, (f8){0}, 8, 8, 0, 1, 2, 3, 4, 5)
#define IAA_SHIFT4(v) __builtin_shufflevector(v, (f8){0}, 8, 8, 8, 8, 0, 1, 2, 3)

/* Eight frames per block: u = G·(x + x[−1]), z[k] = Σ_{j≤k} c^(k−j)·u[j] as a prefix scan in three
 * shift-multiply-add steps, y = z + c^(k+1)·y[−1]. Blocks go in pairs: the second block's
 * y = (z₂ + c^(k+1)·z₁[7]) + c^(k+9)·y[−1], so both wait only for the y[−1] before the pair and the
 * serial chain is one multiply-add and one lane broadcast per sixteen frames, not per eight (it
 * was a third of a voice's time at 64 frames: the scan itself overlaps, the chain cannot)
 * (Nodes/OnePoleLowpass.swift). y[−1] stays a vector of eight equal lanes between pairs. */
static inline __attribute__((always_inline)) f8 K(onepole_scan)(f8 x, float x1, float G, float c, float c2, float c4) {
    f8 previous = IAA_SHIFT1(x);
    previous[0] = x1;
    f8 z = G * (x + previous);
    z = z + c * IAA_SHIFT1(z);
    z = z + c2 * IAA_SHIFT2(z);
    return z + c4 * IAA_SHIFT4(z);
}

static unsigned K(onepole)(iaa_onepole *state, const float *in, float *out, long frames) {
    const float G = state->gain, c = state->feedback;
    const f8 powers = K(load8)(state->powers), further = K(load8)(state->powers + 8);
    const float c2 = c * c, c4 = c2 * c2;
    float x1 = state->previous_input;
    f8 y1 = (f8){0} + state->previous_output;
    u8 bits = (u8){0};
    long frame = 0;
    for (; frame + 16 <= frames; frame += 16) {
        const f8 xa = K(load8)(in + frame), xb = K(load8)(in + frame + 8);
        const f8 za = K(onepole_scan)(xa, x1, G, c, c2, c4);
        const f8 zb = K(onepole_scan)(xb, xa[7], G, c, c2, c4);
        const f8 wb = zb + powers * __builtin_shufflevector(za, za, 7, 7, 7, 7, 7, 7, 7, 7);
        const f8 ya = za + powers * y1, yb = wb + further * y1;
        K(store8)(out + frame, ya);
        K(store8)(out + frame + 8, yb);
        bits |= K(check8)(ya) | K(check8)(yb);
        x1 = xb[7];
        y1 = __builtin_shufflevector(yb, yb, 7, 7, 7, 7, 7, 7, 7, 7);
    }
    if (frame + 8 <= frames) {
        const f8 x = K(load8)(in + frame);
        const f8 y = K(onepole_scan)(x, x1, G, c, c2, c4) + powers * y1;
        K(store8)(out + frame, y);
        bits |= K(check8)(y);
        x1 = x[7];
        y1 = __builtin_shufflevector(y, y, 7, 7, 7, 7, 7, 7, 7, 7);
        frame += 8;
    }
    unsigned check = frames >= 8 ? K(reduce_check)(bits) : 0;
    float y = y1[0];
    for (; frame < frames; frame++) {
        const float x = in[frame];
        y = c * y + G * (x + x1);
        x1 = x;
        out[frame] = y;
        check |= K(check1)(y);
    }
    state->previous_input = x1;
    state->previous_output = y;
    return check;
}

/* Thirty-two frames at a time: four vectors of sums stay in registers while every input is added,
 * so `out` is written once, not once per input. */
static unsigned K(sum)(const float *const *inputs, long count, float *out, long frames, float gain) {
    u8 bits = (u8){0};
    unsigned check = 0;
    long frame = 0;
    for (; frame + 32 <= frames; frame += 32) {
        const float *first = inputs[0] + frame;
        f8 a = K(load8)(first), b = K(load8)(first + 8), c = K(load8)(first + 16), d = K(load8)(first + 24);
        for (long index = 1; index < count; index++) {
            const float *input = inputs[index] + frame;
            a += K(load8)(input);
            b += K(load8)(input + 8);
            c += K(load8)(input + 16);
            d += K(load8)(input + 24);
        }
        if (gain != 1) {
            a *= gain;
            b *= gain;
            c *= gain;
            d *= gain;
        }
        K(store8)(out + frame, a);
        K(store8)(out + frame + 8, b);
        K(store8)(out + frame + 16, c);
        K(store8)(out + frame + 24, d);
        bits |= K(check8)(a) | K(check8)(b) | K(check8)(c) | K(check8)(d);
    }
    if (frames >= 32) check = K(reduce_check)(bits);
    for (; frame < frames; frame++) {
        float total = inputs[0][frame];
        for (long index = 1; index < count; index++) total += inputs[index][frame];
        out[frame] = gain != 1 ? total * gain : total;
        check |= K(check1)(out[frame]);
    }
    return check;
}

static void K(mix)(const float *first, const iaa_mix_source *sources, long count, float *out, long frames) {
    long frame = 0;
    for (; frame + 16 <= frames; frame += 16) {
        f8 a = (f8){0}, b = (f8){0};
        long index = 0;
        if (first) {
            a = K(load8)(first + frame);
            b = K(load8)(first + frame + 8);
        } else {
            /* The first source sets the sum (x·g, not 0 + x·g: the same rounding as a scale). */
            a = K(load8)(sources[0].buffer + frame) * sources[0].gain;
            b = K(load8)(sources[0].buffer + frame + 8) * sources[0].gain;
            index = 1;
        }
        for (; index < count; index++) {
            const float *buffer = sources[index].buffer + frame;
            const float gain = sources[index].gain;
            if (gain == 1) {
                a += K(load8)(buffer);
                b += K(load8)(buffer + 8);
            } else {
                a += K(load8)(buffer) * gain;
                b += K(load8)(buffer + 8) * gain;
            }
        }
        K(store8)(out + frame, a);
        K(store8)(out + frame + 8, b);
    }
    for (; frame < frames; frame++) {
        long index = 0;
        float total;
        if (first) {
            total = first[frame];
        } else {
            total = sources[0].buffer[frame] * sources[0].gain;
            index = 1;
        }
        for (; index < count; index++) total += sources[index].buffer[frame] * sources[index].gain;
        out[frame] = total;
    }
}

/* The recursion runs through ic1eq and ic2eq frame by frame, so it cannot be vectorised across
 * frames; the AVX2 build gains FMA's shorter chain. The mode is chosen outside the loop. */
#define IAA_SVF_LOOP(OUTPUT)                                                                         \
    for (long frame = 0; frame < frames; frame++) {                                                  \
        const double v0 = in[frame], v3 = v0 - ic2eq;                                                \
        const double v1 = a1 * ic1eq + a2 * v3;                                                      \
        const double v2 = ic2eq + a2 * ic1eq + a3 * v3;                                              \
        ic1eq = 2 * v1 - ic1eq;                                                                      \
        ic2eq = 2 * v2 - ic2eq;                                                                      \
        out[frame] = (float)(OUTPUT);                                                                \
    }

static void K(svf)(iaa_svf *state, const float *in, float *out, long frames, int mode) {
    const double k = state->k, a1 = state->a1, a2 = state->a2, a3 = state->a3;
    double ic1eq = state->ic1eq, ic2eq = state->ic2eq;
    switch (mode) {
    case 1: IAA_SVF_LOOP(v0 - k * v1 - v2) break;
    case 2: IAA_SVF_LOOP(k * v1) break;
    default: IAA_SVF_LOOP(v2) break;
    }
    state->ic1eq = ic1eq;
    state->ic2eq = ic2eq;
}

static unsigned K(nonfinite)(const float *in, long frames) {
    unsigned check = 0;
    long frame = 0;
    if (frames >= 8) { /* short cycles skip the vector loop's final reduction */
        u8 bits = (u8){0};
        for (; frame + 8 <= frames; frame += 8) {
            const f8 x = K(load8)(in + frame);
            bits |= (u8)(x - x);
        }
        for (int lane = 0; lane < 8; lane++) check |= bits[lane];
    }
    for (; frame < frames; frame++) {
        const float x = in[frame] - in[frame];
        unsigned word;
        __builtin_memcpy(&word, &x, sizeof word);
        check |= word;
    }
    return check;
}

/* builtin:delay and builtin:poly-synth's voices, a file of their own for its size. */
#include "kernels_body_delay_voices.h"

/* The steady cycles: each node's whole cycle around the kernel above that does its work. */
static unsigned K(oscillator_cycle)(void *state, const float *const *inputs, float *const *outputs, long frames) {
    (void)inputs;
    iaa_oscillator *oscillator = state;
    const double start = oscillator->phase, increment = oscillator->increment;
    const unsigned check = K(sine)(outputs[0], frames, start, increment, oscillator->offsets, oscillator->scale);
    const double shifter = 6755399441055744.0; /* 1.5·2⁵²: rounds a double to a whole number */
    const double next = start + (double)frames * increment;
    oscillator->phase = next - ((next + shifter) - shifter);
    return check;
}

static unsigned K(gain_cycle)(void *state, const float *const *inputs, float *const *outputs, long frames) {
    const float gain = ((const iaa_gain_stage *)state)->gain;
    return K(scale_ramp)(inputs[0], outputs[0], frames, gain, 0, 0, gain);
}

static unsigned K(onepole_cycle)(void *state, const float *const *inputs, float *const *outputs, long frames) {
    return K(onepole)(state, inputs[0], outputs[0], frames);
}

static unsigned K(mixer_cycle)(void *state, const float *const *inputs, float *const *outputs, long frames) {
    const iaa_gain_stage *mixer = state;
    if (mixer->inputs <= 0) {
        for (long frame = 0; frame < frames; frame++) outputs[0][frame] = 0;
        return 0;
    }
    return K(sum)(inputs, mixer->inputs, outputs[0], frames, mixer->gain);
}

static unsigned K(svf_cycle)(void *state, const float *const *inputs, float *const *outputs, long frames) {
    iaa_svf *filter = state;
    K(svf)(filter, inputs[0], outputs[0], frames, filter->mode);
    return K(nonfinite)(outputs[0], frames);
}

static const iaa_kernel_table K(table) = {
    .sine = K(sine),
    .scale = K(scale),
    .scale_ramp = K(scale_ramp),
    .onepole = K(onepole),
    .sum = K(sum),
    .mix = K(mix),
    .svf = K(svf),
    .nonfinite = K(nonfinite),
    .delay = K(delay),
    .voices = K(voices),
    .oscillator_cycle = K(oscillator_cycle),
    .gain_cycle = K(gain_cycle),
    .onepole_cycle = K(onepole_cycle),
    .mixer_cycle = K(mixer_cycle),
    .svf_cycle = K(svf_cycle),
};
