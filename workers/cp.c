/* sudoku-cp: constraint propagation plus minimum-remaining-values
 * depth-first search, the "BS" solver of Lloyd & Amos (seeds/
 * ant-colony-bve.txt, section 3.1 for the propagation, section 4 for BS):
 * after the initial propagation, take the open cell with the smallest value
 * set, try its values in increasing order, propagate after each choice, and
 * backtrack on a contradiction. Complete: it proves "no solution" and counts
 * solutions. 9x9 puzzles take cp9.c: bitboards, locked candidates besides
 * the two rules, and its own branching order. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp9.h"
#include "propagate.h"
#include "worker.h"

static bool fast_paths = true;
static int restart_nodes = 2000;

static const struct worker_option cp_options[] = {
	{"fast", OPT_FLAG, &fast_paths, 0, 0, NULL,
	 "9x9: bitboards, locked candidates (--no-fast: the general path, BS)"},
	{"restart-nodes", OPT_INT, &restart_nodes, 0, 1e9, NULL,
	 "general path: restart after N nodes, doubling each time (0: never, the paper's BS)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* One level of the search: the board after a choice, and the values of the
 * chosen cell still to try. */
struct frame {
	struct cp_board board;
	int cell;
	uint64_t untried;
};

struct search {
	const struct grid *puzzle;
	struct solve_result *res;
	struct worker_ctx *ctx;
	long limit, found;
	uint64_t nodes, poll_mask;
	struct frame *stack;
	int cap, allocated;
};

/* The open cell with the fewest values. The paper (section 4) leaves ties
 * open: we take the first in reading order, starting the scan at cell
 * start (0 but after a restart, see run_search). */
static int choose_cell(const struct cp_board *b, int start)
{
	int best = -1, best_n = 65;
	for (int k = 0; k < b->cells; k++) {
		int i = start + k < b->cells ? start + k : start + k - b->cells;
		if (b->value[i])
			continue;
		int n = cp_popcount(b->cand[i]);
		if (n < best_n) {
			best_n = n;
			best = i;
			if (n <= 2)
				break;
		}
	}
	return best;
}

/* The search stack kept between puzzles of one box size (see cp_general). */
static struct {
	int box;
	struct frame *stack;
	int cap, allocated;
} kept;

static void release_kept_stack(void)
{
	for (int i = 0; i < kept.allocated; i++)
		cp_board_free(&kept.stack[i].board);
	free(kept.stack);
	kept.stack = NULL;
	kept.cap = kept.allocated = 0;
}

/* A frame for depth d, allocating boards on first use. */
static struct frame *frame_at(struct search *se, int d)
{
	if (d == se->cap) {
		struct frame *grown = realloc(se->stack, sizeof *grown * (size_t)se->cap * 2);
		if (!grown)
			return NULL;
		memset(grown + se->cap, 0, sizeof *grown * (size_t)se->cap);
		se->stack = grown;
		se->cap *= 2;
	}
	if (d == se->allocated) {
		if (cp_board_alloc(&se->stack[d].board, se->puzzle->box) < 0)
			return NULL;
		se->allocated++;
	}
	return &se->stack[d];
}

enum run_result { RUN_DONE, RUN_STOPPED, RUN_BUDGET, RUN_NOMEM };

/* One depth-first search from the root board (stack[0]), MRV cell with
 * ties broken from tie_start, values in increasing order. Ends when the
 * tree is exhausted or the solution limit is reached (RUN_DONE), on a stop
 * request, or after budget nodes (0: none). */
