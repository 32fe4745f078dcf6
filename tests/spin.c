/* sudoku-spin, a worker for the driver's tests: its search never ends by
 * itself. It only polls worker_should_stop(), so that a test sees each of
 * the driver's stop checks (cancel, the time limit, quit) end a search on
 * its own, whatever the machine's speed. Built a second time with
 * SPIN_BATCH as sudoku-spin-batch, which solves batches (as the GPU worker
 * does), for the driver's batch paths. */
#include "config.h"

#include "workers/worker.h"

/* Reads the cells a puzzle uses, and only those (worker.h): under ASan, a
 * puzzle handed over shorter than its cells is an error. */
static unsigned read_cells(const struct grid *puzzle)
{
	unsigned sum = 0;
	for (int i = 0; i < puzzle->cells; i++)
		sum += puzzle->cell[i];
	return sum;
}

static void spin(struct solve_result *res, struct worker_ctx *ctx)
{
	while (!worker_should_stop(ctx)) {
		res->nodes++;
		if (worker_progress_wanted(ctx))
			worker_progress(ctx, "nodes=%llu", (unsigned long long)res->nodes);
	}
}

static enum solve_status spin_solve(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	res->nodes = read_cells(puzzle) > 0;
	spin(res, ctx);
	return SOLVE_STOPPED;
}

#ifdef SPIN_BATCH
static void spin_solve_batch(const struct grid *const *puzzles, int n, struct solve_result *const *res,
			     enum solve_status *status, struct worker_ctx *ctx)
{
	for (int i = 0; i < n; i++) {
		res[i]->nodes = read_cells(puzzles[i]) > 0;
		res[i]->count = 0;
		res[i]->reason[0] = '\0';
		status[i] = SOLVE_STOPPED;
	}
	spin(res[0], ctx);
}
#endif

const struct worker_algorithm worker_algorithm = {
#ifdef SPIN_BATCH
	.name = "spin-batch",
	.solve_batch = spin_solve_batch,
	.batch_max = 4,
#else
	.name = "spin",
#endif
	.summary = "A search that never ends by itself (the driver's tests).",
	.source = "no paper",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.solve = spin_solve,
};
