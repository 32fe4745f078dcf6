/* sudoku-cp's path for 9x9: the same method as the general one (rules 1 and
 * 2 of ant-colony-bve.txt section 3.1 to a fixpoint, then minimum remaining
 * values depth-first search, values in increasing order), on a
 * representation made for 81 cells.
 *
 * Each digit keeps the cells where it is placed or may still go as three
 * 27-bit band words (rows 0-2, 3-5, 6-8; bit 9 * row-in-band + column),
 * held in the lanes of one 4 x 32-bit vector, so one vector operation works
 * on the whole grid. The order of the bits is reading order, so "the first
 * cell" of a set is the lowest bit of its first non-empty band.
 *
 * Rule 1 for a placement is a few masks (the value leaves its peers, the
 * cell's other values leave it). The consequences are found bit-parallel,
 * with no loop over units or cells:
 *   - rule 2 keeps, for each digit whose cells changed since it last
 *     looked, "at least one / at least two" counts per unit: rows and
 *     boxes from "triads" (three cells of a row inside one box), columns
 *     by folding the rows of each band, then the bands. A unit that counts
 *     one cell for a digit not yet placed there fixes the digit in that
 *     cell; a unit that counts none is a contradiction. A digit's placed
 *     cells stay in its set, so a unit where it is placed counts one;
 *   - rule 1's consequence in a cell (one value left: it is fixed; none: a
 *     contradiction) comes out of the same two counts over the nine digits.
 * The singles a look finds are fixed together, as a set: the union of
 * their peers loses the digit (two in one unit are a contradiction, as
 * fixing them one by one would also find).
 *
 * The fixpoint of the two rules is the same whatever order they fire in,
 * so this path deduces exactly what propagate.c deduces, and its search
 * visits the same nodes. */
#include "config.h"

#include "cp9.h"

#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

/* Lanes 0-2: the bands; lane 3 stays 0. A cell's "slot" is its bit in the
 * vector seen as 128 bits: 32 * band + 9 * row-in-band + column. */
typedef uint32_t bands __attribute__((vector_size(16)));

#define BAND_ALL 0x7FFFFFFu /* the 27 cells of a band */
#define ROW_FLAGS 0x40201u  /* the first cell of each row of a band */
#define BOX_FLAGS 0x49u     /* the first cell of each box's part of row 0 */
#define COLUMN_ALL 0x1FFu

static const bands all_cells = {BAND_ALL, BAND_ALL, BAND_ALL, 0};
static const bands row_flags = {ROW_FLAGS, ROW_FLAGS, ROW_FLAGS, 0};
static const bands box_flags = {BOX_FLAGS, BOX_FLAGS, BOX_FLAGS, 0};
static const bands col_flags = {COLUMN_ALL, COLUMN_ALL, COLUMN_ALL, 0};

static bands slot_bits[96]; /* the cell itself */
static bands peer_bits[96]; /* its 20 peers */
static bool tables_ready;

static inline int slot_of(int cell)
{
	return cell / 27 * 32 + cell % 27;
}

static inline int cell_of(int slot)
{
	return (slot >> 5) * 27 + (slot & 31);
}

static void build_tables(void)
{
	for (int cell = 0; cell < 81; cell++) {
		int r = cell / 9, c = cell % 9, slot = slot_of(cell);
		slot_bits[slot][cell / 27] = 1u << (cell % 27);
		for (int q = 0; q < 81; q++) {
			int qr = q / 9, qc = q % 9;
			bool same_box = qr / 3 == r / 3 && qc / 3 == c / 3;
			if (q != cell && (qr == r || qc == c || same_box))
				peer_bits[slot][q / 27] |= 1u << (q % 27);
		}
	}
	tables_ready = true;
}

static inline bool any(bands v)
{
#if defined(__SSE4_1__)
	return !_mm_testz_si128((__m128i)v, (__m128i)v);
#elif defined(__SSE2__)
	return _mm_movemask_epi8(_mm_cmpeq_epi32((__m128i)v, _mm_setzero_si128())) != 0xFFFF;
#else
	return (v[0] | v[1] | v[2] | v[3]) != 0;
#endif
}

