/* The puzzle hash: XXH3-128 of a versioned canonical encoding, so the same
 * puzzle written in two notations (or with other blanks) has one key, and a
 * change of encoding changes every key (bump the version tag). */
#include "config.h"

#include "grid.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

/* Canonical encoding, version 1: this tag, one byte for the box size, then
 * one byte per cell (0 blank, else the value), row-major. */
static const char hash_tag[] = "sudoku-race puzzle v1";

struct grid_hash grid_hash(const struct grid *g)
{
	unsigned char buf[sizeof hash_tag + 1 + GRID_MAX_CELLS];
	size_t n = sizeof hash_tag; /* the NUL ends the tag */
	memcpy(buf, hash_tag, sizeof hash_tag);
	buf[n++] = (unsigned char)g->box;
	memcpy(buf + n, g->cell, (size_t)g->cells);
	n += (size_t)g->cells;
	XXH128_hash_t h = XXH3_128bits(buf, n);
	return (struct grid_hash){.high = h.high64, .low = h.low64};
}

void grid_hash_hex(struct grid_hash h, char out[GRID_HASH_HEX])
{
	snprintf(out, GRID_HASH_HEX, "%016llx%016llx", (unsigned long long)h.high,
		 (unsigned long long)h.low);
}
