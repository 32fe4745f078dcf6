/* Constraint propagation for any box size (2..8), as in Lloyd & Amos,
 * "Solving Sudoku with Ant Colony Optimisation", section 3.1 (seeds/
 * ant-colony-bve.txt): each cell keeps its value set as a bitset; when a
 * cell's value is fixed,
 *   rule 1: the value is removed from the value sets of its peers, and
 *   rule 2: a value with one possible place left in a unit is fixed there,
 * repeated until nothing changes. sudoku-cp searches on top of it (the
 * paper's "BS"), and sudoku-acs uses the same code for its ants, as the
 * paper's two solvers do.
 *
 * Rule 1 is applied at once when a cell is fixed; what it implies (a peer
 * left with one value, a value left with one place in a unit) waits in a
 * queue. So a value is only ever fixed where it is still possible, and the
 * fixed cells never clash, even in tolerant mode. Each unit keeps, for each
 * value, the set of its cells that can still take it: rule 1 meets only the
 * peers that hold the value, and rule 2 only the places that fall to one. */
#ifndef SUDOKU_PROPAGATE_H
#define SUDOKU_PROPAGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/geometry.h"
#include "lib/grid.h"

struct cp_board {
	int box, side, cells;
	const struct geometry *geo; /* its units and peers */
	int fixed;      /* cells whose value is fixed */
	bool failed;    /* a value set or a unit's places for a value ran out */
	bool tolerant;  /* go on past contradictions (see cp_assign) */
	uint64_t all;   /* the value set {1..N}: bit v-1 is value v */
	uint64_t *cand; /* [cells]: value set of each cell */
	uint8_t *value; /* [cells]: the fixed value, 0 while open */
	uint64_t *where; /* [3N * N]: at u*N + v-1, the cells of unit u (bit k:
			  * its k-th cell) whose value set holds v */
	int *queue;     /* implications not yet drawn (see propagate.c) */
	int nqueue;
};

/* Allocates a board for box size box; returns 0 or -1 (out of memory). */
int cp_board_alloc(struct cp_board *b, int box);
void cp_board_free(struct cp_board *b);
/* dst must have been allocated for the same box size. */
void cp_board_copy(struct cp_board *dst, const struct cp_board *src);

/* Loads the givens of puzzle and propagates (the initial pass). Returns 0,
 * or -1 when a contradiction shows the puzzle has no solution. */
int cp_board_load(struct cp_board *b, const struct grid *puzzle);

/* Fixes value v (1..N) in cell and propagates to the fixpoint. Returns 0,
 * or -1 on a contradiction (b->failed is then set; the board stays usable
 * for reading: cells already fixed stay fixed). In tolerant mode the
 * propagation goes on past contradictions, as an ant's partial solution
 * needs (ACS, section 3.2): a cell whose value set empties stays open and
 * empty, a value with no place left in a unit is simply not placed there,
 * and everything else is still propagated. The fixed cells are a clash-free
 * partial solution in either mode: fixed == cells means solved. */
int cp_assign(struct cp_board *b, int cell, int v);
void cp_set_tolerant(struct cp_board *b, bool tolerant);

/* Writes the fixed values (0 where open) into g. */
void cp_board_to_grid(const struct cp_board *b, struct grid *g);

static inline int cp_popcount(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	/* without the instruction the builtin is a call into libgcc, and
	 * MRV counts every open cell's values: inline bit arithmetic
	 * (contrib/bench/code-notes.md) */
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* The lowest value in a non-empty value set. */
static inline int cp_first_value(uint64_t set)
{
	return __builtin_ctzll(set) + 1;
}

#endif
