/* Turns input lines into puzzles, for the formats that take several lines
 * (block grids, rows of numbers, the ACO paper's instance files) as well as
 * one-line puzzles. It is fed one line at a time, so that a blocking reader
 * (the workers) and an event loop (the racer) share it.
 *
 * Recognition, for a line with CR and surrounding blanks stripped:
 *   - empty lines and lines starting with '#' are skipped; an empty line
 *     inside an unfinished multi-line grid ends it with an error;
 *   - a line of whitespace-separated integers is a one-line puzzle when it
 *     holds n^4 numbers (16 numbers only if none exceeds 4: otherwise it is
 *     the first row of a 16x16 grid), the first row of an N-row grid when it
 *     holds N = n^2 numbers, or, when it is a single number 2..8, the order
 *     line of an ACS instance file (an optional "1" line follows, then N rows);
 *   - a line made only of '-', '+', '=', '|' and blanks is a separator of a
 *     block grid and is skipped (a bare run of n^4 dashes is an empty puzzle);
 *   - any other line is cells: with '|' and blanks removed, n^4 cells on an
 *     undecorated line are a one-line puzzle; N cells start (or continue) an
 *     N-row grid.
 * A line holding a NUL byte is an error (of the grid it falls in, if any),
 * never skipped. Every puzzle is reported with the line it started on.
 * Errors name the line and the problem; they cost that puzzle only. */
#ifndef SUDOKU_PUZZLE_STREAM_H
#define SUDOKU_PUZZLE_STREAM_H

#include "grid.h"

/* Lines longer than this are rejected without being kept in memory. A
 * 64x64 grid of numbers fits (4096 cells, at most 3 bytes each). */
#define PUZZLE_LINE_MAX 65536

enum stream_event {
	STREAM_NONE,    /* nothing yet: feed the next line */
	STREAM_PUZZLE,  /* out->grid, out->notation and out->line are set */
	STREAM_INVALID, /* out->error and out->line are set */
};

struct stream_item {
	long line;                 /* the line the puzzle started on */
	struct notation notation;
	char error[GRID_ERR_MAX + 48];
	GRID_MEMBER(grid);         /* last: a small grid's cells end the part used */
};

struct puzzle_stream {
	/* A multi-line grid in progress. */
	enum { GRID_NONE, GRID_CHARS, GRID_NUMBERS, GRID_ACS_ORDER } kind;
	long start_line;
	int side, rows_done;
	bool minus_one;  /* GRID_NUMBERS: blanks were written -1 */
	bool has_pipe;   /* GRID_CHARS: rows were decorated with '|' */
	bool seen_one;   /* GRID_ACS_ORDER: the "1" line was read */
	char bad[GRID_ERR_MAX + 48]; /* the grid's first problem, reported at its end */
	GRID_MEMBER(partial); /* GRID_NUMBERS: the cells read so far */
	int chars_len;
	char chars[GRID_MAX_CELLS + 1]; /* GRID_CHARS: the cells read so far */
};

void puzzle_stream_init(struct puzzle_stream *ps);

/* Feeds one line (without its LF; a CR is fine). Returns an event for out.
 * When *again is set on return, the same line must be fed once more: it
 * ended a grid in progress (reported now as invalid) and starts something
 * of its own. */
enum stream_event puzzle_stream_feed(struct puzzle_stream *ps, const char *line, size_t len,
				     long lineno, struct stream_item *out, bool *again);

/* Reports a line that was longer than PUZZLE_LINE_MAX (its text is gone). */
enum stream_event puzzle_stream_overlong(struct puzzle_stream *ps, long lineno,
					 struct stream_item *out, bool *again);

/* At end of input: an unfinished grid is reported as invalid. */
enum stream_event puzzle_stream_finish(struct puzzle_stream *ps, struct stream_item *out);

#endif
