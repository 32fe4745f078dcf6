/* A random full grid, made like the "general instances" of Lloyd & Amos
 * (seeds/ant-colony-bve.txt, section 4). The boxes on the main diagonal
 * share no row, column or box, so each is filled with a random
 * permutation; a complete solver (sudoku-cp's search, in process: it is
 * fast on such open grids) fills the rest; a start without a solution (a
 * 4x4 one can have none) is drawn again. Then the grid's symmetries are
 * drawn at random (values relabelled, bands, rows in a band, stacks,
 * columns in a stack shuffled, a transposition), so that the solver's own
 * preferences leave no pattern. The same draws give the same grid. */
#include "config.h"

#include <stdbool.h>

#include "fullgrid.h"
#include "shuffle.h"
#include "solver.h"

long fullgrid_start_draws(int box)
{
	return (long)box * (box * box - 1);
}

/* The diagonal boxes filled at random, the rest blank. */
static void diagonal_start(struct rng *r, int box, struct grid *g)
{
	int perm[GRID_MAX_SIDE];
	grid_init(g, box);
	for (int k = 0; k < box; k++) {
		for (int v = 0; v < g->side; v++)
			perm[v] = v + 1;
		shuffle_ints(r, perm, g->side);
		for (int i = 0; i < g->side; i++) {
			int row = k * box + i / box, col = k * box + i % box;
			g->cell[row * g->side + col] = (uint8_t)perm[i];
		}
	}
}

/* A random order of 0..side-1 that keeps bands (or stacks) whole. */
static void band_order(struct rng *r, int box, int *order)
{
	int bands[GRID_MAX_BOX], within[GRID_MAX_BOX];
	for (int b = 0; b < box; b++)
		bands[b] = b;
	shuffle_ints(r, bands, box);
	for (int b = 0; b < box; b++) {
		for (int i = 0; i < box; i++)
			within[i] = i;
		shuffle_ints(r, within, box);
		for (int i = 0; i < box; i++)
			order[b * box + i] = bands[b] * box + within[i];
	}
}

/* g under random symmetries: again a valid full grid. */
static void random_symmetry(struct rng *r, const struct grid *g, struct grid *out)
{
	int rows[GRID_MAX_SIDE], cols[GRID_MAX_SIDE], label[GRID_MAX_SIDE + 1];
	const int side = g->side;
	band_order(r, g->box, rows);
	band_order(r, g->box, cols);
	label[0] = 0;
	for (int v = 1; v <= side; v++)
		label[v] = v;
	shuffle_ints(r, label + 1, side);
	bool transpose = rng_next(r) & 1;
	grid_init(out, g->box);
	for (int row = 0; row < side; row++)
		for (int col = 0; col < side; col++) {
			int src = transpose ? cols[col] * side + rows[row] : rows[row] * side + cols[col];
			out->cell[row * side + col] = (uint8_t)label[g->cell[src]];
		}
}

int fullgrid_make(struct rng *starts, struct rng *shuffles, int box, struct grid *out)
{
	/* rooms for a grid of any size, used again by every call */
	static union grid_room start_room, full_room;
	struct grid *start = &start_room.grid, *full = &full_room.grid;
	for (;;) {
		diagonal_start(starts, box, start);
		/* one solution is enough: the search's restarts keep it fast */
		int n = solver_count(start, 1, 0, full);
		if (n == 1)
			break;
		if (n < 0)
			return -1;
		/* no solution: only 4x4 starts can have none (two diagonal boxes
		 * whose rows leave a column no value); draw another */
	}
	random_symmetry(shuffles, full, out);
	return 0;
}
