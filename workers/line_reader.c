#include "config.h"

#include "line_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int line_reader_init(struct line_reader *lr, int fd, size_t max)
{
	memset(lr, 0, sizeof *lr);
	lr->fd = fd;
	lr->max = max;
	lr->buf = malloc(max + 2);
	return lr->buf ? 0 : -1;
}

void line_reader_free(struct line_reader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/* One read() into the room after the unread bytes; the end of input is
 * noted. -1: an error (errno says which). */
static int fill(struct line_reader *lr)
{
	for (;;) {
		ssize_t k = read(lr->fd, lr->buf + lr->end, lr->max + 1 - lr->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			lr->eof = true;
		lr->end += (size_t)k;
		return 0;
	}
}

bool line_reader_buffered(struct line_reader *lr)
{
	/* kept: every reader asks before each line, and a second scan for the
	 * same LF was a third of the line's reading */
	lr->lf = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
	return lr->eof || lr->lf;
}

enum line_status line_reader_next(struct line_reader *lr, char **line, size_t *len)
{
	for (;;) {
		char *nl = lr->lf ? lr->lf : memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		lr->lf = NULL;
		if (nl) {
			char *s = lr->buf + lr->start;
			size_t n = (size_t)(nl - s);
			lr->start += n + 1;
			lr->lineno++;
			if (lr->skipping) {
				lr->skipping = false;
				return LINE_OVERLONG;
			}
			*nl = '\0';
			*line = s;
			*len = n;
			return LINE_OK;
		}
		if (lr->eof) {
			if (lr->start == lr->end && !lr->skipping)
				return LINE_EOF;
			/* a last line without LF */
			lr->lineno++;
			if (lr->skipping) {
				lr->skipping = false;
				lr->start = lr->end;
				return LINE_OVERLONG;
			}
			*line = lr->buf + lr->start;
			*len = lr->end - lr->start;
			lr->buf[lr->end] = '\0';
			lr->start = lr->end;
			return LINE_OK;
		}
		if (lr->skipping) {
			/* inside an over-long line: nothing before its LF is kept */
			lr->start = lr->end = 0;
		} else if (lr->start > 0) {
			/* make room: move the partial line to the front */
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (lr->end > lr->max) {
			/* no LF within the limit: drop what we have and skip to the LF */
			lr->skipping = true;
			lr->start = lr->end = 0;
		}
		if (fill(lr) < 0)
			return LINE_ERROR;
	}
}

bool line_reader_has(const struct line_reader *lr, size_t n)
{
	return lr->end - lr->start >= n;
}

enum line_status line_reader_bytes(struct line_reader *lr, size_t n, const unsigned char **bytes)
{
	lr->lf = NULL;
	while (lr->end - lr->start < n) {
		if (lr->eof || n > lr->max + 1) {
			lr->start = lr->end;
			return LINE_EOF;
		}
		if (lr->start > 0 && lr->start + n > lr->max + 1) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (fill(lr) < 0)
			return LINE_ERROR;
	}
	*bytes = (const unsigned char *)lr->buf + lr->start;
	lr->start += n;
	return LINE_OK;
}
