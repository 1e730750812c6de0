#ifndef CVOICEREFERENCE_H
#define CVOICEREFERENCE_H

/// One benchmark voice by hand: a sine oscillator (phase in cycles, [0, 1)), then two gains,
/// summed into one bus. The engine renders the same thing as oscillator → gain → gain → mixer.
typedef struct {
    float phase;
    float increment;   /* cycles per frame: frequency / sample rate */
    float amplitude;
    float gain1;
    float gain2;
} cvr_voice;

/// Scalar: `sinf` with a phase accumulator, one frame at a time, vectorization disabled.
/// Overwrites `out[0..<frames]` with the sum of all voices.
void cvr_render_scalar(cvr_voice *voices, int count, float *out, int frames);

/// Vectorized: 8 frames per AVX2 register, the phase of each frame computed from the cycle's
/// start (as the engine's oscillator does), sine by a degree-11 odd polynomial in float.
/// Falls back to a portable loop of the same arithmetic when the CPU lacks AVX2/FMA.
void cvr_render_vector(cvr_voice *voices, int count, float *out, int frames);

/// 1 when `cvr_render_vector` runs the AVX2 path on this CPU.
int cvr_has_avx2(void);

#endif
