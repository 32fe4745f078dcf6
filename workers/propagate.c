/* Constraint propagation, rules 1 and 2 of ant-colony-bve.txt section 3.1. */
#include "config.h"

#include "propagate.h"

#include <stdlib.h>
#include <string.h>

/* Peers and units of each box size, built on first use. Workers search on
 * one thread, so no lock is needed. */
struct geometry {
	int npeers;
	uint16_t *peers; /* cells * npeers */
	uint16_t *units; /* 3N * N */
};
static struct geometry geometries[GRID_MAX_BOX + 1];

static const struct geometry *geometry(int box)
{
	struct geometry *g = &geometries[box];
	if (g->peers)
		return g;
	int side = box * box, cells = side * side;
	g->npeers = 2 * (side - 1) + (box - 1) * (box - 1);
	g->peers = malloc(sizeof *g->peers * (size_t)cells * (size_t)g->npeers);
	g->units = malloc(sizeof *g->units * 3 * (size_t)side * (size_t)side);
	if (!g->peers || !g->units)
		abort(); /* at most 1.5 MB, needed before any search */
	for (int u = 0; u < side; u++) {
		for (int k = 0; k < side; k++) {
			g->units[u * side + k] = (uint16_t)(u * side + k);
			g->units[(side + u) * side + k] = (uint16_t)(k * side + u);
			int r = (u / box) * box + k / box, c = (u % box) * box + k % box;
			g->units[(2 * side + u) * side + k] = (uint16_t)(r * side + c);
		}
	}
	for (int cell = 0; cell < cells; cell++) {
		int r = cell / side, c = cell % side, n = 0;
		uint16_t *p = g->peers + (size_t)cell * (size_t)g->npeers;
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

const uint16_t *cp_peers(int box, int cell, int *n)
{
	const struct geometry *g = geometry(box);
	*n = g->npeers;
	return g->peers + (size_t)cell * (size_t)g->npeers;
}

const uint16_t *cp_unit(int box, int u)
{
	return geometry(box)->units + (size_t)u * (size_t)(box * box);
}

int cp_board_alloc(struct cp_board *b, int box)
{
	memset(b, 0, sizeof *b);
	b->box = box;
	b->side = box * box;
	b->cells = b->side * b->side;
	b->all = b->side == 64 ? ~0ULL : (1ULL << b->side) - 1;
	b->cand = malloc(sizeof *b->cand * (size_t)b->cells);
	b->value = malloc((size_t)b->cells);
	b->queue = malloc(sizeof *b->queue * (size_t)b->cells);
	if (!b->cand || !b->value || !b->queue) {
		cp_board_free(b);
		return -1;
	}
	geometry(box);
	return 0;
}

void cp_board_free(struct cp_board *b)
{
	free(b->cand);
	free(b->value);
	free(b->queue);
	b->cand = NULL;
	b->value = NULL;
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
}

void cp_set_tolerant(struct cp_board *b, bool tolerant)
{
	b->tolerant = tolerant;
}

static void fail(struct cp_board *b)
{
	b->failed = true;
}

/* Fixes a cell; its consequences wait in the queue. */
static void fix(struct cp_board *b, int cell, int v)
{
	if (b->value[cell]) {
		if (b->value[cell] != v)
			fail(b);
		return;
	}
	b->value[cell] = (uint8_t)v;
	b->cand[cell] = 1ULL << (v - 1);
	b->fixed++;
	b->queue[b->nqueue++] = cell;
}

/* Rule 1, for every queued cell. A peer left with one value is fixed
 * (Norvig's naked single, the recursive step of the rule). */
static void eliminate(struct cp_board *b, const struct geometry *geo)
{
	while (b->nqueue && !(b->failed && !b->tolerant)) {
		int cell = b->queue[--b->nqueue];
		uint64_t bit = 1ULL << (b->value[cell] - 1);
		const uint16_t *p = geo->peers + (size_t)cell * (size_t)geo->npeers;
		for (int k = 0; k < geo->npeers; k++) {
			int q = p[k];
			if (!(b->cand[q] & bit))
				continue;
			if (b->value[q]) {
				fail(b); /* the same value fixed twice in a unit */
				continue;
			}
			uint64_t c = b->cand[q] &= ~bit;
			if (!c)
				fail(b);
			else if (!(c & (c - 1)))
				fix(b, q, cp_first_value(c));
		}
	}
}

/* Rule 2 over every unit: a value with one place left is fixed there. A
 * value with no place at all is a contradiction. Returns true when it fixed
 * something. */
static bool hidden_singles(struct cp_board *b, const struct geometry *geo)
{
	bool found = false;
	const int side = b->side;
	for (int u = 0; u < 3 * side; u++) {
		const uint16_t *cells = geo->units + u * side;
		uint64_t once = 0, twice = 0;
		for (int k = 0; k < side; k++) {
			uint64_t c = b->cand[cells[k]];
			twice |= once & c;
			once |= c;
		}
		if (once != b->all)
			fail(b);
		uint64_t single = once & ~twice;
		while (single) {
			uint64_t bit = single & -single;
			single &= single - 1;
			for (int k = 0; k < side; k++) {
				int cell = cells[k];
				if (b->cand[cell] & bit) {
					if (!b->value[cell]) {
						fix(b, cell, cp_first_value(bit));
						found = true;
					}
					break;
				}
			}
		}
		if (b->failed && !b->tolerant)
			return found;
	}
	return found;
}

static int propagate(struct cp_board *b)
{
	const struct geometry *geo = &geometries[b->box];
	do {
		eliminate(b, geo);
		if (b->failed && !b->tolerant)
			return -1;
	} while (hidden_singles(b, geo) && !(b->failed && !b->tolerant));
	return b->failed ? -1 : 0;
}

int cp_board_load(struct cp_board *b, const struct grid *puzzle)
{
	b->fixed = 0;
	b->failed = false;
	b->nqueue = 0;
	for (int i = 0; i < b->cells; i++) {
		b->cand[i] = b->all;
		b->value[i] = 0;
	}
	for (int i = 0; i < b->cells; i++)
		if (puzzle->cell[i])
			fix(b, i, puzzle->cell[i]);
	return propagate(b);
}

int cp_assign(struct cp_board *b, int cell, int v)
{
	if (!(b->cand[cell] & (1ULL << (v - 1)))) {
		fail(b);
		return -1;
	}
	fix(b, cell, v);
	return propagate(b);
}

void cp_board_to_grid(const struct cp_board *b, struct grid *g)
{
	grid_init(g, b->box);
	memcpy(g->cell, b->value, (size_t)b->cells);
}
