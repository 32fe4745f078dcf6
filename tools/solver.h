/* A complete solver in the generator's and the rater's own process:
 * sudoku-cp's algorithm (workers/cp.c, and cp9.c for 9x9), driven through
 * workers/worker.h's interface by solver.c instead of the worker driver. */
#ifndef SUDOKU_TOOLS_SOLVER_H
#define SUDOKU_TOOLS_SOLVER_H

#include <stdint.h>

#include "lib/grid.h"

/* Counts the solutions of puzzle (whose givens must not clash) up to limit
 * (>= 1), writing the first into solution (may be NULL). Returns the count,
 * 0 when there is none, or -1 when the search took more than about
 * max_nodes nodes (0: no bound) and was stopped, or ran out of memory. The
 * same puzzle and bound give the same answer: the bound counts search
 * nodes, not time. */
int solver_count(const struct grid *puzzle, long limit, uint64_t max_nodes, struct grid *solution);

#endif
