/*
 * iaa_kernels.h: the inner loops of the built-in nodes and of the renderer's mixing, in C.
 *
 * Why C: Swift compiles a whole module for one CPU, so a binary that must run on baseline x86-64
 * (SSE2, no FMA) could never use AVX2. Here every kernel is compiled twice from one body
 * (kernels_body.h): once for the baseline and, on x86-64, once under a target("avx2,fma")
 * attribute (not a flag for the whole target, so nothing else needs AVX2). The set is chosen once,
 * when the library is loaded, from what the CPU reports; the audio thread only calls through the
 * chosen table's function pointers (no per-sample dispatch). On ARM64 and other targets the
 * portable build is the only one (NEON by auto-vectorisation).
 *
 * Every kernel is real-time safe: no allocation, no lock, no call into libc.
 */
#ifndef IAA_KERNELS_H
#define IAA_KERNELS_H

#pragma clang assume_nonnull begin

/** The one-pole lowpass of builtin:lowpass: y[n] = c·y[n−1] + G·(x[n] + x[n−1]). */
typedef struct iaa_onepole {
    float gain;       /* G */
    float feedback;   /* c */
    /* c^(k+1) for k = 0…15: y[−1]'s weight in lane k of an eight-frame block, then (k ≥ 8) in lane
       k − 8 of the block after it. */
    float powers[16];
    float previous_input;
    float previous_output;
} iaa_onepole;

/** builtin:filter's two-pole TPT state-variable filter: its integrators' state and one cutoff's
 *  coefficients (k = 1/Q, a1…a3 as Nodes/StateVariableFilter.swift computes them), in double,
 *  and the mode its steady cycle renders (0 lowpass, 1 highpass, 2 bandpass). */
typedef struct iaa_svf {
    double ic1eq, ic2eq;
    double k, a1, a2, a3;
    int mode;
} iaa_svf;

/** A NodeKit ParameterRamp as the kernels read it: start + step·f at frames f < frames, then end. */
typedef struct iaa_parameter_ramp {
    float start;
    float step;
    long frames;
    float end;
} iaa_parameter_ramp;

/** builtin:delay's two lines and its tap (Nodes/DelayNode.swift moves the tap; the kernel runs
 *  the frames between). Both lines are written in step, so they share one write index. */
typedef struct iaa_delay {
    float *_Nullable left, *_Nullable right; /* `capacity` samples each */
    long capacity;
    long write_index;
    double delay;          /* the tap in frames, 1 ≤ delay ≤ capacity − 2 */
    double previous_delay; /* the tap being faded from while fade_remaining > 0 */
    long fade_remaining, fade_frames;
    float ping_pong; /* 0 straight stereo, 1 ping-pong; between while it moves towards ping_target */
    float ping_target;
    float ping_step;
} iaa_delay;

typedef enum iaa_envelope_stage {
    IAA_ENVELOPE_IDLE = 0,
    IAA_ENVELOPE_ATTACK,
    IAA_ENVELOPE_DECAY,
    IAA_ENVELOPE_SUSTAIN,
    IAA_ENVELOPE_RELEASE,
} iaa_envelope_stage;

/** A linear ADSR envelope (Nodes/Envelope.swift starts and releases it; iaa_envelope_next
 *  advances it). */
typedef struct iaa_envelope {
    iaa_envelope_stage stage;
    double level; /* from 0 to peak */
    double peak;  /* the level the attack reaches */
    double attack_step, decay_step;
    double release_start; /* the level when the release started */
    long release_frames, release_remaining;
} iaa_envelope;

/** One voice of builtin:poly-synth: its envelope, its oscillator and which note it plays (note
 *  and age only for the node's voice allocation, in Swift). */
typedef struct iaa_voice {
    iaa_envelope envelope;
    double phase;     /* in cycles, [0, 1) */
    double increment; /* cycles per frame */
    unsigned long long age; /* the note-on count at its start: the smallest is the oldest */
    unsigned char note;
} iaa_voice;

