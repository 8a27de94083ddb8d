/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rng.h — the simulator's one seeded random number generator, passed in a
 * context (no global state): POSIX erand48 over a caller-held 48-bit state,
 * so the same seed gives the same workload on every platform with a
 * conforming libc. Not cryptographic; it only draws workloads. */
#ifndef HS_SIM_RNG_H
#define HS_SIM_RNG_H

#include <stdlib.h>

typedef struct hs_rng {
	unsigned short x[3];
} hs_rng_t;

/* Seeds like srand48: the seed's low 32 bits become the state's high bits. */
static inline void hs_rng_seed(hs_rng_t *r, unsigned long seed)
{
	r->x[0] = 0x330E;
	r->x[1] = (unsigned short)(seed & 0xffff);
	r->x[2] = (unsigned short)((seed >> 16) & 0xffff);
}

/* Uniform in [0, 1). */
static inline double hs_rng_uniform01(hs_rng_t *r)
{
	return erand48(r->x);
}

/* Uniform in [a, b). */
static inline double hs_rng_range(hs_rng_t *r, double a, double b)
{
	return a + (b - a) * erand48(r->x);
}

#endif /* HS_SIM_RNG_H */
