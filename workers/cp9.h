/* sudoku-cp's 9x9 path (cp9.c). */
#ifndef SUDOKU_CP9_H
#define SUDOKU_CP9_H

#include "worker.h"

enum solve_status cp9_solve(const struct grid *puzzle, struct solve_result *res,
			    struct worker_ctx *ctx);

#endif
