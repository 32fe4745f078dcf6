/* Unit tests of workers/propagate.c as sudoku-acs uses it: the constraint
 * propagation of ant-colony-bve.txt 3.1 checked against a slow, plain
 * fixpoint of its two rules, and its tolerant mode (the ants') checked for
 * what the ants rely on: fixed cells that never clash, and the fixpoint
 * reached anyway. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "lib/grid.h"
#include "tap.h"
#include "workers/propagate.h"
#include "workers/rng.h"

/* --- the reference: rules 1 and 2 applied until nothing changes --- */

static uint64_t bit_of(int v)
{
	return 1ULL << (v - 1);
}

static bool single(uint64_t s)
{
	return s && !(s & (s - 1));
}

/* Reduces the value sets set[] to the fixpoint; returns false on a
 * contradiction (an empty value set, or a value with no place in a unit). */
static bool reference_fixpoint(int box, uint64_t *set)
{
	const int side = box * box, cells = side * side;
	const struct geometry *geo = geometry_get(box);
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < cells; i++) {
			if (!single(set[i]))
				continue;
			const uint16_t *p = geometry_peers(geo, i);
			for (int k = 0; k < geo->npeers; k++) {
				if (set[p[k]] & set[i]) {
					set[p[k]] &= ~set[i];
					changed = true;
				}
			}
		}
		for (int u = 0; u < 3 * side; u++) {
			const uint16_t *unit = geometry_unit(geo, u);
			for (int v = 1; v <= side; v++) {
				int places = 0, where = -1;
				for (int k = 0; k < side; k++)
					if (set[unit[k]] & bit_of(v)) {
						places++;
						where = unit[k];
					}
				if (places == 0)
					return false;
				if (places == 1 && set[where] != bit_of(v)) {
					set[where] = bit_of(v);
					changed = true;
				}
			}
		}
	}
	for (int i = 0; i < cells; i++)
		if (!set[i])
			return false;
	return true;
}

/* --- puzzles: a shuffled pattern solution with cells blanked --- */

static void random_solution(struct grid *g, int box, struct rng *r)
{
	const int side = box * box;
	int relabel[GRID_MAX_SIDE], row[GRID_MAX_SIDE], col[GRID_MAX_SIDE];
	grid_init(g, box);
	for (int i = 0; i < side; i++)
		relabel[i] = row[i] = col[i] = i;
	for (int i = side - 1; i > 0; i--) {
		int j = (int)rng_below(r, (uint32_t)i + 1), t = relabel[i];
		relabel[i] = relabel[j];
		relabel[j] = t;
	}
	/* rows within a band and columns within a stack keep the rules */
	for (int band = 0; band < box; band++)
		for (int i = box - 1; i > 0; i--) {
			int j = (int)rng_below(r, (uint32_t)i + 1), t;
			t = row[band * box + i];
			row[band * box + i] = row[band * box + j];
			row[band * box + j] = t;
			t = col[band * box + i];
			col[band * box + i] = col[band * box + j];
			col[band * box + j] = t;
		}
	for (int rr = 0; rr < side; rr++)
		for (int cc = 0; cc < side; cc++) {
			int a = row[rr], b = col[cc];
			int v = ((a % box) * box + a / box + b) % side;
			g->cell[rr * side + cc] = (uint8_t)(relabel[v] + 1);
		}
}

static void blank(struct grid *puzzle, const struct grid *solution, double keep, struct rng *r)
{
	grid_copy(puzzle, solution);
	for (int i = 0; i < puzzle->cells; i++)
		if (rng_double(r) >= keep)
			puzzle->cell[i] = 0;
}

/* --- checks --- */

/* The board's value sets are the reference fixpoint of the same givens and
 * choices; returns true when they agree (both may find a contradiction). */
