/* Units and peers per box size (geometry.h). */
#include "config.h"

#include "geometry.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "common.h"
#include "grid_limits.h"

/* One block per size, published once: a thread that loses the race to
 * build it frees its own copy and takes the winner's. */
static _Atomic(struct geometry *) geometries[GRID_MAX_BOX + 1];

static struct geometry *build(int box)
{
	const int side = box * box, cells = side * side, nunits = 3 * side;
	const int npeers = 2 * (side - 1) + (box - 1) * (box - 1);
	struct geometry *g = xmalloc(sizeof *g);
	uint16_t *unit = xmalloc(sizeof *unit * (size_t)nunits * (size_t)side);
	uint16_t *cell_unit = xmalloc(sizeof *cell_unit * 3 * (size_t)cells);
	uint8_t *cell_pos = xmalloc(3 * (size_t)cells);
	uint8_t *rcb = xmalloc(3 * (size_t)cells);
	uint16_t *peer = xmalloc(sizeof *peer * (size_t)cells * (size_t)npeers);
	*g = (struct geometry){.box = box, .side = side, .cells = cells, .nunits = nunits, .npeers = npeers,
			       .unit = unit, .cell_unit = cell_unit, .cell_pos = cell_pos,
			       .row_of = rcb, .col_of = rcb + cells, .box_of = rcb + 2 * cells, .peer = peer};
	for (int u = 0; u < side; u++) {
		for (int k = 0; k < side; k++) {
			unit[u * side + k] = (uint16_t)(u * side + k);
			unit[(side + u) * side + k] = (uint16_t)(k * side + u);
			int r = (u / box) * box + k / box, c = (u % box) * box + k % box;
			unit[(2 * side + u) * side + k] = (uint16_t)(r * side + c);
		}
	}
	for (int cell = 0; cell < cells; cell++) {
		int r = cell / side, c = cell % side, n = 0;
		cell_unit[3 * cell] = (uint16_t)r;
		cell_unit[3 * cell + 1] = (uint16_t)(side + c);
		cell_unit[3 * cell + 2] = (uint16_t)(2 * side + (r / box) * box + c / box);
		cell_pos[3 * cell] = (uint8_t)c;
		cell_pos[3 * cell + 1] = (uint8_t)r;
		cell_pos[3 * cell + 2] = (uint8_t)((r % box) * box + c % box);
		rcb[cell] = (uint8_t)r;
		rcb[cells + cell] = (uint8_t)c;
		rcb[2 * cells + cell] = (uint8_t)((r / box) * box + c / box);
		uint16_t *p = peer + (size_t)cell * (size_t)npeers;
		for (int k = 0; k < side; k++) {
			if (k != c)
				p[n++] = (uint16_t)(r * side + k);
			if (k != r)
				p[n++] = (uint16_t)(k * side + c);
		}
		int r0 = r - r % box, c0 = c - c % box;
		for (int rr = r0; rr < r0 + box; rr++)
			for (int cc = c0; cc < c0 + box; cc++)
				if (rr != r && cc != c)
					p[n++] = (uint16_t)(rr * side + cc);
	}
	return g;
}

static void destroy(struct geometry *g)
{
	free((void *)g->unit);
	free((void *)g->cell_unit);
	free((void *)g->cell_pos);
	free((void *)g->row_of);
	free((void *)g->peer);
	free(g);
}

const struct geometry *geometry_get(int box)
{
	struct geometry *g = atomic_load_explicit(&geometries[box], memory_order_acquire);
	if (g)
		return g;
	struct geometry *mine = build(box), *none = NULL;
	if (atomic_compare_exchange_strong_explicit(&geometries[box], &none, mine, memory_order_acq_rel,
						    memory_order_acquire))
		return mine;
	destroy(mine);
	return none;
}
