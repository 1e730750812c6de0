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

static inline __attribute__((always_inline)) float K(ramp_at)(iaa_parameter_ramp ramp, long frame) {
    return frame < ramp.frames ? ramp.start + ramp.step * (float)frame : ramp.end;
}

/* Swift's min(max(x, low), high): a NaN stays NaN. */
static inline __attribute__((always_inline)) float K(clamp)(float x, float low, float high) {
    const float above = low > x ? low : x;
    return high < above ? high : above;
}

/* The sample `delay` frames before `write_index`, interpolated linearly between neighbours (a
 * whole delay reads the stored sample exactly): the delay's read for a single frame, where the
 * tap moves, the routing moves or the line wraps. */
static inline __attribute__((always_inline)) float K(tap)(const float *line, long capacity, long write_index,
                                                          double delay) {
    double position = (double)write_index - delay;
    if (position < 0) position += (double)capacity;
    const long whole = (long)position;
    const float fraction = (float)(position - (double)whole);
    const long index = whole < capacity ? whole : whole - capacity;
    const long next = index + 1 < capacity ? index + 1 : 0;
    const float current = line[index];
    return fraction == 0 ? current : current + fraction * (line[next] - current);
}

/* What the delay feeds back into its lines and what it outputs, from the dry inputs and the wet
 * taps: the straight routing and the crossed one (the mono input into the left line only, each
 * echo into the other side) blended by ping_pong, then dry and wet by mix. For one frame (in
 * lane 0) or eight, so the arithmetic is written once. */
static inline __attribute__((always_inline)) void K(delay_mix)(f8 dry_left, f8 dry_right, f8 wet_left, f8 wet_right,
                                                               float feedback, float ping_pong, float mix,
                                                               f8 *feed, f8 *out) {
    const f8 straight_left = dry_left + feedback * wet_left;
    const f8 straight_right = dry_right + feedback * wet_right;
    const f8 crossed_left = (dry_left + dry_right) * 0.5f + feedback * wet_right;
    const f8 crossed_right = feedback * wet_left;
    feed[0] = straight_left + (crossed_left - straight_left) * ping_pong;
    feed[1] = straight_right + (crossed_right - straight_right) * ping_pong;
    out[0] = dry_left + (wet_left - dry_left) * mix;
    out[1] = dry_right + (wet_right - dry_right) * mix;
}

/* One frame with everything that may move: the old tap fading out over fade_frames, the routing
 * stepping towards its target. */
static void K(delay_frame)(iaa_delay *state, const float *in_left, const float *in_right, float *out_left,
                           float *out_right, long frame, float feedback, float mix) {
    float *left = state->left, *right = state->right;
    const long capacity = state->capacity, write = state->write_index;
    float wet_left = K(tap)(left, capacity, write, state->delay);
    float wet_right = K(tap)(right, capacity, write, state->delay);
    if (state->fade_remaining > 0) {
        const float old = (float)state->fade_remaining / (float)state->fade_frames;
        wet_left += (K(tap)(left, capacity, write, state->previous_delay) - wet_left) * old;
        wet_right += (K(tap)(right, capacity, write, state->previous_delay) - wet_right) * old;
        state->fade_remaining -= 1;
    }
    float ping_pong = state->ping_pong;
    if (ping_pong < state->ping_target) {
        const float up = ping_pong + state->ping_step;
        ping_pong = 1 < up ? 1 : up;
    } else if (ping_pong > state->ping_target) {
        const float down = ping_pong - state->ping_step;
        ping_pong = 0 >= down ? 0 : down;
    }
    state->ping_pong = ping_pong;
    f8 feed[2], out[2];
    K(delay_mix)((f8){in_left[frame]}, (f8){in_right[frame]}, (f8){wet_left}, (f8){wet_right}, feedback, ping_pong,
                 mix, feed, out);
    left[write] = feed[0][0];
    right[write] = feed[1][0];
    state->write_index = write + 1 < capacity ? write + 1 : 0;
    out_left[frame] = out[0][0];
    out_right[frame] = out[1][0];
}

