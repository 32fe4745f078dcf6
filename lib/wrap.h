/* Text wrapped for a terminal of 80 columns: --help's paragraphs and option
 * lists, the racer's --stats and --list-workers. */
#ifndef SUDOKU_WRAP_H
#define SUDOKU_WRAP_H

#include <stdbool.h>
#include <stdio.h>

/* The last column a wrapped line may reach. */
#define WRAP_COLUMNS 80

/* Where wrapped text goes on the page, and how it breaks. */
struct wrap {
	int at;       /* the column text starts at: what stands before it on
		       * the line is written already */
	int indent;   /* where a broken line goes on */
	int hang;     /* after a '\n' in the text, how much deeper than the
		       * new line's start its own broken rest goes on */
	bool clauses; /* break after a ',' or ';' in the second half of a
		       * line rather than at a later space (a figure stays
		       * with its words) */
};

/* Writes text to f and ends the line. A line that would pass the last
 * column is broken at a space, the spaces dropped, and goes on at column
 * w.indent; a word that does not fit on a line of its own is cut where the
 * line ends. A '\n' in the text starts a new line at column w.indent plus
 * the spaces that follow it, whose broken rest goes on w.hang columns
 * deeper (an option's list of values). Columns count UTF-8 characters, not
 * bytes. */
void print_wrapped(FILE *f, const char *text, struct wrap w);

#endif
