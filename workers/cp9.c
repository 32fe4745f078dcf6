/* sudoku-cp's path for 9x9: constraint propagation and depth-first
 * search, as on the general path, with more propagation and another
 * branching order, on a representation made for 81 cells.
 *
 * Each digit keeps the cells where it is placed or may still go as three
 * 27-bit band words (rows 0-2, 3-5, 6-8; bit 9 * row-in-band + column),
 * held in the lanes of one 4 x 32-bit vector, so one vector operation works
 * on the whole grid. The order of the bits is reading order, so "the first
 * cell" of a set is the lowest bit of its first non-empty band.
 *
 * Propagation, bit-parallel, with no loop over units or cells:
 *   - rule 1 of ant-colony-bve.txt section 3.1 for a placement is a few
 *     masks (the value leaves its peers, the cell's other values leave it);
 *   - for each digit whose cells changed since it last looked: locked
 *     candidates (a box whose places for the digit lie in one row or column
 *     takes it from the rest of that line; a line whose places lie in one
 *     box takes it from the rest of that box), on "triads" (three cells of
 *     a row inside one box) and on each band's columns, one pass (a second
 *     found little and cost a tenth of the time on hard sets); then
 *     rule 2, from "at least one / at least two" counts per unit: a unit
 *     that counts one cell for a digit not yet placed there fixes the digit
 *     in that cell, one that counts none is a contradiction. A digit's
 *     placed cells stay in its set, so a unit where it is placed counts one;
 *   - rule 1's consequence in a cell (one value left: it is fixed; none: a
 *     contradiction) comes out of the same two counts over the nine digits.
 * The singles a look finds are fixed together, as a set: the union of
 * their peers loses the digit (two in one unit are a contradiction, as
 * fixing them one by one would also find).
 *
 * The search branches on a cell with two values, the one with the most
 * open peers (see choose_slot), tries values in increasing order, and keeps
 * its boards on a stack: no allocation, no recursion, no I/O. Locked
 * candidates and the branching order are not the paper's: this path finds
 * the same solutions and counts as the general one, in fewer nodes. */
#include "config.h"

#include "cp9.h"

#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "lib/geometry.h"

/* Lanes 0-2: the bands; lane 3 stays 0. A cell's "slot" is its bit in the
 * vector seen as 128 bits: 32 * band + 9 * row-in-band + column. */
typedef uint32_t bands __attribute__((vector_size(16)));

/* Everything search() calls is built into it, once per machine kind (see
 * MACHINE_CLONES). */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define BAND_ALL 0x7FFFFFFu /* the 27 cells of a band */
#define ROW_FLAGS 0x40201u  /* the first cell of each row of a band */
#define BOX_FLAGS 0x49u     /* the first cell of each box's part of row 0 */
#define COLUMN_ALL 0x1FFu

static const bands all_cells = {BAND_ALL, BAND_ALL, BAND_ALL, 0};
static const bands row_flags = {ROW_FLAGS, ROW_FLAGS, ROW_FLAGS, 0};
static const bands box_flags = {BOX_FLAGS, BOX_FLAGS, BOX_FLAGS, 0};
static const bands col_flags = {COLUMN_ALL, COLUMN_ALL, COLUMN_ALL, 0};

ALWAYS_INLINE bands box_flags_of(uint32_t x)
{
	return (bands){x, x, x, 0};
}

static bands slot_bits[96]; /* the cell itself */
static bands peer_bits[96]; /* its 20 peers */
static bool tables_ready;

ALWAYS_INLINE int slot_of(int cell)
{
	return cell / 27 * 32 + cell % 27;
}

/* The band bit sets of each cell and of its peers (lib/geometry.h's). */
static void build_tables(void)
{
	const struct geometry *geo = geometry_get(3);
	for (int cell = 0; cell < 81; cell++) {
		int slot = slot_of(cell);
		slot_bits[slot][cell / 27] = 1u << (cell % 27);
		const uint16_t *peer = geometry_peers(geo, cell);
		for (int k = 0; k < geo->npeers; k++)
			peer_bits[slot][peer[k] / 27] |= 1u << (peer[k] % 27);
	}
	tables_ready = true;
}

