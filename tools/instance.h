/* Benchmark instances (instance.c): a full grid with a fraction of its
 * cells kept at random, not unique. */
#ifndef SUDOKU_TOOLS_INSTANCE_H
#define SUDOKU_TOOLS_INSTANCE_H

#include "lib/grid.h"
#include "workers/rng.h"

/* Blanks all but keep cells of g, chosen with draws from r. */
void instance_keep(struct rng *r, struct grid *g, int keep);

#endif
