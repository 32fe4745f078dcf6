/* Lines to puzzles; the rules are in puzzle_stream.h. */
#include "config.h"

#include "puzzle_stream.h"

#include <stdio.h>
#include <string.h>

#include "grid_internal.h"

void puzzle_stream_init(struct puzzle_stream *ps)
{
	ps->kind = GRID_NONE;
	ps->start_line = 0;
	ps->side = ps->rows_done = 0;
	ps->minus_one = ps->has_pipe = ps->seen_one = false;
	ps->chars_len = 0;
	ps->bad[0] = '\0';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void strip(const char **s, size_t *len)
{
	const char *p = *s, *end = *s + *len;
	while (p < end && (is_blank(*p) || *p == '\n'))
		p++;
	while (end > p && (is_blank(end[-1]) || end[-1] == '\n'))
		end--;
	*s = p;
	*len = (size_t)(end - p);
}

/* A line of '-', '+', '=', '|' and blanks: a rule of a block grid. */
static bool is_rule(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!memchr("-+=|", s[i], 4) && !is_blank(s[i]))
			return false;
	return true;
}

static bool has_separator(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (is_blank(s[i]) || s[i] == ',')
			return true;
	return false;
}

static enum stream_event fail(struct stream_item *out, long line, const char *what)
{
	out->line = line;
	snprintf(out->error, sizeof out->error, "line %ld: %s", line, what);
	return STREAM_INVALID;
}

/* Remembers the first problem of a multi-line grid; the grid is reported
 * once all its rows are in, so one bad row costs one output line. */
static void note_bad(struct puzzle_stream *ps, long lineno, const char *what)
{
	if (!ps->bad[0])
		snprintf(ps->bad, sizeof ps->bad, "line %ld: %s", lineno, what);
}

static enum stream_event end_grid(struct puzzle_stream *ps, struct stream_item *out)
{
	char err[GRID_ERR_MAX];
	long start = ps->start_line;
	bool chars = ps->kind == GRID_CHARS;
	int rc;
	ps->kind = GRID_NONE;
	out->line = start;
	if (ps->bad[0]) {
		snprintf(out->error, sizeof out->error, "%s", ps->bad);
		ps->bad[0] = '\0';
		return STREAM_INVALID;
	}
	if (chars) {
		rc = grid_parse_cells(ps->chars, (size_t)ps->chars_len, grid_box_for_side(ps->side),
				      &out->grid, &out->notation, err, sizeof err);
	} else {
		grid_copy(&out->grid, &ps->partial);
		notation_default(&out->notation, ps->side);
		out->notation.style = NOTATION_NUMBERS;
		out->notation.minus_one = ps->minus_one;
		rc = 0;
	}
	if (rc < 0)
		return fail(out, start, err);
	return STREAM_PUZZLE;
}

/* An unfinished grid met something that is not its next row. */
static enum stream_event cut_grid(struct puzzle_stream *ps, struct stream_item *out)
{
	char what[GRID_ERR_MAX];
	snprintf(what, sizeof what, "grid ended after %d of %d rows", ps->rows_done, ps->side);
	note_bad(ps, ps->start_line, what);
	return end_grid(ps, out);
}

static void start_grid(struct puzzle_stream *ps, int kind, int side, long lineno)
{
	ps->kind = kind;
	ps->side = side;
	ps->rows_done = 0;
	ps->start_line = lineno;
	ps->minus_one = false;
	ps->has_pipe = false;
	ps->seen_one = false;
	ps->chars_len = 0;
	ps->bad[0] = '\0';
	grid_init(&ps->partial, grid_box_for_side(side));
}

/* Adds a row of numbers (already known to be side numbers) to the grid. */
static void add_number_row(struct puzzle_stream *ps, const char *s, size_t len, long lineno)
{
	const char *p = s, *end = s + len;
	int col = 0;
	while (p < end && col < ps->side) {
		while (p < end && (is_blank(*p) || *p == ','))
			p++;
		bool neg = *p == '-';
		if (*p == '-' || *p == '+')
			p++;
		long v = 0;
		while (p < end && *p >= '0' && *p <= '9') {
			if (v < 100000)
				v = v * 10 + (*p - '0');
			p++;
		}
		if (neg)
			v = -v;
		if (v == -1) {
			ps->minus_one = true;
			v = 0;
		}
		if (v < 0 || v > ps->side) {
			char what[GRID_ERR_MAX];
			snprintf(what, sizeof what, "%ld at row %d, column %d is out of range for %dx%d (0-%d)",
				 v, ps->rows_done + 1, col + 1, ps->side, ps->side, ps->side);
			note_bad(ps, lineno, what);
			v = 0;
		}
		ps->partial.cell[ps->rows_done * ps->side + col] = (uint8_t)v;
		col++;
	}
	ps->rows_done++;
}