/** One internal connection as the input it feeds sees it (the renderer's MixSource). */
typedef struct iaa_mix_source {
    const float *buffer;
    float gain;
} iaa_mix_source;

/** builtin:oscillator's state at a steady frequency and amplitude: what its steady cycle reads
 *  and advances (Nodes/OscillatorNode.swift sets the rest when a parameter changes). */
typedef struct iaa_oscillator {
    double phase;      /* where the next frame starts, in cycles within [−½, ½] */
    double increment;  /* cycles per frame (NaN until the first cycle) */
    float scale;       /* the amplitude */
    float offsets[16]; /* lane·increment reduced, in half cycles, as `sine` reads them */
} iaa_oscillator;

/** builtin:gain's and builtin:mixer's state at a steady gain: the gain, and how many inputs a
 *  mixer sums (the gain's cycle reads its one input and not this count). */
typedef struct iaa_gain_stage {
    float gain;
    long inputs;
} iaa_gain_stage;

/** A built-in node's whole cycle at steady parameters, as one C call: reads `inputs`, writes
 *  `outputs` (the node's buffer tables, in layout order), advances `state` and returns the
 *  outputs' finiteness check. The renderer calls it itself while the node's app is settled
 *  (AudioGraph's SteadyCycleNode), and the node's own `process` makes the same call at steady
 *  parameters, so the two paths are one arithmetic. */
typedef unsigned (*iaa_steady_cycle)(void *state, const float *_Nonnull const *_Nonnull inputs,
                                     float *_Nonnull const *_Nonnull outputs, long frames);

/** One kernel set. Buffers may be unaligned; `out` may be the (first) input's own buffer. The
 *  kernels that write a built-in node's output return its finiteness check: the OR of the bit
 *  patterns of x − x over every sample written, 0 exactly when all are finite (as `nonfinite`
 *  computes it for a buffer), so the node reports it instead of the renderer re-reading the output. */
typedef struct iaa_kernel_table {
    /** A steady sine: out[f] = scale·sin(π·(2·phase(f))), phase(f) = start + f·increment in cycles,
     *  in blocks of sixteen frames whose start is reduced in double; offsets[16] holds each lane's
     *  phase within the block (lane·increment, reduced, in half cycles). `start` must already lie
     *  within [−½, ½] (the first block uses it as it is). Returns the output's finiteness check. */
    unsigned (*sine)(float *out, long frames, double start, double increment, const float *offsets, float scale);
    /** out[f] = in[f]·gain. */
    void (*scale)(const float *in, float *out, long frames, float gain);
    /** out[f] = in[f]·ramp[f], ramp[f] = start + step·f for f < ramp_frames, else end. */
    unsigned (*scale_ramp)(const float *in, float *out, long frames, float start, float step, long ramp_frames,
                           float end);
    /** The one-pole lowpass over `frames` frames at the state's coefficients. */
    unsigned (*onepole)(iaa_onepole *state, const float *in, float *out, long frames);
    /** out[f] = gain·Σ inputs[i][f], in input order, in one pass over `out`. */
    unsigned (*sum)(const float *_Nonnull const *_Nonnull inputs, long count, float *out, long frames, float gain);
    /** out[f] = first[f] (when given) + Σ sources[i].gain·sources[i].buffer[f], in one pass. */
    void (*mix)(const float *_Nullable first, const iaa_mix_source *sources, long count, float *out, long frames);
    /** The state-variable filter over `frames` frames at steady coefficients; mode 0 lowpass,
     *  1 highpass, 2 bandpass (scaled by k). */
    void (*svf)(iaa_svf *state, const float *in, float *out, long frames, int mode);
    /** The OR of the bit patterns of x − x over the buffer: 0 when every sample is finite. */
    unsigned (*nonfinite)(const float *in, long frames);
    /** builtin:delay over frames [from, to) of a cycle whose buffers these are, at the state's tap
     *  (fading from previous_delay while fade_remaining > 0); the ramps are read at the cycle's
     *  frame numbers. An output may be an input's own buffer. */
    void (*delay)(iaa_delay *state, const float *in_left, const float *in_right, float *out_left, float *out_right,
                  long from, long to, iaa_parameter_ramp feedback, iaa_parameter_ramp mix);
    /** Adds every sounding voice (saw ≠ 0: polyBLEP saw, else sine, times its envelope) into
     *  out[from..to); `sustain` is read at the cycle's frame numbers. */
    void (*voices)(iaa_voice *voices, long count, float *out, long from, long to, iaa_parameter_ramp sustain, int saw);
    /** Steady cycles (iaa_steady_cycle). builtin:oscillator (iaa_oscillator): `sine` from the
     *  state's phase, then the phase advanced by the cycle and reduced to [−½, ½]. */
    iaa_steady_cycle oscillator_cycle;
    /** builtin:gain (iaa_gain_stage): the first input times the gain, as `scale_ramp` at a ramp
     *  of 0 frames. */
    iaa_steady_cycle gain_cycle;
    /** builtin:lowpass (iaa_onepole): `onepole` over the first input. */
    iaa_steady_cycle onepole_cycle;
    /** builtin:mixer (iaa_gain_stage): `sum` of `inputs` inputs times the gain; silence when
     *  there are none. */
    iaa_steady_cycle mixer_cycle;
    /** builtin:filter (iaa_svf): `svf` over the first input in the state's mode, then
     *  `nonfinite` over what it wrote (the recursion runs in double, frame by frame). */
    iaa_steady_cycle svf_cycle;
} iaa_kernel_table;

