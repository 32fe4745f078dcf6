/* Unique puzzles by digging: a random full grid (fullgrid.c), then its
 * cells visited in a random order, symmetric cells together (a group),
 * each group blanked and kept blank while the puzzle keeps one solution.
 * Two passes:
 *   1. a group goes when the techniques of the rater (rater.c) up to hard,
 *      or up to the level asked for, still solve the puzzle: a chain of
 *      deductions, so the solution is still the only one. Cheap at any
 *      size: a failure is the techniques getting stuck.
 *   2. (from expert up, and for any level) a group left goes when the
 *      puzzle is still unique without it, proved by the techniques
 *      reaching a contradiction from each of its cells' other values, or
 *      else by sudoku-cp's search (solver.c) counting to two. A search
 *      that takes more than max_nodes nodes counts as a failure (the group
 *      stays), so that a large grid takes seconds and a seed gives the
 *      same puzzle on any machine.
 * After the second pass no group can go (within the bound): the puzzle is
 * minimal. A level asked for is checked by rating the puzzle; a puzzle of
 * another level is drawn again, up to attempts times. */
#include "config.h"

#include "fullgrid.h"
#include "generator.h"
#include "shuffle.h"
#include "solver.h"

/* The images of cell (row, col) under the symmetry, itself first; returns
 * how many (1, 2 or 4, fewer where they coincide). */
static int images(enum symmetry sym, int side, int row, int col, int *out)
{
	int n = 0, last = side - 1;
	int cand[4][2] = {{row, col}};
	int k = 1;
	switch (sym) {
	case SYM_ROTATE180:
		cand[k][0] = last - row, cand[k++][1] = last - col;
		break;
	case SYM_ROTATE90:
		cand[k][0] = col, cand[k++][1] = last - row;
		cand[k][0] = last - row, cand[k++][1] = last - col;
		cand[k][0] = last - col, cand[k++][1] = row;
		break;
	case SYM_MIRROR:
		cand[k][0] = row, cand[k++][1] = last - col;
		break;
	case SYM_FLIP:
		cand[k][0] = last - row, cand[k++][1] = col;
		break;
	case SYM_DIAGONAL:
		cand[k][0] = col, cand[k++][1] = row;
		break;
	case SYM_NONE:
	case SYM_RANDOM:
	case SYM_COUNT:
		break;
	}
	for (int i = 0; i < k; i++) {
		int c = cand[i][0] * side + cand[i][1], j;
		for (j = 0; j < n && out[j] != c; j++)
			;
		if (j == n)
			out[n++] = c;
	}
	return n;
}

/* Do the techniques up to level cap still solve the puzzle? Then it has
 * one solution: every step was a deduction. */
static bool logic_solves(const struct grid *puzzle, int cap)
{
	static struct rating rating;
	struct rate_options ro = {.max_level = cap};
	return rate_puzzle(puzzle, &ro, &rating) == 0;
}

/* Has the puzzle one solution? sudoku-cp's search counts to two within
 * the bound. */
static bool unique(const struct generator_request *rq, const struct grid *puzzle)
{
	return solver_count(puzzle, 2, rq->max_nodes, NULL) == 1;
}

/* Blanks the givens of full that can go, group by group, into puzzle:
 * in pass 0 those the techniques up to level cap can do without, in pass
 * 1 those the puzzle stays unique without. */
static void dig(const struct generator_request *rq, enum symmetry sym, int cap, int first_pass,
		int last_pass, struct rng *r, const struct grid *full, struct grid *puzzle)
{
	static int order[GRID_MAX_CELLS];
	const int side = full->side;
	int n = 0;
	/* each group once, by its first cell */
	for (int c = 0; c < full->cells; c++) {
		int img[4];
		int k = images(sym, side, c / side, c % side, img), j;
		for (j = 1; j < k && img[j] > c; j++)
			;
		if (j == k)
			order[n++] = c;
	}
	shuffle_ints(r, order, n);
	grid_copy(puzzle, full);
	for (int pass = first_pass; pass <= last_pass; pass++)
		for (int i = 0; i < n; i++) {
			int img[4];
			int k = images(sym, side, order[i] / side, order[i] % side, img);
			if (!puzzle->cell[img[0]])
				continue; /* gone in the first pass */
			for (int j = 0; j < k; j++)
				puzzle->cell[img[j]] = 0;
			bool good = pass == 0 ? logic_solves(puzzle, cap) : unique(rq, puzzle);
			if (!good)
				for (int j = 0; j < k; j++)
					puzzle->cell[img[j]] = full->cell[img[j]];
		}
}

int generator_make(const struct generator_request *rq, struct rng *r, struct grid *puzzle,
		   struct generator_result *res)
{
	static union grid_room full_room; /* room for a grid of any size */
	struct grid *full = &full_room.grid;
	/* up to hard, the techniques of the level dig (pass 0); expert and
	 * extreme puzzles are dug by the search alone (pass 1), as the
	 * techniques' minimal puzzles seldom leave it a given to take; any
	 * level, both */
	int cap = LEVEL_HARD, first = 0, last = 1;
	if (rq->level >= LEVEL_SIMPLE && rq->level <= LEVEL_HARD)
		cap = rq->level, last = 0;
	else if (rq->level >= LEVEL_EXPERT)
		first = 1;
	for (res->attempts = 1;; res->attempts++) {
		if (fullgrid_make(r, r, rq->box, full) < 0)
			return -1;
		enum symmetry sym = rq->symmetry;
		if (sym == SYM_RANDOM)
			sym = (enum symmetry)(SYM_ROTATE180 + shuffle_below(r, SYM_RANDOM - SYM_ROTATE180));
		dig(rq, sym, cap, first, last, r, full, puzzle);
		if (rq->level == LEVEL_NONE)
			return 0;
		struct rate_options ro = {
			.max_level = LEVEL_EXTREME, .max_guesses = rate_default_guesses(puzzle->cells),
		};
		if (rate_puzzle(puzzle, &ro, &res->rating) == -2)
			return -1;
		if (res->rating.level == rq->level)
			return 0;
		if (res->attempts >= rq->attempts)
			return 1;
	}
}