static enum stream_event grid_row_done(struct puzzle_stream *ps, struct stream_item *out)
{
	if (ps->rows_done < ps->side)
		return STREAM_NONE;
	return end_grid(ps, out);
}

/* Removes '|' and blanks; returns the number of cells. */
static int collect_cells(const char *s, size_t len, char *cells, int cap, bool *decorated,
			 bool *pipe)
{
	int k = 0;
	*decorated = *pipe = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '|' || is_blank(s[i])) {
			*decorated = true;
			*pipe |= s[i] == '|';
			continue;
		}
		if (k < cap)
			cells[k] = s[i];
		k++;
	}
	return k;
}

static enum stream_event feed_numbers_row(struct puzzle_stream *ps, const char *s, size_t len,
					  long lineno, struct stream_item *out, bool *again)
{
	long count;
	if (!has_separator(s, len) || !grid_all_numbers(s, s + len, &count)) {
		*again = true;
		return cut_grid(ps, out);
	}
	if (count != ps->side) {
		char what[GRID_ERR_MAX];
		snprintf(what, sizeof what, "row %d has %ld numbers, expected %d", ps->rows_done + 1,
			 count, ps->side);
		note_bad(ps, lineno, what);
		ps->rows_done++;
		return grid_row_done(ps, out);
	}
	add_number_row(ps, s, len, lineno);
	return grid_row_done(ps, out);
}

static enum stream_event feed_chars_row(struct puzzle_stream *ps, const char *s, size_t len,
					long lineno, struct stream_item *out, bool *again)
{
	char row[GRID_MAX_CELLS];
	bool decorated, pipe;
	if (is_rule(s, len) && !(grid_box_for_cells((long)len) && !has_separator(s, len) &&
				 !memchr(s, '+', len) && !memchr(s, '|', len) && !memchr(s, '=', len)))
		return STREAM_NONE;
	int k = collect_cells(s, len, row, (int)sizeof row, &decorated, &pipe);
	if (k == ps->side) {
		memcpy(ps->chars + ps->chars_len, row, (size_t)k);
		ps->chars_len += k;
		ps->rows_done++;
		return grid_row_done(ps, out);
	}
	if (!decorated && grid_box_for_cells(k)) {
		/* a one-line puzzle: the grid before it was cut short */
		*again = true;
		return cut_grid(ps, out);
	}
	char what[GRID_ERR_MAX];
	snprintf(what, sizeof what, "row %d has %d cells, expected %d", ps->rows_done + 1, k,
		 ps->side);
	note_bad(ps, lineno, what);
	/* keep the cells aligned so that later rows still land in place */
	memset(ps->chars + ps->chars_len, '.', (size_t)ps->side);
	ps->chars_len += ps->side;
	ps->rows_done++;
	return grid_row_done(ps, out);
}