/* Frames [frame, to) at a steady tap, routing, feedback and mix, eight frames a vector: the taps
 * of consecutive frames are consecutive samples of each line, all written before the block when
 * the delay is at least eight frames (so a block's writes never feed its own reads), and the
 * fraction between neighbours is the same for every frame. Runs stop where the write index or
 * the tap's next sample wraps; that frame (and every frame of a delay under eight) goes alone. */
static void K(delay_steady)(iaa_delay *state, const float *in_left, const float *in_right, float *out_left,
                            float *out_right, long frame, long to, float feedback, float mix) {
    float *left = state->left, *right = state->right;
    const long capacity = state->capacity;
    const long whole = (long)state->delay;
    const double part = state->delay - (double)whole;
    const long back = part > 0 ? whole + 1 : whole;
    const float fraction = part > 0 ? (float)(1 - part) : 0;
    const float ping_pong = state->ping_pong;
    while (frame < to) {
        const long write = state->write_index;
        const long read = write >= back ? write - back : write - back + capacity;
        long run = to - frame;
        if (run > capacity - write) run = capacity - write;
        if (run > capacity - 1 - read) run = capacity - 1 - read;
        if (whole < 8 || run == 0) {
            K(delay_frame)(state, in_left, in_right, out_left, out_right, frame, feedback, mix);
            frame += 1;
            continue;
        }
        for (long done = 0; done < run; done += 8) {
            const long lanes = run - done < 8 ? run - done : 8, at = frame + done, from = read + done;
            f8 feed[2], out[2];
            const f8 left_now = K(load_upto)(left + from, lanes), left_next = K(load_upto)(left + from + 1, lanes);
            const f8 right_now = K(load_upto)(right + from, lanes), right_next = K(load_upto)(right + from + 1, lanes);
            K(delay_mix)(K(load_upto)(in_left + at, lanes), K(load_upto)(in_right + at, lanes),
                         fraction == 0 ? left_now : left_now + fraction * (left_next - left_now),
                         fraction == 0 ? right_now : right_now + fraction * (right_next - right_now),
                         feedback, ping_pong, mix, feed, out);
            K(store_upto)(left + write + done, feed[0], lanes);
            K(store_upto)(right + write + done, feed[1], lanes);
            K(store_upto)(out_left + at, out[0], lanes);
            K(store_upto)(out_right + at, out[1], lanes);
        }
        state->write_index = write + run < capacity ? write + run : 0;
        frame += run;
    }
}

/* The delay between two moves of its tap: frame by frame while the old tap fades, the routing
 * moves or feedback or mix ramps, then the steady loop. */
static void K(delay)(iaa_delay *state, const float *in_left, const float *in_right, float *out_left, float *out_right,
                     long from, long to, iaa_parameter_ramp feedback, iaa_parameter_ramp mix) {
    long frame = from;
    for (; frame < to; frame++) {
        if (state->fade_remaining == 0 && state->ping_pong == state->ping_target && frame >= feedback.frames
            && frame >= mix.frames)
            break;
        K(delay_frame)(state, in_left, in_right, out_left, out_right, frame,
                       K(clamp)(K(ramp_at)(feedback, frame), 0, 0.95f), K(clamp)(K(ramp_at)(mix, frame), 0, 1));
    }
    if (frame < to)
        K(delay_steady)(state, in_left, in_right, out_left, out_right, frame, to, K(clamp)(feedback.end, 0, 0.95f),
                        K(clamp)(mix.end, 0, 1));
}

/* Lane by lane, yes where the mask is set, else no. */
static inline __attribute__((always_inline)) d4 K(select4)(l4 mask, d4 yes, d4 no) {
    return (d4)((mask & (l4)yes) | (~mask & (l4)no));
}

/* iaa_sine_cycles in four lanes: the same reduction and series, the fold by masks. */
static inline __attribute__((always_inline)) d4 K(sine4)(d4 cycles) {
    const double shifter = 6755399441055744.0;
    d4 r = cycles - ((cycles + shifter) - shifter);
    r = K(select4)((l4)(r > 0.25), 0.5 - r, K(select4)((l4)(r < -0.25), -0.5 - r, r));
    const d4 t = 2 * 3.141592653589793 * r;
    return IAA_SINE_SERIES(t, t * t);
}

