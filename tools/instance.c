/* The "general instances" of Lloyd & Amos (seeds/ant-colony-bve.txt,
 * section 4), the benchmark mode of sudoku-generate: a random full grid
 * (fullgrid.c) with a fraction of its cells kept at random. Such puzzles
 * have many solutions below about half the cells; they test solvers on
 * large grids, where unique puzzles are slow to make. */
#include "config.h"

#include "instance.h"
#include "shuffle.h"

/* The shuffle runs even when every cell is kept, so that every fraction
 * draws the same numbers: --keep=1 prints the solutions of that seed's
 * puzzles, and a higher fraction keeps the same cells and more (the same
 * puzzles, made easier). */
void instance_keep(struct rng *r, struct grid *g, int keep)
{
	static int order[GRID_MAX_CELLS];
	for (int i = 0; i < g->cells; i++)
		order[i] = i;
	shuffle_ints(r, order, g->cells);
	for (int i = keep; i < g->cells; i++)
		g->cell[order[i]] = 0;
}