typedef enum iaa_kernel_set {
    IAA_KERNELS_PORTABLE = 0,
    IAA_KERNELS_AVX2_FMA = 1,
} iaa_kernel_set;

/* Set once by the library's constructor, before main; only read afterwards. */
extern const iaa_kernel_table *iaa_kernels_active;

/** The table chosen when the library was loaded. Inline, so reaching a kernel costs one load and
 *  an indirect call. Realtime: safe. */
static inline const iaa_kernel_table *iaa_kernels(void) { return iaa_kernels_active; }
/** Which set that is. */
iaa_kernel_set iaa_kernels_selected(void);
/** A set's table, or NULL when this CPU (or this build's architecture) cannot run it: for tests
 *  that compare the sets, and for the benchmark's report. */
const iaa_kernel_table *_Nullable iaa_kernels_of(iaa_kernel_set set);
/** The name of a set ("portable", "avx2+fma"). */
const char *iaa_kernel_set_name(iaa_kernel_set set);

/* The voice's per-frame pieces are static inline here, not kernels: the voices kernel inlines them
 * into each build, and Swift calls the same code where it runs one frame at a time (the step
 * sequencer's envelope and saw, the oscillator under a frequency ramp, filter coefficients), so
 * the arithmetic exists once. */

/** sin(t) for |t| ≤ π/2 by its Taylor series to t¹³ (1/13!, 1/11!, … 1/3!, 1), Horner's way, for
 *  a double t or a vector of them (the voices kernel's lanes): one series for both. */
#define IAA_SINE_SERIES(t, t2)                                                                           \
    ((t) * (1 + (t2) * (-1.0 / 6 + (t2) * (1.0 / 120 + (t2) * (-1.0 / 5040 + (t2) * (1.0 / 362880         \
        + (t2) * (-1.0 / 39916800 + (t2) * (1.0 / 6227020800))))))))

/** sin(2π·cycles) by range reduction and a Taylor polynomial, in double: adding and subtracting
 *  1.5·2⁵² rounds to the nearest whole cycle (no libm call, which baseline x86-64 would need),
 *  sin(2π(½ − r)) = sin(2πr) folds r onto |r| ≤ ¼, and the series to t¹³ errs by less than 1e-9
 *  there, far below a float sample's resolution. Valid for |cycles| < 2⁵¹. Realtime: safe. */
