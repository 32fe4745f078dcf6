/* A random full grid of any box size (fullgrid.c). */
#ifndef SUDOKU_TOOLS_FULLGRID_H
#define SUDOKU_TOOLS_FULLGRID_H

#include "lib/grid.h"
#include "workers/rng.h"

/* Draws of the start: the number of draws fullgrid_make takes from its
 * starts stream for box size box (box * (side - 1)). */
long fullgrid_start_draws(int box);

/* Writes a random full grid of box size box into out: the diagonal boxes
 * from starts, the rest filled by the complete solver, then the grid's
 * symmetries drawn from shuffles (which may be the same stream). Returns
 * 0, or -1 when the solver failed (out of memory). */
int fullgrid_make(struct rng *starts, struct rng *shuffles, int box, struct grid *out);

#endif
