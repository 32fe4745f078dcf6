/* The worker driver's side of workers/worker.h for an algorithm linked into
 * another program: no clock, no signal, no progress, a node bound instead
 * of a time limit (so that a seed gives the same puzzles on any machine).
 * The algorithm is sudoku-cp's (workers/cp.c), its default options. */
#include "config.h"

#include <stdarg.h>

#include "solver.h"
#include "workers/worker.h"

struct worker_ctx {
	long limit;
	uint64_t polls, max_polls; /* max_polls 0: no bound */
};

bool worker_should_stop(struct worker_ctx *ctx)
{
	return ctx->max_polls && ++ctx->polls > ctx->max_polls;
}

bool worker_progress_wanted(struct worker_ctx *ctx)
{
	(void)ctx;
	return false;
}

void worker_progress(struct worker_ctx *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

void worker_notice(struct worker_ctx *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

long worker_count_limit(const struct worker_ctx *ctx)
{
	return ctx->limit;
}

uint64_t worker_seed(const struct worker_ctx *ctx)
{
	(void)ctx;
	return 1;
}

double worker_elapsed_ms(const struct worker_ctx *ctx)
{
	(void)ctx;
	return 0;
}

bool worker_timing_wanted(void)
{
	return false;
}

void worker_stage_time(const char *stage, double ms)
{
	(void)stage;
	(void)ms;
}

int solver_count(const struct grid *puzzle, long limit, uint64_t max_nodes, struct grid *solution)
{
	/* cp.c polls worker_should_stop every 1024 nodes on 9x9 (cp9.c), every
	 * node from 16x16 up, every 256 nodes on 4x4 */
	uint64_t per_poll = puzzle->side == 9 ? 1024 : puzzle->side >= 16 ? 1 : 256;
	struct worker_ctx ctx = {
		.limit = limit,
		.max_polls = max_nodes ? (max_nodes + per_poll - 1) / per_poll : 0,
	};
	static struct solve_result res; /* 4 KB of cells: not on the stack */
	res.count = 0;
	switch (worker_algorithm.solve(puzzle, &res, &ctx)) {
	case SOLVE_SOLVED:
		if (solution)
			grid_copy(solution, &res.solution);
		return res.count > 0 ? (int)res.count : 1;
	case SOLVE_UNSAT:
		return 0;
	case SOLVE_GAVEUP:
	case SOLVE_STOPPED:
		break;
	}
	return -1;
}
