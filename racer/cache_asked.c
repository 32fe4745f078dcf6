/* The look-ups in flight (cache_asked.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/common.h"
#include "racer/cache_asked.h"

struct entry {
	struct cache_asked asked;
	int box;
	size_t at; /* its cells in `cells` */
};
static struct entry *entries;
static size_t head, n, cap;
static uint8_t *cells;
static size_t cells_len, cells_cap;

/* Emptied, the arrays start again at their beginnings; every taking-off
 * ends here, so that head == n only at 0. */
static void reset_if_empty(void)
{
	if (head == n)
		head = n = cells_len = 0;
}

void asked_push(uint64_t seq, const uint8_t key[CACHE_KEY_LEN], const struct grid *puzzle)
{
	if (n == cap) {
		if (head > n / 2) { /* what was answered goes first */
			memmove(entries, entries + head, (n - head) * sizeof *entries);
			n -= head;
			head = 0;
		} else {
			cap = cap ? 2 * cap : 256;
			entries = xrealloc(entries, cap * sizeof *entries);
		}
	}
	size_t len = (size_t)puzzle->cells;
	if (cells_len + len > cells_cap) {
		/* the oldest in flight's cells; what is before them was answered */
		size_t cells_head = head < n ? entries[head].at : 0;
		if (cells_head > cells_len / 2) {
			memmove(cells, cells + cells_head, cells_len - cells_head);
			for (size_t i = head; i < n; i++)
				entries[i].at -= cells_head;
			cells_len -= cells_head;
		}
		size_t want = cells_cap;
		while (cells_len + len > want)
			want = want ? 2 * want : 65536;
		if (want != cells_cap) {
			cells = xrealloc(cells, want);
			cells_cap = want;
		}
	}
	struct entry *e = &entries[n++];
	e->asked.seq = seq;
	memcpy(e->asked.key, key, CACHE_KEY_LEN);
	e->box = puzzle->box;
	e->at = cells_len;
	memcpy(cells + cells_len, puzzle->cell, len);
	cells_len += len;
}

bool asked_any(void)
{
	return head < n;
}

uint64_t asked_oldest_seq(void)
{
	return entries[head].asked.seq;
}

void asked_pop(struct cache_asked *out, struct grid *puzzle)
{
	const struct entry *e = &entries[head++];
	*out = e->asked;
	if (puzzle)
		grid_from_cells(puzzle, e->box, cells + e->at);
	reset_if_empty();
}

void asked_drain(void (*fn)(uint64_t seq))
{
	while (head < n)
		fn(entries[head++].asked.seq);
	reset_if_empty();
}

void asked_free(void)
{
	free(entries);
	free(cells);
	entries = NULL;
	cells = NULL;
	head = n = cap = cells_len = cells_cap = 0;
}
