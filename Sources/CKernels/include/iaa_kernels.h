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
    /* c^(k+1) for k = 0…7: y[−1]'s weight in lane k of an eight-frame block. */
    float powers[8];
    float previous_input;
    float previous_output;
} iaa_onepole;

/** builtin:filter's two-pole TPT state-variable filter: its integrators' state and one cutoff's
 *  coefficients (k = 1/Q, a1…a3 as Nodes/StateVariableFilter.swift computes them), in double. */
typedef struct iaa_svf {
    double ic1eq, ic2eq;
    double k, a1, a2, a3;
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

/** One internal connection as the input it feeds sees it (the renderer's MixSource). */
typedef struct iaa_mix_source {
    const float *buffer;
    float gain;
} iaa_mix_source;

/** One kernel set. Buffers may be unaligned; `out` may be the (first) input's own buffer. */
typedef struct iaa_kernel_table {
    /** A steady sine: out[f] = scale·sin(π·(2·phase(f))), phase(f) = start + f·increment in cycles,
     *  in blocks of sixteen frames whose start is reduced in double; offsets[16] holds each lane's
     *  phase within the block (lane·increment, reduced, in half cycles). */
    void (*sine)(float *out, long frames, double start, double increment, const float *offsets, float scale);
    /** out[f] = in[f]·gain. */
    void (*scale)(const float *in, float *out, long frames, float gain);
    /** out[f] = in[f]·ramp[f], ramp[f] = start + step·f for f < ramp_frames, else end. */
    void (*scale_ramp)(const float *in, float *out, long frames, float start, float step, long ramp_frames,
                       float end);
    /** The one-pole lowpass over `frames` frames at the state's coefficients. */
    void (*onepole)(iaa_onepole *state, const float *in, float *out, long frames);
    /** out[f] = gain·Σ inputs[i][f], in input order, in one pass over `out`. */
    void (*sum)(const float *_Nonnull const *_Nonnull inputs, long count, float *out, long frames, float gain);
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
