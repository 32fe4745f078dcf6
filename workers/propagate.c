/* Constraint propagation, rules 1 and 2 of ant-colony-bve.txt section 3.1.
 *
 * Rule 2 is kept incrementally while the board is not tolerant (the
 * search's case): each unit counts the places left for each value, a count
 * that drops to 1 queues the (unit, value) pair, and 0 is a contradiction.
 * So a removal costs three decrements instead of a sweep over every unit
 * after each round, which was nine tenths of the time on 25x25 grids. The
 * fixpoint of the two rules does not depend on the order they fire in, so
 * the search sees the same boards as with sweeps. A tolerant board (an
 * ant's, which goes on past contradictions, where order does matter) keeps
 * the sweeps and their order. */
#include "config.h"

#include "propagate.h"

#include <stdlib.h>
#include <string.h>

/* Peers and units of each box size, built on first use. Workers search on
 * one thread, so no lock is needed. */
struct geometry {
	int npeers;
	uint16_t *peers;      /* cells * npeers */
	uint16_t *units;      /* 3N * N */
	uint16_t *cell_units; /* cells * 3: the row, column and box of each cell */
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
	g->cell_units = malloc(sizeof *g->cell_units * 3 * (size_t)cells);
	if (!g->peers || !g->units || !g->cell_units)
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
		g->cell_units[3 * cell] = (uint16_t)r;
		g->cell_units[3 * cell + 1] = (uint16_t)(side + c);
		g->cell_units[3 * cell + 2] = (uint16_t)(2 * side + (r / box) * box + c / box);
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
	b->places = malloc(3 * (size_t)b->cells);
	b->unit_values = malloc(sizeof *b->unit_values * 3 * (size_t)b->side);
	b->lone = malloc(sizeof *b->lone * 3 * (size_t)b->cells);
	if (!b->cand || !b->value || !b->queue || !b->places || !b->unit_values || !b->lone) {
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
	free(b->places);
	free(b->unit_values);
	free(b->lone);
	b->cand = NULL;
	b->value = NULL;
	b->queue = NULL;
	b->places = NULL;
	b->unit_values = NULL;
	b->lone = NULL;
}

void cp_board_copy(struct cp_board *dst, const struct cp_board *src)
{
	dst->fixed = src->fixed;
	dst->failed = src->failed;
	dst->tolerant = src->tolerant;
	dst->nqueue = 0;
	dst->nlone = 0;
	memcpy(dst->cand, src->cand, sizeof *src->cand * (size_t)src->cells);
	memcpy(dst->value, src->value, (size_t)src->cells);
	if (!src->tolerant) {
		memcpy(dst->places, src->places, 3 * (size_t)src->cells);
		memcpy(dst->unit_values, src->unit_values,
		       sizeof *src->unit_values * 3 * (size_t)src->side);
	}
}

/* Rebuilds rule 2's counts from the value sets (they are not kept while
 * tolerant), queueing every unit and value with one place or none. */
static void recount(struct cp_board *b, const struct geometry *geo)
{
	const int side = b->side;
	memset(b->places, 0, 3 * (size_t)b->cells);
	memset(b->unit_values, 0, sizeof *b->unit_values * 3 * (size_t)side);
	for (int cell = 0; cell < b->cells; cell++) {
		const uint16_t *u = geo->cell_units + 3 * cell;
		for (int k = 0; k < 3; k++) {
			for (uint64_t set = b->cand[cell]; set; set &= set - 1)
				b->places[u[k] * side + __builtin_ctzll(set)]++;
			if (b->value[cell])
				b->unit_values[u[k]] |= 1ULL << (b->value[cell] - 1);
		}
	}
	b->nlone = 0;
	for (int i = 0; i < 3 * b->cells; i++) {
		if (b->places[i] == 0)
			b->failed = true;
		else if (b->places[i] == 1)
			b->lone[b->nlone++] = i;
	}
}

void cp_set_tolerant(struct cp_board *b, bool tolerant)
{
	if (b->tolerant && !tolerant)
		recount(b, &geometries[b->box]);
	b->tolerant = tolerant;
}

static void fail(struct cp_board *b)
{
	b->failed = true;
}

/* Rule 2's counts: value v (0-based) has lost its place in cell. */
static inline void lose_place(struct cp_board *b, const struct geometry *geo, int cell, int v)
{
	const uint16_t *u = geo->cell_units + 3 * cell;
	for (int k = 0; k < 3; k++) {
		int i = u[k] * b->side + v;
		int left = --b->places[i];
		if (left == 1)
			b->lone[b->nlone++] = i; /* once per board: counts only fall */
		else if (left == 0)
			fail(b);
	}
}

/* Fixes a cell; its consequences wait in the queue. */
static void fix(struct cp_board *b, int cell, int v)
{
	if (b->value[cell]) {
		if (b->value[cell] != v)
			fail(b);
		return;
	}
	uint64_t bit = 1ULL << (v - 1);
	if (!b->tolerant) {
		if (!(b->cand[cell] & bit)) {
			fail(b); /* not a value it may take: the counts stay right */
			return;
		}
		const struct geometry *geo = &geometries[b->box];
		for (uint64_t rest = b->cand[cell] & ~bit; rest; rest &= rest - 1)
			lose_place(b, geo, cell, __builtin_ctzll(rest));
		const uint16_t *u = geo->cell_units + 3 * cell;
		for (int k = 0; k < 3; k++)
			b->unit_values[u[k]] |= bit;
	}
	b->value[cell] = (uint8_t)v;
	b->cand[cell] = bit;
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
			if (!b->tolerant)
				lose_place(b, geo, q, b->value[cell] - 1);
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

/* Rule 2 from the counts: fixes the value of the first queued (unit,
 * value) pair with one place left, unless the unit already holds it.
 * Returns true when it fixed something. */
static bool fix_lone_place(struct cp_board *b, const struct geometry *geo)
{
	const int side = b->side;
	while (b->nlone && !b->failed) {
		int i = b->lone[--b->nlone];
		int u = i / side, v = i % side;
		uint64_t bit = 1ULL << v;
		if (b->places[i] != 1 || (b->unit_values[u] & bit))
			continue; /* none left (failed already) or fixed there */
		const uint16_t *cells = geo->units + u * side;
		for (int k = 0; k < side; k++) {
			if (b->cand[cells[k]] & bit) {
				fix(b, cells[k], v + 1);
				return true;
			}
		}
	}
	return false;
}

static int propagate(struct cp_board *b)
{
	const struct geometry *geo = &geometries[b->box];
	if (!b->tolerant) {
		do {
			eliminate(b, geo);
		} while (!b->failed && fix_lone_place(b, geo));
		return b->failed ? -1 : 0;
	}
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
	b->nlone = 0;
	for (int i = 0; i < b->cells; i++) {
		b->cand[i] = b->all;
		b->value[i] = 0;
	}
	if (!b->tolerant) {
		memset(b->places, b->side, 3 * (size_t)b->cells);
		memset(b->unit_values, 0, sizeof *b->unit_values * 3 * (size_t)b->side);
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
