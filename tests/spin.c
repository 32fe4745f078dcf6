/* sudoku-spin, a worker for the driver's tests: its search never ends by
 * itself. It only polls worker_should_stop(), so that a test sees each of
 * the driver's stop checks (cancel, the time limit, quit) end a search on
 * its own, whatever the machine's speed. */
#include "config.h"

#include "workers/worker.h"

static enum solve_status spin_solve(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	(void)puzzle;
	while (!worker_should_stop(ctx)) {
		res->nodes++;
		if (worker_progress_wanted(ctx))
			worker_progress(ctx, "nodes=%llu", (unsigned long long)res->nodes);
	}
	return SOLVE_STOPPED;
}

const struct worker_algorithm worker_algorithm = {
	.name = "spin",
	.summary = "A search that never ends by itself (the driver's tests).",
	.source = "no paper",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.solve = spin_solve,
};
