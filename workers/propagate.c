/* Constraint propagation, rules 1 and 2 of ant-colony-bve.txt section 3.1. */
#include "config.h"

#include "propagate.h"

#include <stdlib.h>
#include <string.h>

/* The queue holds two kinds of implication: a cell whose value set came down
 * to one value (the item is the cell), and a value whose places in a unit
 * came down to one (the item is cells + u * 64 + v - 1). Each can happen at
 * most once in a board's life, since value sets and places only shrink, so
 * cells + 3N * N items always fit. */
enum { HIDDEN_SHIFT = 6 };

int cp_board_alloc(struct cp_board *b, int box)
{
	memset(b, 0, sizeof *b);
	b->box = box;
	b->side = box * box;
	b->cells = b->side * b->side;
	b->all = b->side == 64 ? ~0ULL : (1ULL << b->side) - 1;
	b->cand = malloc(sizeof *b->cand * (size_t)b->cells);
	b->value = malloc((size_t)b->cells);
	b->where = malloc(sizeof *b->where * 3 * (size_t)b->cells);
	b->queue = malloc(sizeof *b->queue * 4 * (size_t)b->cells);
	if (!b->cand || !b->value || !b->where || !b->queue) {
		cp_board_free(b);
		return -1;
	}
	b->geo = geometry_get(box);
	return 0;
}

void cp_board_free(struct cp_board *b)
{
	free(b->cand);
	free(b->value);
	free(b->where);
	free(b->queue);
	b->cand = NULL;
	b->value = NULL;
	b->where = NULL;
	b->queue = NULL;
}

void cp_board_copy(struct cp_board *dst, const struct cp_board *src)
{
	dst->fixed = src->fixed;
	dst->failed = src->failed;
	dst->tolerant = src->tolerant;
	dst->nqueue = 0;
	memcpy(dst->cand, src->cand, sizeof *src->cand * (size_t)src->cells);
	memcpy(dst->value, src->value, (size_t)src->cells);
	memcpy(dst->where, src->where, sizeof *src->where * 3 * (size_t)src->cells);
}

void cp_set_tolerant(struct cp_board *b, bool tolerant)
{
	b->tolerant = tolerant;
}

/* Value v (bit v1 = v - 1) lost the place pos in unit u: one place left is
 * rule 2's cue, none is a contradiction. */
static inline void lose_place(struct cp_board *b, int u, int pos, int v1)
{
	uint64_t *w = &b->where[u * b->side + v1];
	uint64_t left = *w &= ~(1ULL << pos);
	if (!left)
		b->failed = true;
	else if (!(left & (left - 1)))
		b->queue[b->nqueue++] = b->cells + (u << HIDDEN_SHIFT) + v1;
}

/* Fixes value v in cell and applies rule 1 at once: v leaves the value set
 * of every peer, found through the places of v in the cell's three units.
 * What that implies is queued. */
static void fix(struct cp_board *b, const struct geometry *geo, int cell, int v)
{
	const int side = b->side, v1 = v - 1;
	const uint64_t bit = 1ULL << v1;
	if (b->value[cell] || !(b->cand[cell] & bit)) {
		if (b->value[cell] != v)
			b->failed = true;
		return;
	}
	const uint16_t *cu = geo->cell_unit + 3 * cell;
	const uint8_t *cp = geo->cell_pos + 3 * cell;
	uint64_t others = b->cand[cell] & ~bit;
	b->value[cell] = (uint8_t)v;
	b->cand[cell] = bit;
	b->fixed++;
	while (others) {
		int w1 = __builtin_ctzll(others);
		others &= others - 1;
		lose_place(b, cu[0], cp[0], w1);
		lose_place(b, cu[1], cp[1], w1);
		lose_place(b, cu[2], cp[2], w1);
	}
	for (int t = 0; t < 3; t++) {
		const uint16_t *unit = geo->unit + cu[t] * side;
		uint64_t holders = b->where[cu[t] * side + v1] & ~(1ULL << cp[t]);
		while (holders) {
			int q = unit[__builtin_ctzll(holders)];
			holders &= holders - 1;
			uint64_t c = b->cand[q];
			if (!(c & bit))
				continue; /* met already in another unit of the cell */
			/* no peer holds v fixed: it would have taken v from this cell */
			c &= ~bit;
			b->cand[q] = c;
			const uint16_t *qu = geo->cell_unit + 3 * q;
			const uint8_t *qp = geo->cell_pos + 3 * q;
			for (int k = 0; k < 3; k++)
				if (qu[k] != cu[k]) /* in the cell's own units v is placed */
					lose_place(b, qu[k], qp[k], v1);
			if (!c)
				b->failed = true;
			else if (!(c & (c - 1)))
				b->queue[b->nqueue++] = q;
		}
	}
	for (int t = 0; t < 3; t++)
		b->where[cu[t] * side + v1] = 1ULL << cp[t];
}