/* iaa_polyblep_saw in four lanes: both corrections computed, each kept only where it applies. */
static inline __attribute__((always_inline)) d4 K(saw4)(d4 phase, d4 increment) {
    const d4 x = phase / increment, y = (phase - 1) / increment;
    const d4 correction = K(select4)((l4)(phase < increment), x + x - x * x - 1,
                                     K(select4)((l4)(phase > 1 - increment), y * y + y + y + 1, (d4){0}));
    return (2 * phase - 1) - correction;
}

/* A voice is one serial chain (its phase and its envelope, frame to frame): each goes alone, in
 * registers, its waveform chosen outside the loop. */
#define IAA_VOICE_LOOP(WAVE)                                                                        \
    for (long frame = from; frame < to && envelope.stage != IAA_ENVELOPE_IDLE; frame++) {           \
        const double level = iaa_envelope_next(&envelope, K(clamp)(K(ramp_at)(sustain, frame), 0, 1)); \
        out[frame] += (float)((WAVE) * level);                                                      \
        phase += increment;                                                                         \
        if (phase >= 1) phase -= 1;                                                                 \
    }

static void K(voice)(iaa_voice *voice, float *out, long from, long to, iaa_parameter_ramp sustain, int saw) {
    iaa_envelope envelope = voice->envelope;
    double phase = voice->phase;
    const double increment = voice->increment;
    if (saw) {
        IAA_VOICE_LOOP(iaa_polyblep_saw(phase, increment))
    } else {
        IAA_VOICE_LOOP(iaa_sine_cycles(phase))
    }
    voice->envelope = envelope;
    voice->phase = phase;
}

/* Voices held at a steady sustain have a constant level, so nothing but the phase runs from frame
 * to frame, and up to four go side by side in lanes, summed into each frame: a chord costs about
 * what one voice does. Unused lanes are silent (level 0) with an increment that keeps their
 * arithmetic finite. */
#define IAA_HELD_LOOP(WAVE)                                                                         \
    for (long frame = from; frame < to; frame++) {                                                  \
        const d4 sum = (WAVE) * level;                                                              \
        out[frame] += (float)((sum[0] + sum[1]) + (sum[2] + sum[3]));                               \
        phase += increment;                                                                         \
        phase = K(select4)((l4)(phase >= 1), phase - 1, phase);                                     \
    }

static void K(voices_held)(iaa_voice *voices, const long *held, long lanes, float *out, long from, long to,
                           double sustain, int saw) {
    d4 phase = (d4){0}, increment = (d4){0} + 0.5, level = (d4){0};
    for (long lane = 0; lane < lanes; lane++) {
        iaa_envelope *envelope = &voices[held[lane]].envelope;
        /* What iaa_envelope_next sets on every sustained frame. */
        envelope->level = envelope->peak * sustain;
        phase[lane] = voices[held[lane]].phase;
        increment[lane] = voices[held[lane]].increment;
        level[lane] = envelope->level;
    }
    if (saw) {
        IAA_HELD_LOOP(K(saw4)(phase, increment))
    } else {
        IAA_HELD_LOOP(K(sine4)(phase))
    }
    for (long lane = 0; lane < lanes; lane++) voices[held[lane]].phase = phase[lane];
}

/* Every sounding voice's wave times its envelope, added into out: the held ones four at a time
 * when the sustain holds still over the span, the others (attack, decay, release, a moving
 * sustain) one by one. */
static void K(voices)(iaa_voice *voices, long count, float *out, long from, long to, iaa_parameter_ramp sustain,
                      int saw) {
    const int steady = from >= sustain.frames;
    const double level = K(clamp)(sustain.end, 0, 1);
    long held[4], lanes = 0;
    for (long index = 0; index < count; index++) {
        const iaa_envelope_stage stage = voices[index].envelope.stage;
        if (stage == IAA_ENVELOPE_IDLE) continue;
        if (!steady || stage != IAA_ENVELOPE_SUSTAIN) {
            K(voice)(&voices[index], out, from, to, sustain, saw);
            continue;
        }
        held[lanes++] = index;
        if (lanes == 4) {
            K(voices_held)(voices, held, lanes, out, from, to, level, saw);
            lanes = 0;
        }
    }
    if (lanes > 0) K(voices_held)(voices, held, lanes, out, from, to, level, saw);
}

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
