/* Unit tests: puzzles from lines, single- and multi-line formats. */
#include "config.h"

#include <stdlib.h>

#include "lib/puzzle_stream.h"
#include "tap.h"

struct result {
	int n;
	enum stream_event ev[16];
	long line[16];
	char err[16][GRID_ERR_MAX + 48];
	union grid_room grid[16];
	struct notation nt[16];
};

/* Feeds text line by line (lines split at LF) and collects what comes out. */
static void run(const char *text, struct result *r)
{
	static struct puzzle_stream ps;
	static struct stream_item item;
	puzzle_stream_init(&ps);
	memset(r, 0, sizeof *r);
	long lineno = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		bool again;
		lineno++;
		do {
			enum stream_event ev = puzzle_stream_feed(&ps, p, len, lineno, &item, &again);
			if (ev != STREAM_NONE && r->n < 16) {
				r->ev[r->n] = ev;
				r->line[r->n] = item.line;
				strcpy(r->err[r->n], item.error);
				grid_copy(&r->grid[r->n].grid, &item.grid);
				r->nt[r->n] = item.notation;
				r->n++;
			}
		} while (again);
		p += len + (nl ? 1 : 0);
	}
	enum stream_event ev = puzzle_stream_finish(&ps, &item);
	if (ev != STREAM_NONE && r->n < 16) {
		r->ev[r->n] = ev;
		r->line[r->n] = item.line;
		strcpy(r->err[r->n], item.error);
		r->n++;
	}
}

