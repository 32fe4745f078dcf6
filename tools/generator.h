/* Unique puzzles (generator.c): a random full grid, then givens removed
 * while a complete solver proves the puzzle still has one solution. */
#ifndef SUDOKU_TOOLS_GENERATOR_H
#define SUDOKU_TOOLS_GENERATOR_H

#include <stdint.h>

#include "lib/grid.h"
#include "rater.h"
#include "workers/rng.h"

/* The symmetry of the givens: a cell is a given exactly when its images
 * are. qqwing's names, and the diagonal. */
enum symmetry {
	SYM_NONE,
	SYM_ROTATE180, /* a half turn about the centre */
	SYM_ROTATE90,  /* quarter turns */
	SYM_MIRROR,    /* left and right */
	SYM_FLIP,      /* top and bottom */
	SYM_DIAGONAL,  /* about the main diagonal */
	SYM_RANDOM,    /* one of the above but none, drawn per puzzle */
	SYM_COUNT
};

struct generator_request {
	int box;                /* 2..8 */
	enum symmetry symmetry;
	int level;              /* LEVEL_SIMPLE..LEVEL_EXTREME, or LEVEL_NONE
				 * for any */
	long attempts;          /* puzzles made for a level before giving up */
	uint64_t max_nodes;     /* each uniqueness proof's bound: a given whose
				 * removal takes longer to prove stays */
};

struct generator_result {
	struct rating rating;  /* when a level was asked for */
	long attempts;         /* puzzles made for this one */
};

/* Writes a puzzle with one solution into puzzle, drawing from r. Returns
 * 0; 1 when no puzzle of the level came in rq->attempts (puzzle holds the
 * last one, res->rating its rating); -1 when out of memory. */
int generator_make(const struct generator_request *rq, struct rng *r, struct grid *puzzle,
		   struct generator_result *res);

#endif
