/* Fuzz target: the cache's value codec (racer/cache_value.c), which reads
 * what a shared Redis server, or a damaged store, hands the racer. A value
 * is decoded or refused, never read past its end; checked against its own
 * puzzle it is a hit or (a wrong solution) bad, never a miss; against
 * another puzzle it is never a hit; and a hit encodes again into a value
 * that decodes to the same entry. */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "racer/cache_value.h"

static bool same_entry(const struct cache_entry *a, const struct cache_entry *b)
{
	/* (an entry without a version is written with this racer's) */
	const char *version = a->version[0] ? a->version : PACKAGE_VERSION;
	return a->verdict == b->verdict && a->uniq == b->uniq && strcmp(a->winner, b->winner) == 0 &&
	       strcmp(version, b->version) == 0 && strcmp(a->provers, b->provers) == 0 &&
	       (a->verdict != V_SOLVED || (a->solution.box == b->solution.box &&
					   memcmp(a->solution.cell, b->solution.cell, (size_t)a->solution.cells) == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union grid_room puzzle, again_puzzle, other;
	static struct cache_entry e, again, checked;
	static uint8_t buf[CACHE_HEADER + 2 * GRID_MAX_CELLS];
	char why[GRID_ERR_MAX + 64];
	int d = cache_decode(data, size, &puzzle.grid, &e, why, sizeof why);
	fuzz_check(d >= -1 && d <= 1);
	if (d != 1)
		return 0;
	const struct grid *p = &puzzle.grid;
	fuzz_check(p->box >= GRID_MIN_BOX && p->box <= GRID_MAX_BOX);
	for (int i = 0; i < p->cells; i++)
		fuzz_check(p->cell[i] <= p->side);
	/* against its own puzzle: a hit, or bad for a wrong solution */
	enum cache_result r = cache_check(p, data, size, &checked, why, sizeof why);
	fuzz_check(r == CACHE_HIT || r == CACHE_BAD);
	if (e.verdict == V_SOLVED)
		fuzz_check((r == CACHE_HIT) == grid_verify(p, &e.solution, NULL, 0));
	/* against the same puzzle with one given more or less: never a hit */
	grid_copy(&other.grid, p);
	other.grid.cell[0] = other.grid.cell[0] ? 0 : 1;
	fuzz_check(cache_check(&other.grid, data, size, &checked, why, sizeof why) != CACHE_HIT);
	if (r != CACHE_HIT)
		return 0;
	/* a hit, written again as this racer writes it, reads back the same
	 * (a format-2 value's puzzle is its givens, which the solution
	 * agrees with) */
	size_t len = cache_encode(p, &e, buf, sizeof buf);
	fuzz_check(len > 0 && len == cache_value_len(p, &e));
	fuzz_check(cache_decode(buf, len, &again_puzzle.grid, &again, why, sizeof why) == 1);
	fuzz_check(again_puzzle.grid.box == p->box && memcmp(again_puzzle.grid.cell, p->cell, (size_t)p->cells) == 0);
	fuzz_check(same_entry(&e, &again));
	return 0;
}