/* Half k of a set as 64 bits: slots 0-63, then 64-127. */
static inline uint64_t half(bands v, int k)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	typedef uint64_t halves __attribute__((vector_size(16)));
	return ((halves)v)[k]; /* the same bits, no shuffling */
#else
	return k ? v[2] : v[0] | (uint64_t)v[1] << 32;
#endif
}

/* The first slot of a non-empty set: the first cell in reading order. */
static inline int first_slot(bands v)
{
	uint64_t low = half(v, 0);
	return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll(half(v, 1));
}

struct board {
	bands cand[9]; /* cand[d]: cells holding digit d+1 or where it may still go */
	bands open;    /* cells without a value */
};

struct search {
	struct worker_ctx *ctx;
	long limit, found;
	uint64_t nodes;
	int depth;
	bool stopped;
	struct board first; /* the first solution */
};

/* Fixes digit d in an open cell where it is still possible: the cell's
 * other values go, and rule 1 takes d from the peers. */
static inline void place(struct board *b, int d, int slot)
{
	bands here = slot_bits[slot];
#pragma GCC unroll 9
	for (int e = 0; e < 9; e++)
		b->cand[e] &= ~here;
	b->cand[d] = (b->cand[d] & ~peer_bits[slot]) | here;
	b->open &= ~here;
}

/* The sum of the three bands in every band lane, as the counts "at least
 * one" and "at least two" (one, two) of cells that are themselves counted
 * as (one, two). Lane 3 stays 0. */
static inline void add_bands(bands *one, bands *two)
{
	bands o1 = __builtin_shufflevector(*one, *one, 1, 2, 0, 3);
	bands o2 = __builtin_shufflevector(*one, *one, 2, 0, 1, 3);
	bands t1 = __builtin_shufflevector(*two, *two, 1, 2, 0, 3);
	bands t2 = __builtin_shufflevector(*two, *two, 2, 0, 1, 3);
	*two |= t1 | t2 | (*one & o1) | (o2 & (*one | o1));
	*one |= o1 | o2;
}

/* Rule 2 for one digit's cells w: the open cells that are the only place
 * left for the digit in one of their units. Returns -1 when some unit has
 * no place at all for it. */
static inline int unit_singles(bands w, bands open, bands *singles)
{
	/* triads: at least one and at least two cells, flag on the triad's
	 * first cell */
	bands w1 = w >> 1, w2 = w >> 2;
	bands one3 = w | w1 | w2;
	bands two3 = (w & w1) | (w2 & (w | w1));
	/* rows: the three triads of a row */
	bands a = one3 >> 3, b = one3 >> 6;
	bands one_row = one3 | a | b;
	bands two_row = two3 | (two3 >> 3) | (two3 >> 6) | (one3 & a) | (b & (one3 | a));
	/* boxes: the same triad of the band's three rows */
	bands c = one3 >> 9, d = one3 >> 18;
	bands one_box = one3 | c | d;
	bands two_box = two3 | (two3 >> 9) | (two3 >> 18) | (one3 & c) | (d & (one3 | c));
	/* columns: the three rows of a band, then the three bands */
	bands w9 = w >> 9, w18 = w >> 18;
	bands one_col = w | w9 | w18;
	bands two_col = (w & w9) | (w18 & (w | w9));
	add_bands(&one_col, &two_col);
	if (any((~one_row & row_flags) | (~one_box & box_flags) | (~one_col & col_flags)))
		return -1;
	bands row_single = one_row & ~two_row & row_flags;
	bands box_single = one_box & ~two_box & box_flags;
	bands col_single = one_col & ~two_col & col_flags;
	/* spread each flag over its unit's cells */
	bands rows = (row_single << 9) - row_single;
	bands triads = (box_single << 3) - box_single;
	bands boxes = triads | (triads << 9) | (triads << 18);
	bands cols = col_single | (col_single << 9) | (col_single << 18);
	*singles = w & open & (rows | boxes | cols);
	return 0;
}

