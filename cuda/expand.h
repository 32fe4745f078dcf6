/* Algorithm 4 line 2, EXPAND_SEARCH_TREE_CPU (seeds/gpu-backtracking-dlx.txt
 * §3, §3.1): a breadth-first search on the CPU from the puzzle until at
 * least s search trees are open; each becomes one tree of the launch. The
 * trees are disjoint (each is one branch of the search), so the GPU's
 * answers and counts add up. */
#ifndef SUDOKU_GPU_EXPAND_H
#define SUDOKU_GPU_EXPAND_H

#include <stdint.h>

#include "gpu_device.h"
#include "lib/grid.h"
#include "workers/worker.h"

/* The trees of one launch, from any number of puzzles of one size. */
struct frontier {
	int cells;
	long n, cap;
	uint8_t *boards;   /* n × cells */
	int32_t *puzzle;   /* n */
	/* where the arrays come from: malloc and free unless set after
	 * frontier_init (the CUDA worker's are page-locked) */
	void *(*alloc)(size_t size);
	void (*release)(void *p);
};

void frontier_init(struct frontier *f, int cells);
void frontier_clear(struct frontier *f);
/* Gives the arrays back; the allocator stays, and so does cells until set
 * anew (no tree is held then). */
void frontier_free(struct frontier *f);
/* Room for more trees beyond those held; 0, or -1 when out of memory. */
int frontier_reserve(struct frontier *f, long more);

/* What the CPU found while expanding one puzzle. */
struct expand_result {
	long solutions;   /* full boards reached: solutions found on the CPU */
	uint64_t nodes;   /* placements made */
};

enum expand_status { EXPAND_OK, EXPAND_STOPPED, EXPAND_NOMEM };

/* Expands puzzle g breadth first, branching in order (ORDER_ROWS: the
 * first blank cell, the brute force's and Algorithm 3's; ORDER_MIN: the
 * exact cover column with the fewest rows), until s trees or more are open
 * or none is left, and appends the open trees to f as puzzle pidx. The
 * first solution reached goes to first (cells bytes). Stops early when
 * count_limit solutions are found (no tree is added then), or when
 * worker_should_stop(ctx). */
enum expand_status expand_puzzle(const struct grid *g, int pidx, long s, enum branch_order order,
				 long count_limit, struct frontier *f, struct expand_result *r,
				 uint8_t *first, struct worker_ctx *ctx);

/* The branches of a board: fills cell[] and digit[] (room for side
 * entries) and returns how many, 0 for a dead end, or -1 when the board is
 * full (a solution). Exposed for the tests of the branching order. */
int expand_branches(const uint8_t *board, int box, enum branch_order order, int *cell, int *digit);

#endif
