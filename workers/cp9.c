/* sudoku-cp's path for 9x9: the same method as the general one (rules 1 and
 * 2 of ant-colony-bve.txt section 3.1 to a fixpoint, then minimum remaining
 * values depth-first search, values in increasing order), on a
 * representation made for 81 cells. Each digit keeps a 128-bit mask of the
 * cells where it may still go, so rule 1 for one placement is a handful of
 * mask operations, and naked singles, empty cells and the MRV cell come out
 * of bit-sliced counts over the nine masks. */
#include "config.h"

#include "cp9.h"

#include <string.h>

typedef unsigned __int128 u128;

static u128 peer_mask[81]; /* the 20 peers of each cell */
static u128 unit_mask[27]; /* rows, columns, boxes */
static uint32_t cell_units[81]; /* bit u: the cell is in unit u */
static bool tables_ready;

static inline u128 bit(int cell)
{
	return (u128)1 << cell;
}

static inline int lowest(u128 x)
{
	uint64_t lo = (uint64_t)x;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static void build_tables(void)
{
	for (int cell = 0; cell < 81; cell++) {
		int r = cell / 9, c = cell % 9, b = (r / 3) * 3 + c / 3;
		unit_mask[r] |= bit(cell);
		unit_mask[9 + c] |= bit(cell);
		unit_mask[18 + b] |= bit(cell);
	}
	for (int cell = 0; cell < 81; cell++) {
		int r = cell / 9, c = cell % 9, b = (r / 3) * 3 + c / 3;
		peer_mask[cell] = (unit_mask[r] | unit_mask[9 + c] | unit_mask[18 + b]) & ~bit(cell);
		cell_units[cell] = 1u << r | 1u << (9 + c) | 1u << (18 + b);
	}
	tables_ready = true;
}

struct state {
	u128 cand[9];   /* cand[d]: open cells where digit d+1 may go */
	u128 placed[9]; /* placed[d]: cells holding digit d+1 */
	u128 open;      /* cells without a value */
	/* dirty[d]: units where digit d+1 lost candidates since rule 2 last
	 * looked; only there can a new hidden single or a dead end appear */
	uint32_t dirty[9];
};

#define ALL_UNITS ((1u << 27) - 1)

struct search {
	struct worker_ctx *ctx;
	long limit, found;
	uint64_t nodes;
	int depth;
	bool stopped;
	struct state first; /* the first solution */
};

static inline void place(struct state *s, int d, int cell)
{
	u128 b = bit(cell);
	uint32_t units = cell_units[cell];
	s->placed[d] |= b;
	s->open &= ~b;
	for (int e = 0; e < 9; e++) {
		/* only a digit that could go here loses a place in its units */
		if (s->cand[e] & b) {
			s->cand[e] &= ~b;
			s->dirty[e] |= units;
		}
	}
	s->cand[d] &= ~peer_mask[cell];
	/* d is placed in this cell's three units; the rest may have lost a place */
	s->dirty[d] = ALL_UNITS & ~units;
}

/* Rules 1 and 2 to the fixpoint. Returns -1 on a contradiction: an open cell
 * with no value left, or a digit with no place left in a unit. */
static int propagate(struct state *s)
{
	for (;;) {
		u128 c1 = 0, c2 = 0;
		for (int d = 0; d < 9; d++) {
			c2 |= c1 & s->cand[d];
			c1 |= s->cand[d];
		}
		if (s->open & ~c1)
			return -1;
		u128 singles = s->open & ~c2;
		if (singles) {
			for (int d = 0; d < 9; d++) {
				u128 x = s->cand[d] & singles;
				while (x) {
					int cell = lowest(x);
					x &= x - 1;
					/* an earlier single of this round may have taken it */
					if (s->cand[d] & bit(cell))
						place(s, d, cell);
				}
			}
			continue;
		}
		bool found = false;
		for (int d = 0; d < 9; d++) {
			uint32_t dirty = s->dirty[d];
			s->dirty[d] = 0;
			while (dirty) {
				int u = __builtin_ctz(dirty);
				dirty &= dirty - 1;
				u128 x = s->cand[d] & unit_mask[u];
				if (!x) {
					if (!(s->placed[d] & unit_mask[u]))
						return -1;
					continue;
				}
				if (!(x & (x - 1))) {
					place(s, d, lowest(x));
					found = true;
				}
			}
		}
		if (!found)
			return 0;
	}
}

/* The open cell with the fewest values left (the first such cell). */
static int choose_cell(const struct state *s)
{
	u128 c1 = 0, c2 = 0, c3 = 0, c4 = 0;
	for (int d = 0; d < 9; d++) {
		u128 m = s->cand[d];
		c4 |= c3 & m;
		c3 |= c2 & m;
		c2 |= c1 & m;
		c1 |= m;
	}
	u128 x = s->open & ~c3;
	if (x)
		return lowest(x);
	x = s->open & ~c4;
	if (x)
		return lowest(x);
	int best = -1, best_n = 10;
	for (u128 o = s->open; o; o &= o - 1) {
		int cell = lowest(o), n = 0;
		for (int d = 0; d < 9; d++)
			n += (s->cand[d] >> cell) & 1;
		if (n < best_n) {
			best_n = n;
			best = cell;
		}
	}
	return best;
}

static void search(struct search *se, const struct state *s)
{
	if (!s->open) {
		if (se->found++ == 0)
			se->first = *s;
		return;
	}
	if ((++se->nodes & 1023) == 0) {
		if (worker_should_stop(se->ctx)) {
			se->stopped = true;
			return;
		}
		if (worker_progress_wanted(se->ctx))
			worker_progress(se->ctx, "depth=%d filled=%d/81 nodes=%llu", se->depth,
					81 - (int)(__builtin_popcountll((uint64_t)s->open) +
						   __builtin_popcountll((uint64_t)(s->open >> 64))),
					(unsigned long long)se->nodes);
	}
	int cell = choose_cell(s);
	se->depth++;
	for (int d = 0; d < 9 && se->found < se->limit && !se->stopped; d++) {
		if (!(s->cand[d] & bit(cell)))
			continue;
		struct state next = *s;
		place(&next, d, cell);
		if (propagate(&next) == 0)
			search(se, &next);
	}
	se->depth--;
}

enum solve_status cp9_solve(const struct grid *puzzle, struct solve_result *res,
			    struct worker_ctx *ctx)
{
	if (!tables_ready)
		build_tables();
	struct state s;
	u128 all = ((u128)1 << 81) - 1;
	for (int d = 0; d < 9; d++) {
		s.cand[d] = all;
		s.placed[d] = 0;
	}
	s.open = all;
	for (int d = 0; d < 9; d++)
		s.dirty[d] = ALL_UNITS;
	for (int cell = 0; cell < 81; cell++) {
		int v = puzzle->cell[cell];
		if (!v)
			continue;
		if (!(s.cand[v - 1] & bit(cell)))
			return SOLVE_UNSAT; /* clashing givens */
		place(&s, v - 1, cell);
	}
	struct search se = {.ctx = ctx, .limit = worker_count_limit(ctx)};
	if (propagate(&s) == 0)
		search(&se, &s);
	res->nodes = se.nodes;
	res->count = se.found;
	if (se.stopped)
		return SOLVE_STOPPED; /* in count mode, a second solution may exist */
	if (se.found) {
		grid_init(&res->solution, 3);
		for (int d = 0; d < 9; d++)
			for (u128 x = se.first.placed[d]; x; x &= x - 1)
				res->solution.cell[lowest(x)] = (uint8_t)(d + 1);
		return SOLVE_SOLVED;
	}
	return SOLVE_UNSAT;
}
