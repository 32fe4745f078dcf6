/* sudoku-bf: the brute-force backtracking baseline of Wang, "Parallel Sudoku
 * Solver on GPU" (seeds/gpu-backtracking-dlx.txt, section 2.1): visit the
 * cells from the top left to the bottom right; in each empty cell try the
 * digits 1..N in order, write the first one that is valid against the
 * cell's row, column and box, and go on to the next cell; when no digit is
 * left, back up to the previous cell and try its next digit. No
 * propagation, no cell ordering: this is the baseline the other workers are
 * measured against, and it is catastrophically slow on some puzzles (the
 * paper's Table 2, puzzle 7), which is expected.
 *
 * The search keeps an explicit stack (one digit per empty cell, like the
 * paper's GPU version, section 3.1) instead of recursion, so that 64x64
 * grids cannot overflow the C stack. Complete: running out of choices
 * proves that there is no solution, and going on after a solution counts
 * them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "worker.h"

/* Section 2.1 says only that a digit is tried to "see if this number is
 * valid given the partially filled board". Both readings give the same
 * search tree and the same node counts; they differ only in speed. */
enum validity_check {
	CHECK_MASK, /* one bit set per row, column and box: an AND per digit */
	CHECK_SCAN, /* read the row, the column and the box on the board, 3N cells per digit */
};
static int validity_check = CHECK_MASK;

