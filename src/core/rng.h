/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rng.h — every seeded random number generator of hetsched, each over a
 * caller-held state (no global state). Not cryptographic.
 *
 * Two generators, because published results depend on each sequence:
 *  - hs_rng_t: POSIX erand48 over a 48-bit state, seeded like srand48, so
 *    the same seed gives the same sequence with every conforming libc.
 *    The simulator's workloads and the mechanism's shuffles of GPU types
 *    (whose state is saved in the mechanism state file) use it.
 *  - hs_rng64_*: splitmix64 over a 64-bit state, for the policies'
 *    random tie-breaks and POP's random partitions.
 * Replacing either would change the simulator's results in doc/results.md
 * and the state files of running clusters. */
#ifndef HS_CORE_RNG_H
#define HS_CORE_RNG_H

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

/* Next number of a splitmix64 state: deterministic per seed. */
static inline unsigned long long hs_rng64_next(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1) from a splitmix64 state (53 bits). */
static inline double hs_rng64_uniform(unsigned long long *state)
{
	return (double)(hs_rng64_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* HS_CORE_RNG_H */