static enum stream_event feed_first(struct puzzle_stream *ps, const char *s, size_t len,
				    long lineno, struct stream_item *out)
{
	char err[GRID_ERR_MAX];
	long count;
	out->line = lineno;
	/* the most common line, a 9x9 puzzle of 1-9 with '.' or '0' for
	 * blanks, read in one pass (the general passes below were a tenth of
	 * sudoku-cp's time on easy sets) */
	if (len == 81 && grid_parse_plain_9x9(s, &out->grid, &out->notation))
		return STREAM_PUZZLE;
	/* the order line of an ACS instance file */
	if (len == 1 && s[0] >= '2' && s[0] <= '8') {
		int n = s[0] - '0';
		start_grid(ps, GRID_ACS_ORDER, n * n, lineno);
		return STREAM_NONE;
	}
	if (has_separator(s, len) && grid_all_numbers(s, s + len, &count)) {
		int box = grid_box_for_cells(count);
		bool small = true;
		if (count == 16) {
			/* 16 numbers: a 4x4 puzzle, unless a value above 4 makes it the
			 * first row of a 16x16 grid */
			union grid_room g;
			struct notation nt;
			small = grid_parse_numbers(s, len, 2, &g.grid, &nt, err, sizeof err) == 0;
		}
		if (box && small) {
			if (grid_parse_numbers(s, len, box, &out->grid, &out->notation, err, sizeof err) < 0)
				return fail(out, lineno, err);
			return STREAM_PUZZLE;
		}
		if (grid_box_for_side((int)count)) {
			start_grid(ps, GRID_NUMBERS, (int)count, lineno);
			add_number_row(ps, s, len, lineno);
			return STREAM_NONE;
		}
		snprintf(err, sizeof err, "%ld numbers, expected %ld (or a row of 4, 9, 16, 25, 36, 49 or 64)",
			 count, grid_nearest_cells(count));
		return fail(out, lineno, err);
	}
	if (is_rule(s, len) && !(grid_box_for_cells((long)len) && !has_separator(s, len) &&
				 !memchr(s, '+', len) && !memchr(s, '|', len) && !memchr(s, '=', len)))
		return STREAM_NONE;
	bool decorated, pipe;
	int k = collect_cells(s, len, ps->chars, (int)sizeof ps->chars - 1, &decorated, &pipe);
	int box = grid_box_for_cells(k);
	if (box && !(pipe && k <= GRID_MAX_SIDE)) {
		if (grid_parse_cells(ps->chars, (size_t)k, box, &out->grid, &out->notation, err,
				     sizeof err) < 0)
			return fail(out, lineno, err);
		return STREAM_PUZZLE;
	}
	if (grid_box_for_side(k) && (decorated || k != 16)) {
		start_grid(ps, GRID_CHARS, k, lineno);
		ps->chars_len = k;
		ps->has_pipe = pipe;
		ps->rows_done = 1;
		return STREAM_NONE;
	}
	snprintf(err, sizeof err, "%d cells, expected %ld", k, grid_nearest_cells(k));
	return fail(out, lineno, err);
}

/* A line that cannot be read at all (too long, a NUL byte): an error of its
 * own, or of the grid it was to be a row of (which keeps its place). */
static enum stream_event bad_line(struct puzzle_stream *ps, long lineno, const char *what,
				  struct stream_item *out)
{
	if (ps->kind == GRID_NONE)
		return fail(out, lineno, what);
	note_bad(ps, lineno, what);
	ps->rows_done++;
	if (ps->kind == GRID_CHARS) {
		memset(ps->chars + ps->chars_len, '.', (size_t)ps->side);
		ps->chars_len += ps->side;
	}
	if (ps->kind == GRID_ACS_ORDER)
		ps->kind = GRID_NUMBERS;
	return grid_row_done(ps, out);
}

enum stream_event puzzle_stream_feed(struct puzzle_stream *ps, const char *line, size_t len,
				     long lineno, struct stream_item *out, bool *again)
{
	*again = false;
	/* a NUL is no text: never a blank or a rule to skip, even in a comment */
	const char *nul = memchr(line, '\0', len);
	if (nul) {
		char what[GRID_ERR_MAX];
		snprintf(what, sizeof what, "a NUL byte at column %zu", (size_t)(nul - line) + 1);
		return bad_line(ps, lineno, what, out);
	}
	strip(&line, &len);
	if (len && line[0] == '#')
		return STREAM_NONE;
	if (len == 0) {
		if (ps->kind == GRID_NONE)
			return STREAM_NONE;
		return cut_grid(ps, out);
	}
	switch (ps->kind) {
	case GRID_ACS_ORDER:
		/* the "1" line of an ACS file; then the rows */
		if (!ps->seen_one && len == 1 && line[0] == '1') {
			ps->seen_one = true;
			return STREAM_NONE;
		}
		ps->kind = GRID_NUMBERS;
		return feed_numbers_row(ps, line, len, lineno, out, again);
	case GRID_NUMBERS:
		return feed_numbers_row(ps, line, len, lineno, out, again);
	case GRID_CHARS:
		return feed_chars_row(ps, line, len, lineno, out, again);
	case GRID_NONE:
		break;
	}
	return feed_first(ps, line, len, lineno, out);
}

enum stream_event puzzle_stream_overlong(struct puzzle_stream *ps, long lineno,
					 struct stream_item *out, bool *again)
{
	char what[GRID_ERR_MAX];
	*again = false;
	snprintf(what, sizeof what, "longer than %d bytes", PUZZLE_LINE_MAX);
	return bad_line(ps, lineno, what, out);
}

enum stream_event puzzle_stream_finish(struct puzzle_stream *ps, struct stream_item *out)
{
	if (ps->kind == GRID_NONE)
		return STREAM_NONE;
	return cut_grid(ps, out);
}