static const struct worker_option bf_options[] = {
	{"check", OPT_CHOICE, &validity_check, 0, 0, "mask|scan",
	 "how a digit's validity is checked: bit sets of the used digits, or scanning the row, "
	 "column and box on the board"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* Steps between polls of the stop flag (powers of two). A step with bit
 * sets (a digit written) takes nanoseconds; a scanning step (a digit
 * written or a cell given up) reads up to 3N cells for each of N digits,
 * some microseconds on 64x64. */
#define POLL_STEPS_MASK 4096
#define POLL_STEPS_SCAN 64

struct bf_units {
	uint8_t row, col, box; /* unit numbers (lib/geometry.h), below 3 * 64 */
};

struct bf_search {
	int side, box;
	int nopen;
	uint8_t *board;      /* [cells] the digits written so far, 0 where empty */
	int *open;           /* [nopen] the empty cells of the puzzle, in reading order */
	uint64_t *used;      /* [3 * side] the digits used per row, column, box: bit d-1 for d */
	struct bf_units *units; /* [nopen] where in used the units of open[k] are */
	uint64_t *untried, *written; /* [nopen + 1] see search_mask */
};

static bool digit_fits_scan(const struct bf_search *s, int cell, int d)
{
	const int side = s->side, r = cell / side, c = cell % side;
	for (int k = 0; k < side; k++)
		if (s->board[r * side + k] == d || s->board[k * side + c] == d)
			return false;
	const int r0 = r - r % s->box, c0 = c - c % s->box;
	for (int i = 0; i < s->box; i++)
		for (int k = 0; k < s->box; k++)
			if (s->board[(r0 + i) * side + c0 + k] == d)
				return false;
	return true;
}

/* The smallest digit greater than after that is valid in cell, or 0. */
static int next_digit_scan(const struct bf_search *s, int cell, int after)
{
	for (int d = after + 1; d <= s->side; d++)
		if (digit_fits_scan(s, cell, d))
			return d;
	return 0;
}

static void bf_free(struct bf_search *s)
{
	free(s->board);
	free(s->open);
	free(s->used);
	free(s->units);
	free(s->untried);
	free(s->written);
}

static int bf_load(struct bf_search *s, const struct grid *puzzle)
{
	const int side = puzzle->side, cells = puzzle->cells;
	memset(s, 0, sizeof *s);
	s->side = side;
	s->box = puzzle->box;
	s->board = calloc((size_t)cells, sizeof *s->board);
	s->open = calloc((size_t)cells, sizeof *s->open);
	s->used = calloc((size_t)side * 3, sizeof *s->used);
	s->units = calloc((size_t)cells, sizeof *s->units);
	s->untried = calloc((size_t)cells + 1, sizeof *s->untried);
	s->written = calloc((size_t)cells + 1, sizeof *s->written);
	if (!s->board || !s->open || !s->used || !s->units || !s->untried || !s->written)
		return -1;
	const struct geometry *geo = geometry_get(puzzle->box);
	for (int i = 0; i < cells; i++) {
		const uint16_t *cu = geo->cell_unit + 3 * i;
		const struct bf_units u = {(uint8_t)cu[0], (uint8_t)cu[1], (uint8_t)cu[2]};
		s->board[i] = puzzle->cell[i];
		if (puzzle->cell[i]) {
			uint64_t bit = 1ULL << (puzzle->cell[i] - 1);
			s->used[u.row] |= bit;
			s->used[u.col] |= bit;
			s->used[u.box] |= bit;
		} else {
			s->units[s->nopen] = u;
			s->open[s->nopen++] = i;
		}
	}
	return 0;
}

/* The paper's literal check (--check=scan): in the cell open[depth], try
 * the digits after the one tried last, each checked against the board. */
static uint64_t search_scan(struct bf_search *s, const struct grid *puzzle,
			    struct solve_result *res, struct worker_ctx *ctx, long limit,
			    long *found, enum solve_status *status)
{
	const int givens = puzzle->cells - s->nopen;
	uint64_t nodes = 0;
	unsigned steps = 0;
	/* The stack is the board itself: open[0..depth) hold their current
	 * digits, and open[depth] is the cell being tried, from digit tried+1. */
	int depth = 0, tried = 0;
	for (;;) {
		if (++steps == POLL_STEPS_SCAN) {
			steps = 0;
			if (worker_should_stop(ctx)) {
				*status = SOLVE_STOPPED;
				break;
			}
			if (worker_progress_wanted(ctx))
				worker_progress(ctx, "depth=%d filled=%d/%d nodes=%llu", depth,
						givens + depth, puzzle->cells, (unsigned long long)nodes);
		}
		if (depth == s->nopen) {
			/* every cell filled: a solution */
			if ((*found)++ == 0) {
				grid_from_cells(&res->solution, puzzle->box, s->board);
			}
			if (*found >= limit)
				break;
		} else {
			int cell = s->open[depth];
			int d = next_digit_scan(s, cell, tried);
			if (d) {
				s->board[cell] = (uint8_t)d;
				nodes++;
				depth++;
				tried = 0;
				continue;
			}
		}
		/* no digit left in open[depth]: back up to the previous cell */
		if (depth == 0)
			break;
		depth--;
		tried = s->board[s->open[depth]];
		s->board[s->open[depth]] = 0;
	}
	return nodes;
}

/* The same search with bit sets (--check=mask, the default): when a cell is
 * entered, the digits valid in it are computed at once, as a set, and then
 * taken in increasing order. The order of the tries, and so the tree, is the
 * one of search_scan; only the validity test is cheaper. */
static uint64_t search_mask(struct bf_search *s, const struct grid *puzzle,
			    struct solve_result *res, struct worker_ctx *ctx, long limit,
			    long *found, enum solve_status *status)
{
	const int givens = puzzle->cells - s->nopen, nopen = s->nopen;
	const uint64_t all = s->side == 64 ? ~0ULL : (1ULL << s->side) - 1;
	/* a local copy that nothing else can point to: the compiler keeps the
	 * hot loop free of reloads */
	uint64_t used[3 * GRID_MAX_SIDE];
	memcpy(used, s->used, sizeof used[0] * 3 * (size_t)s->side);
	const struct bf_units *restrict units = s->units;
	/* per depth: the digits still to try in open[depth] (bit d-1 for d),
	 * and the digit written there (as its bit) */
	uint64_t *restrict untried = s->untried, *restrict written = s->written;
	uint64_t nodes = 0;
	int depth = 0;
	if (nopen == 0) {
		*found = 1;
		grid_copy(&res->solution, puzzle);
		return 0;
	}
	uint64_t cand = all & ~(used[units[0].row] | used[units[0].col] | used[units[0].box]);
	for (;;) {
		while (cand) {
			/* write the smallest valid digit and go to the next cell */
			const struct bf_units u = units[depth];
			uint64_t bit = cand & -cand;
			untried[depth] = cand ^ bit;
			written[depth] = bit;
			used[u.row] |= bit;
			used[u.col] |= bit;
			used[u.box] |= bit;
			depth++;
			if ((++nodes & (POLL_STEPS_MASK - 1)) == 0) {
				if (worker_should_stop(ctx)) {
					*status = SOLVE_STOPPED;
					return nodes;
				}
				if (worker_progress_wanted(ctx))
					worker_progress(ctx, "depth=%d filled=%d/%d nodes=%llu", depth,
							givens + depth, puzzle->cells,
							(unsigned long long)nodes);
			}
			if (depth == nopen) {
				/* every cell filled: a solution */
				if ((*found)++ == 0) {
					grid_copy(&res->solution, puzzle);
					for (int k = 0; k < nopen; k++)
						res->solution.cell[s->open[k]] =
							(uint8_t)(__builtin_ctzll(written[k]) + 1);
				}
				if (*found >= limit)
					return nodes;
				break; /* and back up for the next one */
			}
			const struct bf_units v = units[depth];
			cand = all & ~(used[v.row] | used[v.col] | used[v.box]);
		}
		/* no digit left in open[depth]: back up to the previous cell */
		if (depth == 0)
			return nodes;
		depth--;
		const struct bf_units u = units[depth];
		uint64_t bit = written[depth];
		used[u.row] &= ~bit;
		used[u.col] &= ~bit;
		used[u.box] &= ~bit;
		cand = untried[depth];
	}
}

static enum solve_status bf_solve(const struct grid *puzzle, struct solve_result *res,
				  struct worker_ctx *ctx)
{
	const long limit = worker_count_limit(ctx);
	struct bf_search s;
	if (bf_load(&s, puzzle) < 0) {
		bf_free(&s);
		snprintf(res->reason, sizeof res->reason, "out of memory");
		return SOLVE_GAVEUP;
	}
	enum solve_status status = SOLVE_UNSAT;
	long found = 0;
	if (validity_check == CHECK_SCAN)
		res->nodes = search_scan(&s, puzzle, res, ctx, limit, &found, &status);
	else
		res->nodes = search_mask(&s, puzzle, res, ctx, limit, &found, &status);
	if (status != SOLVE_STOPPED && found)
		status = SOLVE_SOLVED;
	res->count = found;
	bf_free(&s);
	return status;
}

const struct worker_algorithm worker_algorithm = {
	.name = "bf",
	.summary = "Brute-force backtracking in reading order, digits 1..N: the baseline complete solver.",
	.source = "Wang, Parallel Sudoku Solver on GPU, 2.1 (brute force)",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.options = bf_options,
	.solve = bf_solve,
};