/* The union of the peers of a set of cells. */
static inline bands peers_of(bands cells)
{
	bands peers = {0};
	for (uint64_t x = half(cells, 0); x; x &= x - 1)
		peers |= peer_bits[__builtin_ctzll(x)];
	for (uint64_t x = half(cells, 1); x; x &= x - 1)
		peers |= peer_bits[64 + __builtin_ctzll(x)];
	return peers;
}

/* Fixes digit d in all of `cells` (open cells that allow it) at once: the
 * cells' other values go, and rule 1 takes d from their peers. Returns -1
 * when two of them share a unit, which fixing them one by one would also
 * have found (the second would lose its last place in some unit). */
static inline int place_set(struct board *b, int d, bands cells)
{
	bands peers = peers_of(cells);
	if (any(cells & peers))
		return -1;
#pragma GCC unroll 9
	for (int e = 0; e < 9; e++)
		b->cand[e] &= ~cells;
	b->cand[d] = (b->cand[d] & ~peers) | cells;
	b->open &= ~cells;
	return 0;
}

/* The digits whose cells differ from `seen`, as a bit mask. */
static inline unsigned changed_digits(const struct board *b, const bands seen[9])
{
	unsigned changed = 0;
	for (int d = 0; d < 9; d++)
		changed |= (unsigned)any(b->cand[d] ^ seen[d]) << d;
	return changed;
}

/* Rules 1 and 2 to the fixpoint. `seen` holds each digit's cells as rule 2
 * last looked at them (a lane 3 of ~0 for "never"): only a digit whose
 * cells changed since can have a new single or an empty unit. Returns -1
 * on a contradiction: an open cell with no value left, or a digit with no
 * place left in a unit. */
static int propagate(struct board *b, const bands seen_before[9])
{
	bands seen[9];
	memcpy(seen, seen_before, sizeof seen);
	for (;;) {
		for (unsigned changed; (changed = changed_digits(b, seen)) != 0;) {
			do {
				int d = __builtin_ctz(changed);
				changed &= changed - 1;
				seen[d] = b->cand[d];
				bands singles;
				if (unit_singles(b->cand[d], b->open, &singles) < 0)
					return -1;
				if (any(singles) && place_set(b, d, singles) < 0)
					return -1;
			} while (changed);
		}
		/* rule 1's fixed values: open cells with one value left */
		bands one = {0}, two = {0};
		for (int d = 0; d < 9; d++) {
			two |= one & b->cand[d];
			one |= b->cand[d];
		}
		if (any(b->open & ~one))
			return -1;
		bands single = b->open & ~two;
		if (!any(single))
			return 0;
		/* each such cell's digit, bit-sliced, and the peers of the cells
		 * of each digit: a cell with one value has no other to lose, so
		 * fixing them all is taking each digit from those peers */
		bands bit0 = b->cand[1] | b->cand[3] | b->cand[5] | b->cand[7];
		bands bit1 = b->cand[2] | b->cand[3] | b->cand[6] | b->cand[7];
		bands bit2 = b->cand[4] | b->cand[5] | b->cand[6] | b->cand[7];
		bands bit3 = b->cand[8];
		bands peers[9] = {{0}};
		for (int h = 0; h < 2; h++) {
			uint64_t b0 = half(bit0, h), b1 = half(bit1, h), b2 = half(bit2, h),
				 b3 = half(bit3, h);
			for (uint64_t x = half(single, h); x; x &= x - 1) {
				int k = __builtin_ctzll(x);
				int d = (int)((b0 >> k & 1) | (b1 >> k & 1) << 1 | (b2 >> k & 1) << 2 |
					      (b3 >> k & 1) << 3);
				peers[d] |= peer_bits[64 * h + k];
			}
		}
		/* two such cells with the same value in one unit: a contradiction */
		bands clash = {0};
		for (int d = 0; d < 9; d++)
			clash |= b->cand[d] & single & peers[d];
		if (any(clash))
			return -1;
		for (int d = 0; d < 9; d++)
			b->cand[d] &= ~peers[d];
		b->open &= ~single;
	}
}

