/* Pieces of grid.c that the multi-line reader (puzzle_stream.c) shares. */
#ifndef SUDOKU_GRID_INTERNAL_H
#define SUDOKU_GRID_INTERNAL_H

#include "grid.h"

/* Parses exactly box^4 cell characters, no separators. */
int grid_parse_cells(const char *s, size_t n, int box, struct grid *g, struct notation *nt,
		     char *err, size_t errsz);

/* The 81 cells of a plain 9x9 line: digits, and '.' or '0' for blanks;
 * false when another byte is there. blank: the first blank character met
 * (set only if 0 on entry). */
bool grid_cells_plain_9x9(const char *s, uint8_t *cell, char *blank);

/* A plain 9x9 line's 81 bytes read at once: the grid and notation that
 * grid_parse_cells gives it. False for anything else (g's cells are then
 * written over), which the general passes read. */
bool grid_parse_plain_9x9(const char *s, struct grid *g, struct notation *nt);

/* Parses box^4 numbers separated by blanks or commas; 0 or -1 is a blank. */
int grid_parse_numbers(const char *s, size_t n, int box, struct grid *g, struct notation *nt,
		       char *err, size_t errsz);

/* Counts the numbers of a line made only of integers separated by blanks or
 * commas; false when anything else is there. */
bool grid_all_numbers(const char *s, const char *end, long *count);

/* Whether the 81 cells of a full 9x9 grid, every one 1 to 9 (the caller
 * has checked), hold each value once in every row, column and box: what
 * grid_check_givens finds of such a grid, faster. */
bool grid_full_ok_9x9(const uint8_t *cell);

/* Whether the 81 cells of a 9x9 grid, blanks (0) allowed, hold no value
 * twice in a row, column or box: grid_check_givens's quick answer. False
 * also for a cell over 9, which the slow check judges. */
bool grid_givens_ok_9x9(const uint8_t *cell);

/* The cell count of a size we take nearest to n, for "expected 81". */
long grid_nearest_cells(long n);

#endif
