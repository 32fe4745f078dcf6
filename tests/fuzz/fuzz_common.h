/* Checks shared by the targets that read puzzles. */
#ifndef SUDOKU_FUZZ_COMMON_H
#define SUDOKU_FUZZ_COMMON_H

#include <string.h>

#include "fuzz.h"
#include "lib/grid.h"
#include "protocol/message.h"

/* A grid a reader returned: its size is one of the seven, its values are in
 * range, and it survives the protocol's canonical form unchanged. */
static inline void fuzz_check_grid(const struct grid *g)
{
	fuzz_check(g->box >= GRID_MIN_BOX && g->box <= GRID_MAX_BOX);
	fuzz_check(g->side == g->box * g->box && g->cells == g->side * g->side);
	for (int i = 0; i < g->cells; i++)
		fuzz_check(g->cell[i] <= g->side);
	static char word[GRID_MAX_CELLS * 3 + 1];
	union grid_room back_room;
	struct grid *back = &back_room.grid;
	int n = msg_format_grid(g, word, sizeof word);
	fuzz_check(n > 0 && (size_t)n == strlen(word));
	fuzz_check(msg_parse_grid(word, (size_t)n, g->box, back) == 0);
	fuzz_check(memcmp(back->cell, g->cell, (size_t)g->cells) == 0);
	struct notation nt;
	char err[GRID_ERR_MAX];
	fuzz_check(grid_parse(word, (size_t)n, back, &nt, err, sizeof err) == 0);
	fuzz_check(back->box == g->box && memcmp(back->cell, g->cell, (size_t)g->cells) == 0);
	grid_check_givens(g, err, sizeof err);
}

/* An error message: NUL-terminated within its buffer, not empty, one line. */
static inline void fuzz_check_error(const char *err, size_t size)
{
	size_t n = strnlen(err, size);
	fuzz_check(n > 0 && n < size);
	fuzz_check(!memchr(err, '\n', n));
}

#endif