/* Draws the queued implications until none is left (the fixpoint), or
 * until the first contradiction outside tolerant mode. */
static int propagate(struct cp_board *b, const struct geometry *geo)
{
	while (b->nqueue && !(b->failed && !b->tolerant)) {
		int item = b->queue[--b->nqueue];
		if (item < b->cells) {
			/* rule 1's recursion: a value set of one value */
			uint64_t c = b->cand[item];
			if (!b->value[item] && c)
				fix(b, geo, item, cp_first_value(c));
			continue;
		}
		/* rule 2: the one cell of unit u that can still take v */
		item -= b->cells;
		int u = item >> HIDDEN_SHIFT, v1 = item & ((1 << HIDDEN_SHIFT) - 1);
		uint64_t w = b->where[u * b->side + v1];
		if (w) {
			int cell = geo->unit[u * b->side + __builtin_ctzll(w)];
			if (!b->value[cell])
				fix(b, geo, cell, v1 + 1);
		}
	}
	b->nqueue = 0;
	return b->failed ? -1 : 0;
}

/* The initial pass, in bulk: rule 1 for all the givens at once through the
 * values each unit holds, the places of every value found, then every
 * implication queued and drawn as in cp_assign. */
int cp_board_load(struct cp_board *b, const struct grid *puzzle)
{
	const struct geometry *geo = b->geo;
	const int side = b->side, nunits = 3 * side;
	uint64_t taken[3 * GRID_MAX_SIDE] = {0};
	b->fixed = 0;
	b->failed = false;
	b->nqueue = 0;
	for (int i = 0; i < b->cells; i++) {
		int v = puzzle->cell[i];
		b->value[i] = (uint8_t)v;
		if (!v)
			continue;
		uint64_t bit = 1ULL << (v - 1);
		const uint16_t *cu = geo->cell_unit + 3 * i;
		for (int t = 0; t < 3; t++) {
			if (taken[cu[t]] & bit)
				b->failed = true; /* the same given twice in a unit */
			taken[cu[t]] |= bit;
		}
		b->fixed++;
	}
	memset(b->where, 0, sizeof *b->where * 3 * (size_t)b->cells);
	for (int i = 0; i < b->cells; i++) {
		const uint16_t *cu = geo->cell_unit + 3 * i;
		const uint8_t *cp = geo->cell_pos + 3 * i;
		uint64_t c = b->value[i] ? 1ULL << (b->value[i] - 1)
					 : b->all & ~(taken[cu[0]] | taken[cu[1]] | taken[cu[2]]);
		b->cand[i] = c;
		if (!b->value[i]) {
			if (!c)
				b->failed = true;
			else if (!(c & (c - 1)))
				b->queue[b->nqueue++] = i;
		}
		for (uint64_t rest = c; rest; rest &= rest - 1) {
			int v1 = __builtin_ctzll(rest);
			for (int t = 0; t < 3; t++)
				b->where[cu[t] * side + v1] |= 1ULL << cp[t];
		}
	}
	for (int u = 0; u < nunits; u++) {
		for (int v1 = 0; v1 < side; v1++) {
			uint64_t w = b->where[u * side + v1];
			if (!w)
				b->failed = true;
			else if (!(w & (w - 1)) && !(taken[u] & (1ULL << v1)))
				b->queue[b->nqueue++] = b->cells + (u << HIDDEN_SHIFT) + v1;
		}
	}
	if (b->failed && !b->tolerant) {
		b->nqueue = 0;
		return -1;
	}
	return propagate(b, geo);
}

int cp_assign(struct cp_board *b, int cell, int v)
{
	fix(b, b->geo, cell, v);
	return propagate(b, b->geo);
}

void cp_board_to_grid(const struct cp_board *b, struct grid *g)
{
	grid_init(g, b->box);
	memcpy(g->cell, b->value, (size_t)b->cells);
}