static inline double iaa_sine_cycles(double cycles) {
    const double shifter = 6755399441055744.0;
    double r = cycles - ((cycles + shifter) - shifter);
    if (r > 0.25) {
        r = 0.5 - r;
    } else if (r < -0.25) {
        r = -0.5 - r;
    }
    const double t = 2 * 3.141592653589793 * r;
    return IAA_SINE_SERIES(t, t * t);
}

/** A sawtooth from −1 to 1 at `phase` (cycles, [0, 1)) with its jump smoothed by a polynomial
 *  band-limited step: a naive saw aliases loudly, its jump having energy far above Nyquist;
 *  polyBLEP subtracts a two-sample polynomial estimate of it around the jump, for two compares.
 *  `increment` (cycles per frame) is the correction's width. Realtime: safe. */
static inline double iaa_polyblep_saw(double phase, double increment) {
    double saw = 2 * phase - 1;
    if (!(increment > 0)) return saw;
    if (phase < increment) {
        const double x = phase / increment;
        saw -= x + x - x * x - 1;
    } else if (phase > 1 - increment) {
        const double x = (phase - 1) / increment;
        saw -= x * x + x + x + 1;
    }
    return saw;
}

/** Advances the envelope one frame and returns that frame's level; `sustain` in [0, 1] is read
 *  every frame (the one parameter that may move while a note holds). Linear segments, so a
 *  release of N frames reaches exact silence on its N-th frame and the voice can stop. The first
 *  frame after a start is already one step up: a note sounds from the frame of its event.
 *  Realtime: safe. */
static inline double iaa_envelope_next(iaa_envelope *envelope, double sustain) {
    switch (envelope->stage) {
    case IAA_ENVELOPE_IDLE:
        return 0;
    case IAA_ENVELOPE_ATTACK:
        if (envelope->level < envelope->peak) {
            envelope->level += envelope->attack_step;
            if (envelope->level >= envelope->peak) {
                envelope->level = envelope->peak;
                envelope->stage = IAA_ENVELOPE_DECAY;
            }
            break;
        }
        /* An attack restarted above its peak decays instead of jumping down. */
        __attribute__((fallthrough));
    case IAA_ENVELOPE_DECAY: {
        envelope->stage = IAA_ENVELOPE_DECAY;
        const double target = envelope->peak * sustain;
        envelope->level -= envelope->decay_step;
        if (envelope->level <= target) {
            envelope->level = target;
            envelope->stage = IAA_ENVELOPE_SUSTAIN;
        }
        break;
    }
    case IAA_ENVELOPE_SUSTAIN:
        envelope->level = envelope->peak * sustain;
        break;
    case IAA_ENVELOPE_RELEASE:
        envelope->release_remaining -= 1;
        /* From the start level, not by subtraction, so the last frame is exactly 0. */
        envelope->level = envelope->release_start * (double)envelope->release_remaining
            / (double)envelope->release_frames;
        if (envelope->release_remaining <= 0) {
            envelope->level = 0;
            envelope->stage = IAA_ENVELOPE_IDLE;
        }
        break;
    }
    return envelope->level;
}

/** Asks the CPU to bring `lines` cache lines from `address` on into the cache, without waiting.
 *  The audio thread wakes each cycle with its caches cold (jackd and the other clients ran in
 *  between), and a step's loads (slot, node, parameter ramps) each depend on the one before, so
 *  the renderer asks for the next steps' lines while it runs this one: the misses then overlap
 *  instead of following each other. A hint only: it never faults. Realtime: safe. */
static inline void iaa_prefetch(const void *_Nullable address, long lines) {
    const char *bytes = (const char *)address;
    for (long line = 0; line < lines; line++) __builtin_prefetch(bytes + 64 * line, 0, 3);
}

#pragma clang assume_nonnull end

#endif
