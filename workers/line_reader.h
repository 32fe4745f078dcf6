/* Reading lines from a file descriptor with a bounded buffer: a line longer
 * than the limit is skipped up to its LF and reported, never kept. */
#ifndef SUDOKU_LINE_READER_H
#define SUDOKU_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>

struct line_reader {
	int fd;
	size_t max;        /* longest line kept, LF excluded */
	char *buf;         /* max + 1 bytes, plus room for a NUL */
	size_t start, end; /* unread bytes are buf[start, end) */
	bool eof;
	bool skipping;     /* inside an over-long line */
	long lineno;       /* number of the line last returned */
	char *lf;          /* the next line's LF, once line_reader_buffered has
			    * found it (NULL: not looked for) */
};

enum line_status {
	LINE_OK,       /* *line, *len: the line without its LF, NUL-terminated */
	LINE_OVERLONG, /* a line over the limit was skipped */
	LINE_EOF,
	LINE_ERROR,    /* errno says why */
};

int line_reader_init(struct line_reader *lr, int fd, size_t max);
void line_reader_free(struct line_reader *lr);
/* Blocks until a whole line is in. The line stays valid until the next call. */
enum line_status line_reader_next(struct line_reader *lr, char **line, size_t *len);
/* True when a line can be returned without blocking on read(). The LF it
 * finds is kept for line_reader_next. */
bool line_reader_buffered(struct line_reader *lr);

/* Blocks until n bytes (at most max + 1) are in, binary, after the last
 * line: a bulk frame's record. LINE_OK with *bytes at them (valid until the
 * next call), LINE_EOF when the input ends before them (what came is
 * dropped), LINE_ERROR. */
enum line_status line_reader_bytes(struct line_reader *lr, size_t n, const unsigned char **bytes);
/* True when n bytes can be had without blocking on read(). */
bool line_reader_has(const struct line_reader *lr, size_t n);

#endif
