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

static void K(sine)(float *out, long frames, double start, double increment, const float *offsets, float scale) {
    const f8 low = K(load8)(offsets), high = K(load8)(offsets + 8);
    const double shifter = 6755399441055744.0; /* 1.5·2⁵²: rounds a double to a whole number */
    for (long frame = 0; frame < frames; frame += 16) {
        double cycles = start + (double)frame * increment;
        cycles = cycles - ((cycles + shifter) - shifter);
        const float block = (float)(2 * cycles);
        const f8 first = K(sine8)(low + block, scale);
        const long left = frames - frame;
        if (left >= 16) {
            K(store8)(out + frame, first);
            K(store8)(out + frame + 8, K(sine8)(high + block, scale));
        } else {
            K(store_some)(out + frame, first, left);
            if (left > 8) K(store_some)(out + frame + 8, K(sine8)(high + block, scale), left - 8);
        }
    }
}

static void K(scale)(const float *in, float *out, long frames, float gain) {
    long frame = 0;
    for (; frame + 8 <= frames; frame += 8) K(store8)(out + frame, K(load8)(in + frame) * gain);
    for (; frame < frames; frame++) out[frame] = in[frame] * gain;
}

static void K(scale_ramp)(const float *in, float *out, long frames, float start, float step, long ramp_frames,
                          float end) {
    const long ramped = ramp_frames < frames ? ramp_frames : frames;
    long frame = 0;
    for (; frame < ramped; frame++) out[frame] = in[frame] * (start + step * (float)frame);
    for (; frame + 8 <= frames; frame += 8) K(store8)(out + frame, K(load8)(in + frame) * end);
    for (; frame < frames; frame++) out[frame] = in[frame] * end;
}

/* Lanes shifted up by `by` (1, 2 or 4), zeros coming in. */
#define IAA_SHIFT1(v) __builtin_shufflevector(v, (f8){0}, 8, 0, 1, 2, 3, 4, 5, 6)
#define IAA_SHIFT2(v) __builtin_shufflevector(v, (f8){0}, 8, 8, 0, 1, 2, 3, 4, 5)
#define IAA_SHIFT4(v) __builtin_shufflevector(v, (f8){0}, 8, 8, 8, 8, 0, 1, 2, 3)

/* Eight frames per block: u = G·(x + x[−1]), z[k] = Σ_{j≤k} c^(k−j)·u[j] as a prefix scan in three
 * shift-multiply-add steps, y = z + c^(k+1)·y[−1]; only that last step waits for the previous
 * block, so the serial chain is one multiply-add per eight frames (Nodes/OnePoleLowpass.swift). */
static void K(onepole)(iaa_onepole *state, const float *in, float *out, long frames) {
    const float G = state->gain, c = state->feedback;
    const f8 powers = K(load8)(state->powers);
    const float c2 = c * c, c4 = c2 * c2;
    float x1 = state->previous_input, y1 = state->previous_output;
    long frame = 0;
    for (; frame + 8 <= frames; frame += 8) {
        const f8 x = K(load8)(in + frame);
        f8 previous = IAA_SHIFT1(x);
        previous[0] = x1;
        f8 z = G * (x + previous);
        z = z + c * IAA_SHIFT1(z);
        z = z + c2 * IAA_SHIFT2(z);
        z = z + c4 * IAA_SHIFT4(z);
        const f8 y = z + powers * y1;
        K(store8)(out + frame, y);
        x1 = x[7];
        y1 = y[7];
    }
    for (; frame < frames; frame++) {
        const float x = in[frame];
        const float y = c * y1 + G * (x + x1);
        x1 = x;
        y1 = y;
        out[frame] = y;
    }
    state->previous_input = x1;
    state->previous_output = y1;
}

/* Thirty-two frames at a time: four vectors of sums stay in registers while every input is added,
 * so `out` is written once, not once per input. */
static void K(sum)(const float *const *inputs, long count, float *out, long frames, float gain) {
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
    }
    for (; frame < frames; frame++) {
        float total = inputs[0][frame];
        for (long index = 1; index < count; index++) total += inputs[index][frame];
        out[frame] = gain != 1 ? total * gain : total;
    }
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

static const iaa_kernel_table K(table) = {
    .sine = K(sine),
    .scale = K(scale),
    .scale_ramp = K(scale_ramp),
    .onepole = K(onepole),
    .sum = K(sum),
    .mix = K(mix),
    .svf = K(svf),
    .nonfinite = K(nonfinite),
};
