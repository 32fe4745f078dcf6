/* The geometry of a grid of box size n (side N = n*n): its 3N units (rows,
 * columns, boxes) and each cell's peers (the other cells of its units).
 * Computed once per size, on first use, and shared read-only by every
 * caller, threads included; every table is indexed by plain integers, so a
 * search reads it without a division. */
#ifndef SUDOKU_GEOMETRY_H
#define SUDOKU_GEOMETRY_H

#include <stdint.h>

struct geometry {
	int box, side, cells;
	int nunits; /* 3N: rows 0..N-1, columns N..2N-1, boxes 2N..3N-1 */
	int npeers; /* a cell's peers: 2(N-1) + (n-1)^2, 20 for 9x9 */
	/* [nunits][side]: unit u's cells, a row from left to right, a column
	 * from the top down, a box in reading order */
	const uint16_t *unit;
	/* [cells][3]: a cell's row, column and box, as unit numbers: r, N + c,
	 * 2N + b */
	const uint16_t *cell_unit;
	/* [cells][3]: the cell's place in each of them: c, r, its place in
	 * the box (unit[u][cell_pos] is the cell again) */
	const uint8_t *cell_pos;
	/* [cells]: a cell's row, column and box, 0 to N-1 each (a search
	 * that keeps a table per kind of unit indexes it with these) */
	const uint8_t *row_of, *col_of, *box_of;
	/* [cells][npeers]: the cell's peers: its row's and its column's cells,
	 * taken by turns along the line (k = 0..N-1: (r, k) then (k, c)), then
	 * the cells of its box in neither, in reading order */
	const uint16_t *peer;
};

/* The geometry of box size box (GRID_MIN_BOX to GRID_MAX_BOX). Dies when
 * memory runs out (1.6 MB at most, for 64x64). */
const struct geometry *geometry_get(int box);

/* Unit u's cells (side of them). */
static inline const uint16_t *geometry_unit(const struct geometry *g, int u)
{
	return g->unit + (long)u * g->side;
}

/* A cell's peers (npeers of them). */
static inline const uint16_t *geometry_peers(const struct geometry *g, int cell)
{
	return g->peer + (long)cell * g->npeers;
}

/* A cell's row, column and box, 0 to N-1 each. */
static inline int geometry_row(const struct geometry *g, int cell)
{
	return g->row_of[cell];
}

static inline int geometry_col(const struct geometry *g, int cell)
{
	return g->col_of[cell];
}

static inline int geometry_box(const struct geometry *g, int cell)
{
	return g->box_of[cell];
}

#endif