ALWAYS_INLINE bool any(bands v)
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
ALWAYS_INLINE uint64_t half(bands v, int k)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	typedef uint64_t halves __attribute__((vector_size(16)));
	return ((halves)v)[k]; /* the same bits, no shuffling */
#else
	return k ? v[2] : v[0] | (uint64_t)v[1] << 32;
#endif
}

/* The first slot of a non-empty set: the first cell in reading order. */
ALWAYS_INLINE int first_slot(bands v)
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
	bool stopped;
	struct board first; /* the first solution */
};

/* Fixes digit d in an open cell where it is still possible: the cell's
 * other values go, and rule 1 takes d from the peers. */
ALWAYS_INLINE void place(struct board *b, int d, int slot)
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
ALWAYS_INLINE void add_bands(bands *one, bands *two)
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
ALWAYS_INLINE int unit_singles(bands w, bands open, bands *singles)
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

/* Rotations inside a band: the triad flags of the other rows of each box
 * (by 9 and 18 bits, wrapping), and of the other boxes of each row (by 3
 * and 6 bits inside the row). */
#define TRIAD_FLAGS 0x1249249u /* the first cell of each of a band's 9 triads */
#define BOX0_FLAGS 0x40201u
#define BOX2_FLAGS (BOX0_FLAGS << 6)
#define GROUP_LOW 0x49u /* the first column of each box, in a 9-bit row */

ALWAYS_INLINE bands other_rows(bands t)
{
	bands all = all_cells;
	return ((t << 9 | t >> 18) | (t << 18 | t >> 9)) & all;
}

ALWAYS_INLINE bands other_boxes(bands t)
{
	const bands box0 = box_flags_of(BOX0_FLAGS), box2 = box_flags_of(BOX2_FLAGS);
	const bands box12 = box_flags_of(TRIAD_FLAGS & ~BOX0_FLAGS);
	const bands box01 = box_flags_of(TRIAD_FLAGS & ~BOX2_FLAGS);
	return ((t << 3) & box12) | ((t >> 6) & box0) | ((t << 6) & box2) | ((t >> 3) & box01);
}

/* In each lane's 9-bit column set, the other two columns of each box. */
ALWAYS_INLINE bands other_columns(bands v)
{
	const bands low = box_flags_of(GROUP_LOW), mid = box_flags_of(GROUP_LOW << 1),
		    high = box_flags_of(GROUP_LOW << 2);
	return ((v << 1) & (mid | high)) | ((v >> 2) & low) | ((v << 2) & high) |
	       ((v >> 1) & (low | mid));
}

/* Locked candidates for one digit's cells w: a box whose places for the
 * digit lie in one row (one column) leaves the rest of that row (column)
 * without it, and a row (column) whose places lie in one box leaves the
 * rest of that box without it. Returns the cells that lose the digit. The
 * digit's placed cells are in w, and what they would take is gone already,
 * so they need no special case. */
ALWAYS_INLINE bands locked_out(bands w)
{
	const bands triad_flags = box_flags_of(TRIAD_FLAGS), column_all = col_flags;
	/* rows and boxes, inside each band, on triads */
	bands t = (w | w >> 1 | w >> 2) & triad_flags;
	bands alone_in_box = t & ~other_rows(t);
	bands alone_in_row = t & ~other_boxes(t);
	bands kill = other_boxes(alone_in_box) | other_rows(alone_in_row);
	kill |= kill << 1 | kill << 2;
	/* columns and boxes, across the bands, on each band's columns */
	bands v = (w | w >> 9 | w >> 18) & column_all;
	bands v1 = __builtin_shufflevector(v, v, 1, 2, 0, 3);
	bands v2 = __builtin_shufflevector(v, v, 2, 0, 1, 3);
	bands col_alone_in_box = v & ~other_columns(v);
	bands col_in_one_band = v & ~(v1 | v2);
	bands a1 = __builtin_shufflevector(col_alone_in_box, col_alone_in_box, 1, 2, 0, 3);
	bands a2 = __builtin_shufflevector(col_alone_in_box, col_alone_in_box, 2, 0, 1, 3);
	bands col_kill = a1 | a2 | other_columns(col_in_one_band);
	return kill | col_kill | col_kill << 9 | col_kill << 18;
}