/* The open cell with the fewest values left (the first such cell), as a
 * slot. */
static int choose_slot(const struct board *b)
{
	bands c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0};
	for (int d = 0; d < 9; d++) {
		bands m = b->cand[d];
		c4 |= c3 & m;
		c3 |= c2 & m;
		c2 |= c1 & m;
		c1 |= m;
	}
	bands x = b->open & ~c3;
	if (any(x))
		return first_slot(x);
	x = b->open & ~c4;
	if (any(x))
		return first_slot(x);
	int best = -1, best_n = 10;
	for (int h = 0; h < 2; h++) {
		for (uint64_t o = half(b->open, h); o; o &= o - 1) {
			int slot = 64 * h + __builtin_ctzll(o), n = 0;
			for (int d = 0; d < 9; d++)
				n += any(b->cand[d] & slot_bits[slot]);
			if (n < best_n) {
				best_n = n;
				best = slot;
			}
		}
	}
	return best;
}

static int open_cells(const struct board *b)
{
	return __builtin_popcount(b->open[0]) + __builtin_popcount(b->open[1]) +
	       __builtin_popcount(b->open[2]);
}

static void search(struct search *se, const struct board *b)
{
	bool solved = !any(b->open);
	if (solved) {
		if (se->found++ == 0)
			se->first = *b;
		if (se->found >= se->limit)
			return;
	}
	/* nodes counted as the general path counts them: every node but the
	 * solution that ends the search */
	if ((++se->nodes & 1023) == 0) {
		if (worker_should_stop(se->ctx)) {
			se->stopped = true;
			return;
		}
		if (worker_progress_wanted(se->ctx))
			worker_progress(se->ctx, "depth=%d filled=%d/81 nodes=%llu", se->depth,
					81 - open_cells(b), (unsigned long long)se->nodes);
	}
	if (solved)
		return;
	int slot = choose_slot(b);
	unsigned values = 0;
	for (int d = 0; d < 9; d++)
		values |= (unsigned)any(b->cand[d] & slot_bits[slot]) << d;
	se->depth++;
	for (; values && se->found < se->limit && !se->stopped; values &= values - 1) {
		struct board next = *b;
		place(&next, __builtin_ctz(values), slot);
		if (propagate(&next, b->cand) == 0)
			search(se, &next);
	}
	se->depth--;
}

enum solve_status cp9_solve(const struct grid *puzzle, struct solve_result *res,
			    struct worker_ctx *ctx)
{
	if (!tables_ready)
		build_tables();
	struct board b;
	for (int d = 0; d < 9; d++)
		b.cand[d] = all_cells;
	b.open = all_cells;
	for (int cell = 0; cell < 81; cell++) {
		int v = puzzle->cell[cell], slot = slot_of(cell);
		if (!v)
			continue;
		if (!any(b.cand[v - 1] & slot_bits[slot]))
			return SOLVE_UNSAT; /* clashing givens */
		place(&b, v - 1, slot);
	}
	/* every digit gets a first look for rule 2, placed or not */
	bands never[9];
	for (int d = 0; d < 9; d++)
		never[d] = (bands){0, 0, 0, ~0u};
	struct search se = {.ctx = ctx, .limit = worker_count_limit(ctx)};
	if (propagate(&b, never) == 0)
		search(&se, &b);
	res->nodes = se.nodes;
	res->count = se.found;
	if (se.stopped)
		return SOLVE_STOPPED; /* in count mode, a second solution may exist */
	if (se.found) {
		grid_init(&res->solution, 3);
		for (int d = 0; d < 9; d++) {
			for (int h = 0; h < 2; h++)
				for (uint64_t x = half(se.first.cand[d], h); x; x &= x - 1)
					res->solution.cell[cell_of(64 * h + __builtin_ctzll(x))] =
						(uint8_t)(d + 1);
		}
		return SOLVE_SOLVED;
	}
	return SOLVE_UNSAT;
}