int main(void)
{
	static struct result r;
	const char *easy = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
	char text[8192];

	snprintf(text, sizeof text, "# a comment\n\n%s\n%s\r\n", easy, easy);
	run(text, &r);
	ok(r.n == 2 && r.ev[0] == STREAM_PUZZLE && r.ev[1] == STREAM_PUZZLE, "two one-line puzzles");
	ok(r.line[0] == 3 && r.line[1] == 4, "comments and blank lines are skipped, lines counted");

	run("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4.....\n"
	    "1.3..4.2.1..3..1\n", &r);
	ok(r.n == 2 && r.ev[0] == STREAM_INVALID && r.ev[1] == STREAM_PUZZLE, "a bad line costs only itself");
	is_str(r.err[0], "line 1: 80 cells, expected 81", "the error names the line");

	const char *block =
		"+-------+-------+-------+\n"
		"| 4 . . | . . . | 8 . 5 |\n"
		"| . 3 . | . . . | . . . |\n"
		"| . . . | 7 . . | . . . |\n"
		"+-------+-------+-------+\n"
		"| . 2 . | . . . | . 6 . |\n"
		"| . . . | . 8 . | 4 . . |\n"
		"| . . . | . 1 . | . . . |\n"
		"+-------+-------+-------+\n"
		"| . . . | 6 . 3 | . 7 . |\n"
		"| 5 . . | 2 . . | . . . |\n"
		"| 1 . 4 | . . . | . . . |\n"
		"+-------+-------+-------+\n";
	run(block, &r);
	ok(r.n == 1 && r.ev[0] == STREAM_PUZZLE, "a block grid is one puzzle");
	ok(r.line[0] == 2, "reported at its first row");
	char out[128];
	grid_format(&r.grid[0].grid, &r.nt[0], out, sizeof out);
	is_str(out, easy, "the block grid reads as the one-line puzzle");

	run("53..7....\n6..195...\n.98....6.\n8...6...3\n4..8.3..1\n7...2...6\n.6....28.\n...419..5\n....8..79\n", &r);
	ok(r.n == 1 && r.ev[0] == STREAM_PUZZLE && r.grid[0].grid.cell[0] == 5, "nine rows of nine characters");

	run("53..7....\n6..195...\n\n.98....6.\n", &r);
	ok(r.n == 2 && r.ev[0] == STREAM_INVALID, "a blank line cuts a grid short");
	is_str(r.err[0], "line 1: grid ended after 2 of 9 rows", "and says how far it got");
	is_str(r.err[1], "line 4: grid ended after 1 of 9 rows", "the rest is cut at the end of input");

	run("53..7....\n6..195...\n4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n", &r);
	ok(r.n == 2 && r.ev[0] == STREAM_INVALID && r.ev[1] == STREAM_PUZZLE,
	   "a one-line puzzle after a cut grid is still read");

	run("53..7....\n6..195..\n.98....6.\n8...6...3\n4..8.3..1\n7...2...6\n.6....28.\n...419..5\n....8..79\n", &r);
	ok(r.n == 1 && r.ev[0] == STREAM_INVALID, "a short row makes one error for the whole grid");
	is_str(r.err[0], "line 2: row 2 has 8 cells, expected 9", "naming the row");

	/* ACS instance file: order, 1, rows of numbers with -1 blanks, TAB-ended, CRLF */
	text[0] = 0;
	strcat(text, "2\r\n1\r\n");
	strcat(text, "1\t-1\t-1\t-1\t\r\n-1\t-1\t1\t-1\t\r\n-1\t1\t-1\t-1\t\r\n-1\t-1\t-1\t1\t\r\n");
	run(text, &r);
	ok(r.n == 1 && r.ev[0] == STREAM_PUZZLE && r.grid[0].grid.box == 2, "an ACS instance file");
	ok(r.nt[0].style == NOTATION_NUMBERS && r.nt[0].minus_one, "read as numbers with -1 blanks");
	ok(r.grid[0].grid.cell[0] == 1 && r.grid[0].grid.cell[6] == 1 && r.grid[0].grid.cell[1] == 0, "cells in place");

	/* rows of numbers without a header */
	text[0] = 0;
	for (int row = 0; row < 9; row++) {
		for (int c = 0; c < 9; c++) {
			char t[8];
			snprintf(t, sizeof t, "%d ", easy[row * 9 + c] == '.' ? 0 : easy[row * 9 + c] - '0');
			strcat(text, t);
		}
		strcat(text, "\n");
	}
	run(text, &r);
	ok(r.n == 1 && r.ev[0] == STREAM_PUZZLE && r.grid[0].grid.cell[0] == 4, "nine rows of nine numbers");
	run("1 0 3 0 0 4 0 2 0 1 0 0 3 0 0 1\n", &r);
	ok(r.n == 1 && r.ev[0] == STREAM_PUZZLE && r.grid[0].grid.box == 2, "16 small numbers: a 4x4");
	run("1 0 3 0 0 4 0 2 0 1 0 0 3 0 0 9\n", &r);
	ok(r.n == 1 && r.ev[0] == STREAM_INVALID && r.grid[0].grid.box != 2,
	   "16 numbers with a 9: the first row of a 16x16, cut short");

	run("xyz\n", &r);
	ok(r.n == 1 && r.ev[0] == STREAM_INVALID, "garbage is one invalid puzzle");
	is_str(r.err[0], "line 1: 3 cells, expected 16", "with the nearest size");

	/* NUL bytes: reported, never skipped as a blank or a rule */
	static struct puzzle_stream ps;
	static struct stream_item item;
	bool again;
	puzzle_stream_init(&ps);
	ok(puzzle_stream_feed(&ps, "\0", 1, 5, &item, &again) == STREAM_INVALID,
	   "a line that is only a NUL is invalid");
	is_str(item.error, "line 5: a NUL byte at column 1", "and says where");
	ok(puzzle_stream_feed(&ps, "# a\0comment", 12, 6, &item, &again) == STREAM_INVALID,
	   "a NUL in a comment too");
	ok(puzzle_stream_feed(&ps, "--\0--", 5, 7, &item, &again) == STREAM_INVALID,
	   "a NUL among a rule's dashes too");
	ok(puzzle_stream_feed(&ps, "1 3 . .", 7, 8, &item, &again) == STREAM_NONE, "a 4x4 grid's first row");
	ok(puzzle_stream_feed(&ps, ". \0 . .", 7, 9, &item, &again) == STREAM_NONE, "a row with a NUL");
	ok(puzzle_stream_feed(&ps, ". . . .", 7, 10, &item, &again) == STREAM_NONE &&
	       puzzle_stream_feed(&ps, ". . . 4", 7, 11, &item, &again) == STREAM_INVALID,
	   "makes the grid invalid at its end");
	is_str(item.error, "line 9: a NUL byte at column 3", "naming the row's line");
	return tap_done();
}