/* The number of cells in a set. */
ALWAYS_INLINE int count_cells(bands v)
{
	return __builtin_popcountll(half(v, 0)) + __builtin_popcountll(half(v, 1));
}

/* The cells of the rows, columns and boxes that hold a set of cells, and
 * whether no two of the cells share one (as many rows, columns and boxes
 * as cells), bit-parallel: looking up each cell's peers was a sixth of the
 * time on hard sets. */
ALWAYS_INLINE bands units_of(bands cells, bool *apart)
{
	const bands triad_flags = box_flags_of(TRIAD_FLAGS);
	bands t = (cells | cells >> 1 | cells >> 2) & triad_flags;
	bands row = (t | t >> 3 | t >> 6) & row_flags;
	bands box = (t | t >> 9 | t >> 18) & box_flags;
	bands col = (cells | cells >> 9 | cells >> 18) & col_flags;
	col |= __builtin_shufflevector(col, col, 1, 2, 0, 3) |
	       __builtin_shufflevector(col, col, 2, 0, 1, 3);
	int n = count_cells(cells);
	*apart = count_cells(row) == n && count_cells(box) == n &&
		 __builtin_popcount(col[0]) == n;
	bands triads = (box << 3) - box;
	return ((row << 9) - row) | triads | triads << 9 | triads << 18 | col | col << 9 |
	       col << 18;
}

/* Fixes digit d in all of `cells` (open cells that allow it) at once: the
 * cells' other values go, and rule 1 takes d from their units. Returns -1
 * when two of them share a unit, which fixing them one by one would also
 * have found (the second would lose its last place in some unit). */
ALWAYS_INLINE int place_set(struct board *b, int d, bands cells)
{
	bool apart;
	bands units = units_of(cells, &apart);
	if (!apart)
		return -1;
#pragma GCC unroll 9
	for (int e = 0; e < 9; e++)
		b->cand[e] &= ~cells;
	b->cand[d] = (b->cand[d] & ~units) | cells;
	b->open &= ~cells;
	return 0;
}

