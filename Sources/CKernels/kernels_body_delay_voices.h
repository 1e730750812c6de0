/*
 * builtin:delay's and builtin:poly-synth's kernels, part of the kernels' one body: included by
 * kernels_body.h where they belong in it, so they are compiled once per kernel set like the rest
 * (K(name) names this build's copy).
 */

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
