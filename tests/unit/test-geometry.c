/* Unit tests: the units and peers of every box size (lib/geometry.h). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "lib/geometry.h"
#include "lib/grid.h"
#include "tap.h"

/* Checks one size against the definitions; returns what is wrong, or NULL. */
static const char *check(const struct geometry *g, int box)
{
	const int side = box * box, cells = side * side;
	if (g->box != box || g->side != side || g->cells != cells || g->nunits != 3 * side)
		return "the sizes";
	if (g->npeers != 2 * (side - 1) + (box - 1) * (box - 1))
		return "the peer count";
	static int times[GRID_MAX_CELLS][3];
	memset(times, 0, sizeof times);
	for (int u = 0; u < g->nunits; u++) {
		const uint16_t *unit = geometry_unit(g, u);
		const int kind = u / side, k0 = u % side;
		for (int k = 0; k < side; k++) {
			int cell = unit[k], r = cell / side, c = cell % side;
			if (cell >= cells)
				return "a unit's cell out of the grid";
			times[cell][kind]++;
			/* rows left to right, columns top down, boxes in reading order */
			if ((kind == 0 && (r != k0 || c != k)) || (kind == 1 && (c != k0 || r != k)) ||
			    (kind == 2 && (r != k0 / box * box + k / box || c != k0 % box * box + k % box)))
				return "a unit's cells or their order";
			if (g->cell_unit[3 * cell + kind] != u || g->cell_pos[3 * cell + kind] != k)
				return "cell_unit or cell_pos against the units";
		}
	}
	for (int cell = 0; cell < cells; cell++)
		for (int t = 0; t < 3; t++)
			if (times[cell][t] != 1)
				return "a cell not in exactly one unit of each kind";
	for (int cell = 0; cell < cells; cell++) {
		int r = cell / side, c = cell % side, b = r / box * box + c / box;
		if (geometry_row(g, cell) != r || geometry_col(g, cell) != c || geometry_box(g, cell) != b)
			return "geometry_row, _col or _box";
		static bool seen[GRID_MAX_CELLS];
		memset(seen, 0, sizeof seen);
		const uint16_t *p = geometry_peers(g, cell);
		for (int k = 0; k < g->npeers; k++) {
			int q = p[k], qr = q / side, qc = q % side;
			bool same_box = qr / box * box + qc / box == b;
			if (q == cell || seen[q] || !(qr == r || qc == c || same_box))
				return "a peer twice, the cell itself, or a cell in none of its units";
			seen[q] = true;
		}
	}
	return NULL;
}

static void *get_9x9(void *arg)
{
	(void)arg;
	return (void *)geometry_get(3);
}

int main(void)
{
	/* 9x9 first, from several threads at once: one table for all */
	pthread_t th[8];
	void *got[8] = {NULL};
	int started = 0;
	for (int i = 0; i < 8; i++)
		if (pthread_create(&th[i], NULL, get_9x9, NULL) == 0)
			started++;
	bool same = started == 8;
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], &got[i]);
		same &= got[i] == got[0];
	}
	ok(same, "threads that ask for a size at once get one table");
	ok(geometry_get(3) == got[0], "and every later call the same");

	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX; box++) {
		const char *why = check(geometry_get(box), box);
		ok(!why, "%dx%d: units, their cells' places, peers", box * box, box * box);
		if (why)
			printf("#   wrong: %s\n", why);
	}

	/* the order of the peers, which the workers' search orders follow */
	const struct geometry *g = geometry_get(3);
	static const uint16_t first[] = {1, 9, 2, 18, 3, 27, 4, 36, 5, 45, 6, 54, 7, 63, 8, 72, 10, 11, 19, 20};
	ok(g->npeers == 20 && memcmp(geometry_peers(g, 0), first, sizeof first) == 0,
	   "9x9 cell 0's peers: the row's and the column's by turns, then the rest of the box");
	ok(geometry_unit(g, 2 * 9 + 4)[0] == 30 && geometry_unit(g, 2 * 9 + 4)[8] == 50,
	   "9x9 box 5 runs from cell 30 to cell 50");
	return tap_done();
}
