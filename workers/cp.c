/* sudoku-cp: constraint propagation plus minimum-remaining-values
 * depth-first search, the "BS" solver of Lloyd & Amos (seeds/
 * ant-colony-bve.txt, section 3.1 for the propagation, section 4 for BS):
 * after the initial propagation, take the open cell with the smallest value
 * set, try its values in increasing order, propagate after each choice, and
 * backtrack on a contradiction. Complete: it proves "no solution" and counts
 * solutions. 9x9 puzzles take cp9.c, the same method on bitboards. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp9.h"
#include "propagate.h"
#include "worker.h"

static bool fast_paths = true;

static const struct worker_option cp_options[] = {
	{"fast", OPT_FLAG, &fast_paths, 0, 0, NULL,
	 "use the 9x9 bitboard path (--no-fast: the general code for every size)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* One level of the search: the board after a choice, and the values of the
 * chosen cell still to try. */
struct frame {
	struct cp_board board;
	int cell;
	uint64_t untried;
};

/* The open cell with the fewest values (the first such, in reading order). */
static int choose_cell(const struct cp_board *b)
{
	int best = -1, best_n = 65;
	for (int i = 0; i < b->cells; i++) {
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

static enum solve_status cp_general(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	const long limit = worker_count_limit(ctx);
	const uint64_t poll_mask = puzzle->side >= 16 ? 0 : 255;
	int cap = 64, depth = 0;
	long found = 0;
	uint64_t nodes = 0;
	enum solve_status status = SOLVE_UNSAT;
	struct frame *stack = calloc((size_t)cap, sizeof *stack);
	if (!stack || cp_board_alloc(&stack[0].board, puzzle->box) < 0) {
		free(stack);
		snprintf(res->reason, sizeof res->reason, "out of memory");
		return SOLVE_GAVEUP;
	}
	int allocated = 1;
	if (cp_board_load(&stack[0].board, puzzle) < 0)
		goto done;
	stack[0].cell = -1;
	for (;;) {
		struct frame *f = &stack[depth];
		if (f->cell < 0) {
			/* a new node: a solution, or choose where to branch */
			if (f->board.fixed == f->board.cells) {
				if (found++ == 0)
					cp_board_to_grid(&f->board, &res->solution);
				if (found >= limit)
					break;
				f->untried = 0;
			} else {
				f->cell = choose_cell(&f->board);
				f->untried = f->board.cand[f->cell];
			}
			/* a node of a big grid is slow: poll each one there, so that
			 * a cancel is seen within milliseconds */
			if ((++nodes & poll_mask) == 0) {
				if (worker_should_stop(ctx)) {
					status = SOLVE_STOPPED;
					goto done;
				}
				if (worker_progress_wanted(ctx))
					worker_progress(ctx, "depth=%d filled=%d/%d nodes=%llu", depth,
							f->board.fixed, f->board.cells,
							(unsigned long long)nodes);
			}
		}
		if (!f->untried) {
			/* every value of this cell tried: back up */
			if (depth == 0)
				break;
			depth--;
			continue;
		}
		int v = cp_first_value(f->untried);
		f->untried &= f->untried - 1;
		if (depth + 1 == cap) {
			struct frame *grown = realloc(stack, sizeof *stack * (size_t)cap * 2);
			if (!grown) {
				snprintf(res->reason, sizeof res->reason, "out of memory");
				status = SOLVE_GAVEUP;
				goto done;
			}
			stack = grown;
			memset(stack + cap, 0, sizeof *stack * (size_t)cap);
			cap *= 2;
		}
		struct frame *next = &stack[depth + 1];
		if (depth + 1 == allocated) {
			if (cp_board_alloc(&next->board, puzzle->box) < 0) {
				snprintf(res->reason, sizeof res->reason, "out of memory");
				status = SOLVE_GAVEUP;
				goto done;
			}
			allocated++;
		}
		cp_board_copy(&next->board, &stack[depth].board);
		if (cp_assign(&next->board, stack[depth].cell, v) == 0) {
			next->cell = -1;
			depth++;
		}
	}
	if (found)
		status = SOLVE_SOLVED;
done:
	res->nodes = nodes;
	res->count = found;
	for (int i = 0; i < allocated; i++)
		cp_board_free(&stack[i].board);
	free(stack);
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
