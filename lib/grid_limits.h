/* The sizes a grid may have: box n from GRID_MIN_BOX to GRID_MAX_BOX (side
 * N = n*n, up to 64x64). A header of its own, so that the geometry tables
 * can be sized without the grid module they serve. */
#ifndef SUDOKU_GRID_LIMITS_H
#define SUDOKU_GRID_LIMITS_H

#define GRID_MIN_BOX 2
#define GRID_MAX_BOX 8
#define GRID_MAX_SIDE (GRID_MAX_BOX * GRID_MAX_BOX)
#define GRID_MAX_CELLS (GRID_MAX_SIDE * GRID_MAX_SIDE)

#endif