static enum run_result run_search(struct search *se, int tie_start, uint64_t budget)
{
	uint64_t run_nodes = 0;
	int depth = 0;
	se->stack[0].cell = -1;
	for (;;) {
		struct frame *f = &se->stack[depth];
		if (f->cell < 0) {
			/* a new node: a solution, or choose where to branch */
			if (f->board.fixed == f->board.cells) {
				if (se->found++ == 0)
					cp_board_to_grid(&f->board, &se->res->solution);
				if (se->found >= se->limit)
					return RUN_DONE;
				f->untried = 0;
			} else {
				f->cell = choose_cell(&f->board, tie_start);
				f->untried = f->board.cand[f->cell];
			}
			se->nodes++;
			if (budget && ++run_nodes > budget)
				return RUN_BUDGET;
			if ((se->nodes & se->poll_mask) == 0) {
				if (worker_should_stop(se->ctx))
					return RUN_STOPPED;
				if (worker_progress_wanted(se->ctx))
					worker_progress(se->ctx, "depth=%d filled=%d/%d nodes=%llu", depth,
							f->board.fixed, f->board.cells,
							(unsigned long long)se->nodes);
			}
		}
		if (!f->untried) {
			/* every value of this cell tried: back up */
			if (depth == 0)
				return RUN_DONE;
			depth--;
			continue;
		}
		int v = cp_first_value(f->untried);
		f->untried &= f->untried - 1;
		struct frame *next = frame_at(se, depth + 1);
		if (!next)
			return RUN_NOMEM;
		f = &se->stack[depth]; /* frame_at may have moved the stack */
		cp_board_copy(&next->board, &f->board);
		if (cp_assign(&next->board, f->cell, v) == 0) {
			next->cell = -1;
			depth++;
		}
	}
}

/* The general path. A plain MRV search has heavy tails on some puzzles
 * (one 16x16 instance at 25% fixed cells runs for minutes, while the same
 * search with other tie-breaks takes milliseconds), so by default a run
 * that exceeds its node budget restarts with ties broken from another cell
 * and a doubled budget: every run is the paper's BS, the budgets grow
 * without bound, so the search stays complete. Counting runs once, without
 * restarts, so that no solution is counted twice. */
static enum solve_status cp_general(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	struct search se = {
		.puzzle = puzzle,
		.res = res,
		.ctx = ctx,
		.limit = worker_count_limit(ctx),
		/* a node of a big grid is slow: poll each one there, so that a
		 * cancel is seen within milliseconds */
		.poll_mask = puzzle->side >= 16 ? 0 : 255,
	};
	enum solve_status status = SOLVE_UNSAT;
	enum run_result rr = RUN_DONE;
	/* the stack and its boards stay from one puzzle to the next of the
	 * same size: allocating and touching them anew cost more than the
	 * search on most 16x16 puzzles */
	if (kept.box != puzzle->box)
		release_kept_stack();
	kept.box = puzzle->box;
	if (!kept.stack) {
		kept.stack = calloc(64, sizeof *kept.stack);
		kept.cap = kept.stack ? 64 : 0;
	}
	se.stack = kept.stack;
	se.cap = kept.cap;
	se.allocated = kept.allocated;
	if (!se.stack || !frame_at(&se, 0)) {
		rr = RUN_NOMEM;
	} else if (cp_board_load(&se.stack[0].board, puzzle) == 0) {
		uint64_t budget = se.limit > 1 ? 0 : (uint64_t)restart_nodes;
		for (int run = 0;; run++) {
			int tie_start = (int)(((long)run * 7919) % puzzle->cells);
			rr = run_search(&se, tie_start, budget);
			if (rr != RUN_BUDGET)
				break;
			if (budget < UINT64_MAX / 2)
				budget *= 2;
		}
	}
	if (rr == RUN_NOMEM) {
		snprintf(res->reason, sizeof res->reason, "out of memory");
		status = SOLVE_GAVEUP;
	} else if (rr == RUN_STOPPED) {
		status = SOLVE_STOPPED;
	} else if (se.found) {
		status = SOLVE_SOLVED;
	}
	res->nodes = se.nodes;
	res->count = se.found;
	kept.stack = se.stack;
	kept.cap = se.cap;
	kept.allocated = se.allocated;
	return status;
}

static enum solve_status cp_solve(const struct grid *puzzle, struct solve_result *res,
				  struct worker_ctx *ctx)
{
	if (fast_paths && puzzle->box == 3)
		return cp9_solve(puzzle, res, ctx);
	return cp_general(puzzle, res, ctx);
}

const struct worker_algorithm worker_algorithm = {
	.name = "cp",
	.summary = "Constraint propagation and minimum-remaining-values search: a fast complete solver.",
	.source = "Lloyd & Amos, Solving Sudoku with Ant Colony Optimisation, 3.1 and 4 (\"BS\")",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.options = cp_options,
	.solve = cp_solve,
};