static bool agrees(const struct cp_board *b, bool failed, const struct grid *puzzle,
		   const int *cell, const int *val, int nchoices)
{
	uint64_t set[GRID_MAX_CELLS];
	const uint64_t all = b->all;
	for (int i = 0; i < b->cells; i++)
		set[i] = puzzle->cell[i] ? bit_of(puzzle->cell[i]) : all;
	for (int k = 0; k < nchoices; k++)
		set[cell[k]] = bit_of(val[k]);
	bool ok_ref = reference_fixpoint(b->box, set);
	if (failed || !ok_ref)
		return failed == !ok_ref;
	for (int i = 0; i < b->cells; i++) {
		if (b->cand[i] != set[i])
			return false;
		if ((b->value[i] != 0) != single(set[i]))
			return false;
		if (b->value[i] && bit_of(b->value[i]) != set[i])
			return false;
	}
	return true;
}

/* What the ants rely on, in tolerant mode: the fixed cells are a clash-free
 * partial solution, the places are right, and nothing is left to draw. */
static const char *tolerant_invariants(const struct cp_board *b)
{
	const int side = b->side;
	int fixed = 0;
	for (int i = 0; i < b->cells; i++) {
		if (b->value[i]) {
			fixed++;
			if (b->cand[i] != bit_of(b->value[i]))
				return "a fixed cell's value set is not its value";
			const uint16_t *p = geometry_peers(b->geo, i);
			for (int k = 0; k < b->geo->npeers; k++)
				if (b->cand[p[k]] & b->cand[i])
					return "a peer still holds a fixed value (or the same value is fixed twice)";
		} else if (single(b->cand[i])) {
			return "an open cell with one value left";
		}
	}
	if (fixed != b->fixed)
		return "the fixed count is wrong";
	for (int u = 0; u < 3 * side; u++) {
		const uint16_t *unit = geometry_unit(b->geo, u);
		for (int v = 1; v <= side; v++) {
			int places = 0, where = -1;
			uint64_t mask = 0;
			for (int k = 0; k < side; k++)
				if (b->cand[unit[k]] & bit_of(v)) {
					places++;
					where = unit[k];
					mask |= 1ULL << k;
				}
			if (mask != b->where[u * side + v - 1])
				return "a unit's places of a value are wrong";
			if (places == 1 && !b->value[where])
				return "a value with one place left is not fixed there";
		}
	}
	return NULL;
}

/* One ant's walk: random choices at open cells until none is left. Returns
 * the number of choices. */
static int walk(struct cp_board *b, struct rng *r, int *cell, int *val, bool *all_ok,
		const char **why)
{
	int n = 0;
	*all_ok = true;
	*why = NULL;
	for (int start = (int)rng_below(r, (uint32_t)b->cells), k = 0; k < b->cells; k++) {
		int i = (start + k) % b->cells;
		if (b->value[i] || !b->cand[i])
			continue;
		uint64_t c = b->cand[i];
		int pick = (int)rng_below(r, (uint32_t)cp_popcount(c));
		while (pick--)
			c &= c - 1;
		cell[n] = i;
		val[n] = cp_first_value(c);
		n++;
		if (cp_assign(b, i, cp_first_value(c)) < 0)
			*all_ok = false;
		if (!*why && b->box <= 3)
			*why = tolerant_invariants(b);
	}
	if (!*why)
		*why = tolerant_invariants(b);
	return n;
}

/* Rounds per box size: the reference is slow on large grids. */
static const int rounds[GRID_MAX_BOX + 1] = {0, 0, 200, 100, 24, 6};

