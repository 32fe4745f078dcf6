/* Feeding bytes to a puzzle stream line by line, as the workers and the
 * racer do, checking every event: shared by the stream and ACO targets. */
#ifndef SUDOKU_FUZZ_STREAM_H
#define SUDOKU_FUZZ_STREAM_H

#include "fuzz_common.h"
#include "lib/puzzle_stream.h"

static inline void fuzz_check_event(enum stream_event ev, const struct stream_item *item, long lineno)
{
	if (ev == STREAM_PUZZLE) {
		fuzz_check(item->line >= 1 && item->line <= lineno);
		fuzz_check_grid(&item->grid);
	} else if (ev == STREAM_INVALID) {
		fuzz_check(item->line >= 1 && item->line <= lineno);
		fuzz_check_error(item->error, sizeof item->error);
		fuzz_check(strncmp(item->error, "line ", 5) == 0);
	}
}

/* Feeds data's lines (split at LF; a line over PUZZLE_LINE_MAX is reported
 * as over-long, as the readers do) to ps, from line number lineno on. */
static inline long fuzz_feed(struct puzzle_stream *ps, const uint8_t *data, size_t size, long lineno)
{
	static struct stream_item item;
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool again;
		int feeds = 0;
		lineno++;
		do {
			enum stream_event ev =
				len > PUZZLE_LINE_MAX ? puzzle_stream_overlong(ps, lineno, &item, &again)
						      : puzzle_stream_feed(ps, p, len, lineno, &item, &again);
			fuzz_check_event(ev, &item, lineno);
			/* a line ends the grid before it at most once */
			fuzz_check(++feeds <= 2);
		} while (again);
		p += len + (nl ? 1 : 0);
	}
	enum stream_event ev = puzzle_stream_finish(ps, &item);
	fuzz_check_event(ev, &item, lineno);
	return lineno;
}

#endif
