/* Sudoku grids of any box size: the value type every program shares, plus
 * parsing and formatting in the notations users have (see DESIGN.md,
 * "Puzzle notation"), verification, and the puzzle hash. */
#ifndef SUDOKU_GRID_H
#define SUDOKU_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid_limits.h"

/* Largest side written with characters (1-9 then A-Z); above it, numbers. */
#define GRID_MAX_CHAR_SIDE 35
/* Size of a buffer that holds any error message of this library. */
#define GRID_ERR_MAX 192

/* A puzzle or a solution. box = n, side = N = n*n, cells = N*N; cell[i] is 0
 * for a blank, else the value 1..N, row-major. A grid is its header and its
 * cells, allocated at its size (grid_new): a 9x9 grid takes 93 bytes, a
 * 64x64 one 4 KB. It is copied with grid_copy, never by assignment (which
 * copies the header alone). */
struct grid {
	int box;
	int side;
	int cells;
	uint8_t cell[];
};

/* The bytes a grid of box size n takes. */
static inline size_t grid_size(int box)
{
	return sizeof(struct grid) + (size_t)box * (size_t)box * (size_t)box * (size_t)box;
}

/* The bytes g takes: its header and its cells. */
static inline size_t grid_bytes(const struct grid *g)
{
	return sizeof(struct grid) + (size_t)g->cells;
}

/* Room for a grid of any size, for a grid read before its size is known
 * (a parse, a reply off the wire) into one place used again: room.grid. */
union grid_room {
	struct grid grid;
	uint8_t bytes[sizeof(struct grid) + GRID_MAX_CELLS];
};

/* A member of a record that holds a grid of any size (a puzzle read, a
 * result): the grid, named name, with the room for its cells after it.
 * Such a record is variable-sized for the compiler and may sit inside
 * another before its end: GNU C allows it (the code is gnu11; configure
 * turns off clang's warning that says so). */
#define GRID_MEMBER(name)                                                \
	union {                                                          \
		struct grid name;                                        \
		uint8_t name##_room[sizeof(struct grid) + GRID_MAX_CELLS]; \
	}

/* A blank grid of box size n at its size; free() it. Dies when memory runs
 * out. */
struct grid *grid_new(int box);
/* A copy of g at its size; free() it. */
struct grid *grid_dup(const struct grid *g);
/* Copies from into to, which has room for from's size. */
void grid_copy(struct grid *to, const struct grid *from);

/* How a puzzle was written, so that answers come back in the same alphabet. */
enum notation_style {
	NOTATION_CHARS,   /* 1-9 then A-Z (one line, or rows of a block grid) */
	NOTATION_HEX,     /* 16x16 only: 0-F are the values 1-16 */
	NOTATION_NUMBERS, /* whitespace-separated numbers (also the ACS files) */
};

struct notation {
	enum notation_style style;
	char blank;       /* CHARS/HEX: the blank character the input used */
	bool lower;       /* CHARS/HEX: letters were lower case */
	bool minus_one;   /* NUMBERS: blanks were written -1 rather than 0 */
};

/* The notation of the protocol and of canonical output: characters with '.'
 * for blanks up to side 35, numbers above. */
void notation_default(struct notation *nt, int side);

/* Sets box, side and cells for box size n, all cells blank. */
void grid_init(struct grid *g, int box);
/* Sets box, side and cells for box size n, the cells from values (n^4 of
 * them): a grid kept as bare cells made whole again, with no clearing
 * first. */
void grid_from_cells(struct grid *g, int box, const uint8_t *values);

/* Box size n for a side N (N = n*n, 2 <= n <= 8), or 0 when N is not one. */
int grid_box_for_side(int side);
/* Box size n for a cell count (n^4), or 0. */
int grid_box_for_cells(long cells);
/* Index of the box (0..N-1) holding a cell. */
static inline int grid_box_index(const struct grid *g, int row, int col)
{
	return (row / g->box) * g->box + col / g->box;
}

/* Parses one complete puzzle given on one line: characters (any blank of
 * ". 0 _ -", values 1-9 then A-Z, the 16x16 hex style), or whitespace- or
 * comma-separated numbers (0 or -1 blank). Surrounding blanks and CR are
 * ignored. On error returns -1 and writes a message (without the line
 * number) into err. The givens are not checked for clashes here: see
 * grid_check_givens. */
int grid_parse(const char *text, size_t len, struct grid *g, struct notation *nt,
	       char *err, size_t errsz);

/* Checks that no value appears twice among the givens of a row, column or
 * box. Returns 0, or -1 with a message naming the value and the unit. */
int grid_check_givens(const struct grid *g, char *err, size_t errsz);

/* Writes the grid on one line in notation nt, NUL-terminated, no newline.
 * Returns the length, or -1 if buf is too small. grid_format_max gives a
 * size that is always enough. */
int grid_format(const struct grid *g, const struct notation *nt, char *buf, size_t bufsz);
size_t grid_format_max(int side);

/* Writes a boxed grid for people (--pretty), rows separated by '\n',
 * ending with '\n'. Returns the length, or -1 if buf is too small. */
int grid_format_pretty(const struct grid *g, const struct notation *nt, char *buf, size_t bufsz);
size_t grid_format_pretty_max(int side);

/* Number of blank cells. */
int grid_count_blanks(const struct grid *g);

/* True when solution is a full grid that obeys the rules and keeps every
 * given of puzzle. Otherwise false, with the first problem in why (may be
 * NULL). */
bool grid_verify(const struct grid *puzzle, const struct grid *solution, char *why, size_t whysz);

/* XXH3-128 of the versioned canonical encoding of a puzzle, as 32 lower-case
 * hex digits plus NUL. Two notations of the same puzzle hash the same. */
#define GRID_HASH_HEX 33
struct grid_hash {
	uint64_t high, low;
};
struct grid_hash grid_hash(const struct grid *g);
void grid_hash_hex(struct grid_hash h, char out[GRID_HASH_HEX]);

#endif
