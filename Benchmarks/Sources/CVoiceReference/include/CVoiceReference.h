#ifndef CVOICEREFERENCE_H
#define CVOICEREFERENCE_H

/// One benchmark voice by hand: a sine oscillator (phase in cycles, [0, 1)), a gain, a one-pole
/// lowpass, summed into one bus. The engine renders the same thing as
/// builtin:oscillator → builtin:gain → builtin:lowpass → builtin:mixer.
typedef struct {
    float phase;
    float increment;   /* cycles per frame: frequency / sample rate */
    float amplitude;
    float gain;
    /* The bilinear one-pole, y[n] = feedback·y[n−1] + lowpass_gain·(x[n] + x[n−1]). */
    float lowpass_gain;
    float feedback;
    float previous_input;
    float previous_output;
    /* For the vector path: y[−1]'s weight in lane k of an 8-frame block, feedback^(k+1). */
    float powers[8];
} cvr_voice;

/// Sets the lowpass of `voice` for `cutoff` Hz: G = g/(1+g), c = 1 − 2G with g = tan(π·f/fs),
/// and the powers of c, in double.
void cvr_voice_set_cutoff(cvr_voice *voice, double cutoff, double sample_rate);

/// Scalar: `sinf` with a phase accumulator, then the gain and the lowpass recursion, one frame
/// at a time, vectorization disabled. Overwrites `out[0..<frames]` with the sum of all voices.
void cvr_render_scalar(cvr_voice *voices, int count, float *out, int frames);

/// Vectorized: 8 frames per AVX2 register, the phase of each frame computed from the cycle's
/// start (as the engine's oscillator does), sine by a degree-11 odd polynomial in float, the gain
/// folded into the amplitude, the lowpass over each 8-frame block as a prefix scan (three
/// shift-FMA steps, as the engine's OnePoleLowpass does per half block).
/// Falls back to a portable loop of the same arithmetic when the CPU lacks AVX2/FMA.
void cvr_render_vector(cvr_voice *voices, int count, float *out, int frames);

/// 1 when `cvr_render_vector` runs the AVX2 path on this CPU.
int cvr_has_avx2(void);

#endif