int main(void)
{
	union grid_room solution_room;
	union grid_room puzzle_room;
	union grid_room out_room;
	struct grid *solution = &solution_room.grid, *puzzle = &puzzle_room.grid, *out = &out_room.grid;
	static int cell[GRID_MAX_CELLS], val[GRID_MAX_CELLS];
	struct rng r;
	rng_seed(&r, 20240501);

	/* strict mode: load and choices agree with the reference fixpoint */
	for (int box = 2; box <= 5; box++) {
		struct cp_board b, c;
		ok(cp_board_alloc(&b, box) == 0 && cp_board_alloc(&c, box) == 0, "alloc box %d", box);
		int loads_ok = 0, loads = 0, steps_ok = 0, steps = 0, solved = 0;
		for (int round = 0; round < rounds[box]; round++) {
			random_solution(solution, box, &r);
			blank(puzzle, solution, 0.15 + 0.6 * rng_double(&r), &r);
			int failed = cp_board_load(&b, puzzle) < 0;
			loads++;
			loads_ok += agrees(&b, failed, puzzle, cell, val, 0);
			/* a search path: random choices, each on a fresh copy */
			int n = 0;
			while (!failed && b.fixed < b.cells) {
				int i = (int)rng_below(&r, (uint32_t)b.cells);
				if (b.value[i])
					continue;
				uint64_t s = b.cand[i];
				int pick = (int)rng_below(&r, (uint32_t)cp_popcount(s));
				while (pick--)
					s &= s - 1;
				cp_board_copy(&c, &b);
				cell[n] = i;
				val[n] = cp_first_value(s);
				failed = cp_assign(&c, i, val[n]) < 0;
				n++;
				steps++;
				steps_ok += agrees(&c, failed, puzzle, cell, val, n);
				cp_board_copy(&b, &c);
			}
			if (!failed) {
				cp_board_to_grid(&b, out);
				solved += grid_verify(puzzle, out, NULL, 0);
			}
		}
		ok(loads_ok == loads, "box %d: %d/%d initial passes equal the reference fixpoint", box,
		   loads_ok, loads);
		ok(steps_ok == steps, "box %d: %d/%d choices equal the reference fixpoint", box, steps_ok,
		   steps);
		ok(solved > 0, "box %d: %d search paths ended in verified solutions", box, solved);
		cp_board_free(&b);
		cp_board_free(&c);
	}

	/* a clash among the givens is a contradiction */
	{
		struct cp_board b;
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		grid_init(g, 3);
		g->cell[0] = g->cell[5] = 4;
		ok(cp_board_alloc(&b, 3) == 0 && cp_board_load(&b, g) < 0 && b.failed,
		   "the same given twice in a row fails the initial pass");
		cp_board_free(&b);
	}

	/* tolerant mode: ants' walks keep a clash-free partial solution */
	for (int box = 2; box <= 5; box++) {
		struct cp_board b, ant;
		cp_board_alloc(&b, box);
		cp_board_alloc(&ant, box);
		int walks = 0, failed_walks = 0, full = 0, full_ok = 0;
		const char *bad = NULL;
		for (int round = 0; round < rounds[box] && !bad; round++) {
			random_solution(solution, box, &r);
			blank(puzzle, solution, 0.2 + 0.4 * rng_double(&r), &r);
			if (cp_board_load(&b, puzzle) < 0)
				continue;
			for (int w = 0; w < 4 && !bad; w++) {
				cp_board_copy(&ant, &b);
				cp_set_tolerant(&ant, true);
				bool all_ok;
				int n = walk(&ant, &r, cell, val, &all_ok, &bad);
				walks++;
				if (!all_ok) {
					failed_walks++;
					/* the choices still stand */
					for (int k = 0; k < n; k++)
						if (ant.value[cell[k]] != val[k])
							bad = "a choice was undone";
				} else if (!agrees(&ant, false, puzzle, cell, val, n)) {
					bad = "a walk without contradiction differs from the reference";
				}
				if (ant.fixed == ant.cells) {
					full++;
					cp_board_to_grid(&ant, out);
					full_ok += grid_verify(puzzle, out, NULL, 0);
				}
			}
		}
		ok(!bad, "box %d: %d tolerant walks keep the invariants%s%s", box, walks,
		   bad ? ": " : "", bad ? bad : "");
		ok(failed_walks > 0, "box %d: %d of the walks met contradictions and went on", box,
		   failed_walks);
		ok(full == full_ok, "box %d: %d walks fixed every cell, %d verified", box, full, full_ok);
		cp_board_free(&b);
		cp_board_free(&ant);
	}
	return tap_done();
}
