/* The random draws of sudoku-generate. They stay as the first generator
 * made them (rng_next modulo n), so that a seed gives the puzzles it gave
 * then: the committed benchmark sets (puzzles/gen-*.txt) are remade from
 * the command in their first line. */
#ifndef SUDOKU_TOOLS_SHUFFLE_H
#define SUDOKU_TOOLS_SHUFFLE_H

#include "workers/rng.h"

/* A uniform integer in [0, n). */
static inline int shuffle_below(struct rng *r, int n)
{
	return (int)(rng_next(r) % (uint64_t)n);
}

/* Fisher-Yates: n - 1 draws. */
static inline void shuffle_ints(struct rng *r, int *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = shuffle_below(r, i + 1), t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

#endif
