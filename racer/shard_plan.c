/* --shards' cuts (shard_plan.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/puzzle_stream.h"
#include "racer/shard_plan.h"
#include "racer/util.h"

/* Presolver processes one racer keeps busy: its thread spends 0.3-0.5 us a
 * puzzle on the 17-clue set, where sudoku-cp solves one in about 2 us
 * (perf stat --no-inherit, contrib/bench/throughput.md), so a racer feeds
 * four to six of them before it is the one they wait for. */
#define SHARD_JOBS 4
/* A part's least size: 12,800 9x9 puzzles, some 25 ms of sudoku-cp, where a
 * part's racer and presolver take 2-5 ms to start. */
#define SHARD_MIN_BYTES ((size_t)1 << 20)
/* Lines looked at past a cut's place for one that may start a part. */
#define CUT_TRIES 4096

int shard_default_count(int jobs, size_t size)
{
	size_t n = (size_t)(jobs / SHARD_JOBS);
	if (n > size / SHARD_MIN_BYTES)
		n = size / SHARD_MIN_BYTES;
	return n < 1 ? 1 : (int)n;
}

int shard_spans(const size_t *sizes, int n, int want, struct shard_span *spans)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += sizes[i];
	size_t part = total / (size_t)(want > 0 ? want : 1);
	if (part < 1)
		part = 1;
	int nspans = 0;
	for (int i = 0; i < n;) {
		struct shard_span *s = &spans[nspans++];
		*s = (struct shard_span){.file = i, .nfiles = 1, .cuts = 1};
		if (sizes[i] >= part) {
			/* the nearest number of parts of about a part's size */
			s->cuts = (int)((sizes[i] + part / 2) / part);
			i++;
			continue;
		}
		size_t together = sizes[i++];
		while (i < n && sizes[i] < part && together < part) {
			together += sizes[i++];
			s->nfiles++;
		}
	}
	return nspans;
}

/* Whether the line [line, line+len) is a one-line puzzle of 9x9 or more,
 * as the racer's reader takes it. */
static bool ends_any_grid(const char *line, size_t len, struct puzzle_stream *ps, struct stream_item *item)
{
	if (len > PUZZLE_LINE_MAX)
		return false;
	bool again;
	puzzle_stream_init(ps);
	return puzzle_stream_feed(ps, line, len, 1, item, &again) == STREAM_PUZZLE && !again &&
	       item->grid.box >= 3;
}

/* The first place at or after at (and after after) where a part may start:
 * just past a line that ends any grid. 0 when there is none near. */
static size_t find_cut(const char *data, size_t size, size_t at, size_t after, struct puzzle_stream *ps,
		       struct stream_item *item)
{
	/* from the start of the line that holds at-1 */
	const char *start = data + (at > 0 ? at - 1 : 0);
	while (start > data && start[-1] != '\n')
		start--;
	for (int tries = 0; tries < CUT_TRIES; tries++) {
		const char *nl = memchr(start, '\n', (size_t)(data + size - start));
		size_t cut = nl ? (size_t)(nl + 1 - data) : size;
		if (cut >= size)
			return 0;
		if (cut > after && ends_any_grid(start, (size_t)(nl - start), ps, item))
			return cut;
		start = nl + 1;
	}
	return 0;
}

static long count_lines(const char *p, size_t n)
{
	long lines = 0;
	const char *end = p + n;
	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		lines++;
		p++;
	}
	return lines;
}

int shard_plan(const char *data, size_t size, int want, struct shard_part *parts)
{
	struct puzzle_stream *ps = xmalloc(sizeof *ps);
	struct stream_item *item = xmalloc(sizeof *item);
	int n = 0;
	size_t from = 0;
	long lines = 0;
	for (int k = 1; k < want; k++) {
		size_t cut = find_cut(data, size, size / (size_t)want * (size_t)k, from, ps, item);
		if (!cut)
			continue;
		parts[n++] = (struct shard_part){.from = from, .to = cut, .lines = lines};
		lines += count_lines(data + from, cut - from);
		from = cut;
	}
	parts[n++] = (struct shard_part){.from = from, .to = size, .lines = lines, .to_end = true};
	free(ps);
	free(item);
	return n;
}