/* The digits whose cells differ from `seen`, as a bit mask. */
ALWAYS_INLINE unsigned changed_digits(const struct board *b, const bands seen[9])
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
ALWAYS_INLINE int propagate(struct board *b, const bands seen_before[9])
{
	bands seen[9];
	memcpy(seen, seen_before, sizeof seen);
	for (;;) {
		for (unsigned changed; (changed = changed_digits(b, seen)) != 0;) {
			do {
				int d = __builtin_ctz(changed);
				changed &= changed - 1;
				bands w = b->cand[d] & ~locked_out(b->cand[d]);
				b->cand[d] = w;
				seen[d] = w;
				bands singles;
				if (unit_singles(w, b->open, &singles) < 0)
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

/* Where to branch: a cell with two values left, the one with the most
 * open peers (the first such in reading order), whose two branches each
 * reach the most cells. Measured against the first cell with two values
 * (the paper's order), it cuts the nodes on forum_hardest_1905_11+ from 69
 * to 42 per puzzle and on magictour_top1465 from 11.7 to 6.9. Without a
 * two-valued cell: the first cell with the fewest values. Returns a slot. */
ALWAYS_INLINE int choose_slot(const struct board *b)
{
	bands c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0};
	for (int d = 0; d < 9; d++) {
		bands m = b->cand[d];
		c4 |= c3 & m;
		c3 |= c2 & m;
		c2 |= c1 & m;
		c1 |= m;
	}
	bands x = b->open & ~c3; /* after propagation, open cells have 2 or more */
	if (any(x)) {
		int best = -1, best_reach = -1;
		for (int h = 0; h < 2; h++) {
			for (uint64_t o = half(x, h); o; o &= o - 1) {
				int slot = 64 * h + __builtin_ctzll(o);
				int reach = count_cells(peer_bits[slot] & b->open);
				if (reach > best_reach) {
					best_reach = reach;
					best = slot;
				}
			}
		}
		return best;
	}
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

/* One level of the search: a board, the cell it branches on and the
 * values still to try there. */
struct frame {
	struct board board;
	int slot;
	unsigned untried;
};

/* A new node: a solution (counted), or where it branches. Returns true
 * when the search ends here: the solution limit or a stop. */
ALWAYS_INLINE bool enter(struct search *se, struct frame *f, int depth)
{
	bool solved = !any(f->board.open);
	if (solved) {
		if (se->found++ == 0)
			se->first = f->board;
		if (se->found >= se->limit)
			return true;
	}
	/* nodes counted as the general path counts them: every node but the
	 * solution that ends the search */
	if ((++se->nodes & 1023) == 0) {
		if (worker_should_stop(se->ctx)) {
			se->stopped = true;
			return true;
		}
		if (worker_progress_wanted(se->ctx))
			worker_progress(se->ctx, "depth=%d filled=%d/81 nodes=%llu", depth,
					81 - open_cells(&f->board), (unsigned long long)se->nodes);
	}
	f->untried = 0;
	if (!solved) {
		f->slot = choose_slot(&f->board);
		for (int d = 0; d < 9; d++)
			f->untried |= (unsigned)any(f->board.cand[d] & slot_bits[f->slot]) << d;
	}
	return false;
}

/* Each digit's given cells, given[v - 1] for value v, read from the
 * puzzle's bytes a band (27 cells) at a time: the four bits of the values
 * as four bit planes, a digit's cells the AND of its bits' planes. No
 * branch on blanks (which mispredict) and no stores to a table indexed by
 * the value (contrib/bench/code-notes.md). Cells beyond the 81 are never
 * read. */
ALWAYS_INLINE void given_cells(const uint8_t *cell, bands given[9])
{
	uint32_t plane[4][3];
	for (int band = 0; band < 3; band++) {
#ifdef __SSE2__
		/* bytes 27 * band + 0..15 and + 11..26: the second load ends at
		 * the band's last cell */
		__m128i lo = _mm_loadu_si128((const __m128i *)(cell + 27 * band));
		__m128i hi = _mm_loadu_si128((const __m128i *)(cell + 27 * band + 11));
		for (int bit = 0; bit < 4; bit++) {
			/* bit `bit` of each byte to its sign bit */
			uint32_t l = (uint32_t)_mm_movemask_epi8(_mm_slli_epi16(lo, 7 - bit));
			uint32_t h = (uint32_t)_mm_movemask_epi8(_mm_slli_epi16(hi, 7 - bit));
			plane[bit][band] = (l | h << 11) & BAND_ALL;
		}
#else
		for (int bit = 0; bit < 4; bit++) {
			uint32_t p = 0;
			for (int k = 0; k < 27; k++)
				p |= (uint32_t)(cell[27 * band + k] >> bit & 1) << k;
			plane[bit][band] = p;
		}
#endif
	}
	for (int d = 0; d < 9; d++) {
		int v = d + 1;
		bands match = all_cells;
		for (int bit = 0; bit < 4; bit++) {
			bands p = {plane[bit][0], plane[bit][1], plane[bit][2], 0};
			match &= v >> bit & 1 ? p : ~p;
		}
		given[d] = match;
	}
}

/* The board of a puzzle's givens, all at once: a digit stays where it is
 * given and in the open cells outside the units of its givens. Returns
 * false when two givens of a digit share a unit. */
ALWAYS_INLINE bool root_board(const uint8_t *cell, struct board *b)
{
	bands given[9], blank = all_cells;
	given_cells(cell, given);
	for (int d = 0; d < 9; d++)
		blank &= ~given[d];
	b->open = blank;
	for (int d = 0; d < 9; d++) {
		bool apart;
		bands units = units_of(given[d], &apart);
		if (!apart)
			return false;
		b->cand[d] = given[d] | (blank & ~units);
	}
	return true;
}

/* Built three times on x86-64 with glibc, the loader picking one for the
 * machine: for x86-64-v4 (AVX-512: three-input logic in one instruction),
 * x86-64-v3 (AVX2, BMI2, POPCNT: a popcount is one instruction) and the
 * baseline. -DMACHINE_CLONES= builds one, for the compiler's target. */
#if !defined(MACHINE_CLONES) && defined(__x86_64__) && defined(__GLIBC__) && \
	defined(__has_attribute)
#if __has_attribute(target_clones)
#define MACHINE_CLONES \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef MACHINE_CLONES
#define MACHINE_CLONES
#endif

/* The board of the givens (false when they clash), propagation from it,
 * then depth-first search, values in increasing order, on a stack of
 * boards: no allocation, no recursion. Every level fixes at least one of
 * the 81 cells. */
MACHINE_CLONES static bool search(struct search *se, const uint8_t *cell)
{
	static const bands never_seen = {0, 0, 0, ~0u};
	bands never[9];
	for (int d = 0; d < 9; d++)
		never[d] = never_seen;
	struct frame stack[82];
	if (!root_board(cell, &stack[0].board))
		return false;
	/* every digit gets a first look for rule 2, placed or not */
	if (propagate(&stack[0].board, never) < 0 || enter(se, &stack[0], 0))
		return true;
	int depth = 0;
	for (;;) {
		struct frame *f = &stack[depth];
		if (!f->untried) {
			if (depth == 0)
				return true;
			depth--;
			continue;
		}
		int d = __builtin_ctz(f->untried);
		f->untried &= f->untried - 1;
		struct frame *next = f + 1;
		next->board = f->board;
		place(&next->board, d, f->slot);
		if (propagate(&next->board, f->board.cand) < 0)
			continue;
		depth++;
		if (enter(se, next, depth))
			return true;
	}
}

/* A solved board's values into cells 0-80 (and zeros into 81-85, which a
 * grid holds and does not use): the four bits of the values as four bit
 * planes, each band's 27 bits of a plane spread to bytes, with no loop
 * over each digit's cells (contrib/bench/code-notes.md). */
static void solution_cells(const struct board *b, uint8_t *cell)
{
	bands plane[4] = {{0}};
	for (int d = 0; d < 9; d++)
		for (int bit = 0; bit < 4; bit++)
			if ((d + 1) >> bit & 1)
				plane[bit] |= b->cand[d];
	for (int band = 0; band < 3; band++) {
#ifdef __SSE2__
		/* byte k of 32 set when bit k of x is: each byte of x spread
		 * over eight bytes, each of those tested for its own bit */
		const __m128i bit_of_byte = _mm_set1_epi64x((long long)0x8040201008040201ull);
		__m128i lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
		for (int bit = 0; bit < 4; bit++) {
			__m128i x = _mm_cvtsi32_si128((int)plane[bit][band]);
			x = _mm_unpacklo_epi8(x, x);
			x = _mm_unpacklo_epi16(x, x);
			__m128i x01 = _mm_unpacklo_epi32(x, x), x23 = _mm_unpackhi_epi32(x, x);
			__m128i value = _mm_set1_epi8((char)(1 << bit));
			x01 = _mm_cmpeq_epi8(_mm_and_si128(x01, bit_of_byte), bit_of_byte);
			x23 = _mm_cmpeq_epi8(_mm_and_si128(x23, bit_of_byte), bit_of_byte);
			lo = _mm_or_si128(lo, _mm_and_si128(x01, value));
			hi = _mm_or_si128(hi, _mm_and_si128(x23, value));
		}
		/* bands in order: each overwrites the zeros past the last one's
		 * 27 cells */
		_mm_storeu_si128((__m128i *)(cell + 27 * band), lo);
		_mm_storeu_si128((__m128i *)(cell + 27 * band + 16), hi);
#else
		for (int k = 0; k < 27; k++) {
			uint8_t v = 0;
			for (int bit = 0; bit < 4; bit++)
				v |= (uint8_t)((plane[bit][band] >> k & 1) << bit);
			cell[27 * band + k] = v;
		}
#endif
	}
}

enum solve_status cp9_solve(const struct grid *puzzle, struct solve_result *res,
			    struct worker_ctx *ctx)
{
	if (!tables_ready)
		build_tables();
	struct search se = {.ctx = ctx, .limit = worker_count_limit(ctx)};
	if (!search(&se, puzzle->cell))
		return SOLVE_UNSAT; /* clashing givens */
	res->nodes = se.nodes;
	res->count = se.found;
	if (se.stopped)
		return SOLVE_STOPPED; /* in count mode, a second solution may exist */
	if (se.found) {
		grid_init(&res->solution, 3);
		solution_cells(&se.first, res->solution.cell);
		return SOLVE_SOLVED;
	}
	return SOLVE_UNSAT;
}
