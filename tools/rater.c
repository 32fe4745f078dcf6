/* Rating a puzzle as a person would: solve it with the techniques people
 * use, always the easiest that makes progress (after each step the rater
 * starts again from naked singles), and take the hardest one needed. The
 * techniques, by level:
 *   1 simple        naked single (a cell with one candidate left)
 *   2 easy          hidden single (a value with one place left in a row,
 *                   column or box)
 *   3 intermediate  locked candidates: pointing (a box's candidates for a
 *                   value on one line clear the rest of the line) and
 *                   claiming (a line's candidates in one box clear the rest
 *                   of the box); naked and hidden pairs
 *   4 hard          naked and hidden triples, X-wing, XY-wing, swordfish,
 *                   naked and hidden quads, jellyfish
 * When they run out the rater guesses: it picks a cell (one whose every
 * value the techniques settle, a contradiction or the solution, when a
 * cell with few candidates has that; else the first cell with the fewest)
 * and tries each value, going on with the techniques and, where they stop
 * again, guessing again. Every branch is followed, so the guesses counted
 * are those that prove the solution, whatever value comes first:
 *   5 expert        guesses, none within another
 *   6 extreme       guesses within guesses
 * Levels 1 to 3 follow qqwing's (simple, easy, intermediate: the same
 * techniques, tried in about the same order); qqwing rates every puzzle it
 * cannot solve with them "expert", which here is 4 to 6.
 *
 * Candidates are bitsets (bit v-1 for value v), so any box size 2..8
 * works; units are numbered rows 0..N-1, columns N..2N-1, boxes 2N..3N-1. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rater.h"
#include "workers/propagate.h"

static const char *const technique_names[TECH_COUNT] = {
	[TECH_NAKED_SINGLE] = "naked single", [TECH_HIDDEN_SINGLE] = "hidden single",
	[TECH_POINTING] = "pointing",         [TECH_CLAIMING] = "claiming",
	[TECH_NAKED_PAIR] = "naked pair",     [TECH_HIDDEN_PAIR] = "hidden pair",
	[TECH_NAKED_TRIPLE] = "naked triple", [TECH_HIDDEN_TRIPLE] = "hidden triple",
	[TECH_X_WING] = "x-wing",             [TECH_XY_WING] = "xy-wing",
	[TECH_SWORDFISH] = "swordfish",       [TECH_NAKED_QUAD] = "naked quad",
	[TECH_HIDDEN_QUAD] = "hidden quad",   [TECH_JELLYFISH] = "jellyfish",
	[TECH_GUESS] = "guess",
};

static const int technique_levels[TECH_COUNT] = {
	[TECH_NAKED_SINGLE] = LEVEL_SIMPLE,  [TECH_HIDDEN_SINGLE] = LEVEL_EASY,
	[TECH_POINTING] = LEVEL_INTERMEDIATE, [TECH_CLAIMING] = LEVEL_INTERMEDIATE,
	[TECH_NAKED_PAIR] = LEVEL_INTERMEDIATE, [TECH_HIDDEN_PAIR] = LEVEL_INTERMEDIATE,
	[TECH_NAKED_TRIPLE] = LEVEL_HARD,    [TECH_HIDDEN_TRIPLE] = LEVEL_HARD,
	[TECH_X_WING] = LEVEL_HARD,          [TECH_XY_WING] = LEVEL_HARD,
	[TECH_SWORDFISH] = LEVEL_HARD,       [TECH_NAKED_QUAD] = LEVEL_HARD,
	[TECH_HIDDEN_QUAD] = LEVEL_HARD,     [TECH_JELLYFISH] = LEVEL_HARD,
	[TECH_GUESS] = LEVEL_EXPERT,
};

static const char *const level_names[LEVEL_COUNT] = {
	"none", "simple", "easy", "intermediate", "hard", "expert", "extreme",
};

const char *rate_level_name(int level)
{
	return level >= 0 && level < LEVEL_COUNT ? level_names[level] : "none";
}

const char *rate_technique_name(enum technique t)
{
	return t < TECH_COUNT ? technique_names[t] : "none";
}

int rate_technique_level(enum technique t)
{
	return t < TECH_COUNT ? technique_levels[t] : LEVEL_NONE;
}

/* --- the board --- */

/* The cells of each unit, for the box size in use (built on first use). */
static int geo_box;
static uint16_t unit_cells[3 * GRID_MAX_SIDE][GRID_MAX_SIDE];
static uint8_t cell_row[GRID_MAX_CELLS], cell_col[GRID_MAX_CELLS], cell_box[GRID_MAX_CELLS];

static void build_units(int box)
{
	if (geo_box == box)
		return;
	int side = box * box;
	for (int i = 0; i < side; i++)
		for (int k = 0; k < side; k++) {
			unit_cells[i][k] = (uint16_t)(i * side + k);
			unit_cells[side + i][k] = (uint16_t)(k * side + i);
			int row = (i / box) * box + k / box, col = (i % box) * box + k % box;
			unit_cells[2 * side + i][k] = (uint16_t)(row * side + col);
			cell_row[row * side + col] = (uint8_t)row;
			cell_col[row * side + col] = (uint8_t)col;
			cell_box[row * side + col] = (uint8_t)i;
		}
	geo_box = box;
}

struct state {
	int box, side, cells;
	int open;       /* cells without a value */
	bool broken;    /* a contradiction: a cell or a unit's value with no place */
	uint64_t all;   /* {1..N} */
	uint64_t *cand; /* [cells] candidates (a placed cell: its value's bit) */
	uint8_t *value; /* [cells] 0 while open */
};

static int state_alloc(struct state *s, int box)
{
	int side = box * box, cells = side * side;
	s->box = box;
	s->side = side;
	s->cells = cells;
	s->cand = malloc((size_t)cells * (sizeof *s->cand + sizeof *s->value));
	if (!s->cand)
		return -1;
	s->value = (uint8_t *)(s->cand + cells);
	return 0;
}

static void state_copy(struct state *dst, const struct state *src)
{
	dst->open = src->open;
	dst->broken = src->broken;
	dst->all = src->all;
	memcpy(dst->cand, src->cand, (size_t)src->cells * (sizeof *src->cand + sizeof *src->value));
}

static inline uint64_t bit_of(int v)
{
	return 1ULL << (v - 1);
}

static inline int row_of(const struct state *s, int c)
{
	(void)s;
	return cell_row[c];
}

static inline int col_of(const struct state *s, int c)
{
	(void)s;
	return cell_col[c];
}

static inline int box_of(const struct state *s, int c)
{
	(void)s;
	return cell_box[c];
}

static bool sees(const struct state *s, int a, int b)
{
	return row_of(s, a) == row_of(s, b) || col_of(s, a) == col_of(s, b) || box_of(s, a) == box_of(s, b);
}

/* Removes the values of mask from an open cell's candidates; true when
 * any was there. */
static bool eliminate(struct state *s, int c, uint64_t mask)
{
	if (s->value[c] || !(s->cand[c] & mask))
		return false;
	s->cand[c] &= ~mask;
	if (!s->cand[c])
		s->broken = true;
	return true;
}

/* Places v in cell c and removes it from the cell's peers. */
static void place(struct state *s, int c, int v)
{
	uint64_t bit = bit_of(v);
	s->value[c] = (uint8_t)v;
	s->cand[c] = bit;
	s->open--;
	const int units[3] = {row_of(s, c), s->side + col_of(s, c), 2 * s->side + box_of(s, c)};
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < s->side; i++) {
			int p = unit_cells[units[k]][i];
			if (p != c && (s->cand[p] & bit)) {
				/* a placed peer with the same value empties too */
				s->cand[p] &= ~bit;
				if (!s->cand[p])
					s->broken = true;
			}
		}
}

static void load(struct state *s, const struct grid *puzzle)
{
	s->all = s->side == 64 ? ~0ULL : (1ULL << s->side) - 1;
	s->open = s->cells;
	s->broken = false;
	for (int c = 0; c < s->cells; c++) {
		s->cand[c] = s->all;
		s->value[c] = 0;
	}
	for (int c = 0; c < s->cells && !s->broken; c++) {
		int v = puzzle->cell[c];
		if (!v)
			continue;
		if (!(s->cand[c] & bit_of(v)))
			s->broken = true;
		else
			place(s, c, v);
	}
}

/* --- the techniques: each makes one step (singles: a sweep) and returns
 * how many uses it made, 0 when it finds nothing to do --- */

static long naked_singles(struct state *s)
{
	long n = 0;
	for (int c = 0; c < s->cells && !s->broken; c++)
		if (!s->value[c] && cp_popcount(s->cand[c]) == 1) {
			place(s, c, __builtin_ctzll(s->cand[c]) + 1);
			n++;
		}
	return n;
}

/* All the hidden singles of a sweep over the units: the singles reach the
 * same board in any order, so the level is the same as one at a time. */
static long hidden_singles(struct state *s)
{
	long placed_n = 0;
	for (int u = 0; u < 3 * s->side && !s->broken; u++) {
		uint64_t once = 0, twice = 0, placed = 0;
		for (int i = 0; i < s->side; i++) {
			int p = unit_cells[u][i];
			if (s->value[p]) {
				placed |= s->cand[p];
			} else {
				twice |= once & s->cand[p];
				once |= s->cand[p];
			}
		}
		if (s->all & ~(once | placed)) {
			s->broken = true; /* a value with no place left */
			return placed_n + 1;
		}
		/* each place found before the unit changes */
		uint64_t single = once & ~twice;
		for (int i = 0; i < s->side && single; i++) {
			int p = unit_cells[u][i];
			uint64_t m = s->value[p] ? 0 : s->cand[p] & single;
			if (m & (m - 1)) {
				s->broken = true; /* two values with one place */
				return placed_n + 1;
			}
			if (m) {
				place(s, p, __builtin_ctzll(m) + 1);
				single &= ~m;
				placed_n++;
			}
		}
	}
	return placed_n;
}

/* Removes value v from the cells of unit u that are not in unit keep. */
static bool clear_outside(struct state *s, int u, int keep, int v)
{
	bool any = false;
	for (int i = 0; i < s->side; i++) {
		int p = unit_cells[u][i], in_keep;
		if (keep < s->side)
			in_keep = row_of(s, p) == keep;
		else if (keep < 2 * s->side)
			in_keep = col_of(s, p) == keep - s->side;
		else
			in_keep = box_of(s, p) == keep - 2 * s->side;
		if (!in_keep && eliminate(s, p, bit_of(v)))
			any = true;
	}
	return any;
}

/* Where each value can still go, for locked candidates: for each line
 * (rows 0..N-1, columns N..2N-1) and value, the boxes; for each box and
 * value, the rows (at b) and the columns (at N + b). */
static struct {
	uint64_t line_boxes[2 * GRID_MAX_SIDE][GRID_MAX_SIDE];
	uint64_t box_lines[2 * GRID_MAX_SIDE][GRID_MAX_SIDE];
} where;

static void find_places(const struct state *s)
{
	for (int u = 0; u < 2 * s->side; u++) {
		memset(where.line_boxes[u], 0, sizeof where.line_boxes[u][0] * (size_t)s->side);
		memset(where.box_lines[u], 0, sizeof where.box_lines[u][0] * (size_t)s->side);
	}
	for (int c = 0; c < s->cells; c++) {
		if (s->value[c])
			continue;
		int r = row_of(s, c), col = col_of(s, c), b = box_of(s, c);
		for (uint64_t m = s->cand[c]; m; m &= m - 1) {
			int v = __builtin_ctzll(m);
			where.line_boxes[r][v] |= 1ULL << b;
			where.line_boxes[s->side + col][v] |= 1ULL << b;
			where.box_lines[b][v] |= 1ULL << r;
			where.box_lines[s->side + b][v] |= 1ULL << col;
		}
	}
}

/* A box whose candidates for a value lie on one line, which has others
 * outside the box: the value leaves the rest of the line. */
static long pointing(struct state *s)
{
	find_places(s);
	for (int b = 0; b < s->side; b++) {
		int u = 2 * s->side + b;
		for (int v = 0; v < s->side; v++) {
			uint64_t rows = where.box_lines[b][v], cols = where.box_lines[s->side + b][v];
			if (cp_popcount(rows) == 1 &&
			    (where.line_boxes[__builtin_ctzll(rows)][v] & ~(1ULL << b)) &&
			    clear_outside(s, __builtin_ctzll(rows), u, v + 1))
				return 1;
			if (cp_popcount(cols) == 1 &&
			    (where.line_boxes[s->side + __builtin_ctzll(cols)][v] & ~(1ULL << b)) &&
			    clear_outside(s, s->side + __builtin_ctzll(cols), u, v + 1))
				return 1;
		}
	}
	return 0;
}

/* A line whose candidates for a value lie in one box, which has others
 * off the line: the value leaves the rest of the box. */
static long claiming(struct state *s)
{
	find_places(s);
	for (int u = 0; u < 2 * s->side; u++) {
		bool row = u < s->side;
		int line = row ? u : u - s->side;
		for (int v = 0; v < s->side; v++) {
			uint64_t boxes = where.line_boxes[u][v];
			if (cp_popcount(boxes) != 1)
				continue;
			int b = __builtin_ctzll(boxes);
			uint64_t lines = where.box_lines[row ? b : s->side + b][v];
			if ((lines & ~(1ULL << line)) && clear_outside(s, 2 * s->side + b, u, v + 1))
				return 1;
		}
	}
	return 0;
}

/* Subsets: k cells of a unit holding k values between them (naked), or k
 * values with k places between them (hidden), or k lines whose places for
 * a value lie in k cross lines (fish). Members are bitsets; the sets of k
 * members whose union has k bits are tried in order, each passed to act
 * until one changes something. */
struct subset {
	const uint64_t *mask; /* of each member */
	const int *member;
	int n, k;
	int chosen[4];
};

typedef bool subset_act(struct state *s, const struct subset *sub, uint64_t u, void *arg);

static bool each_subset(struct state *s, struct subset *sub, int start, int depth, uint64_t u,
			subset_act *act, void *arg)
{
	if (depth == sub->k)
		return cp_popcount(u) == sub->k && act(s, sub, u, arg);
	for (int i = start; i <= sub->n - (sub->k - depth); i++) {
		uint64_t nu = u | sub->mask[i];
		if (cp_popcount(nu) > sub->k)
			continue;
		sub->chosen[depth] = i;
		if (each_subset(s, sub, i + 1, depth + 1, nu, act, arg))
			return true;
	}
	return false;
}

struct unit_arg {
	int u;
};

static bool naked_act(struct state *s, const struct subset *sub, uint64_t values, void *arg)
{
	int u = ((struct unit_arg *)arg)->u;
	bool any = false;
	for (int i = 0; i < s->side; i++) {
		int p = unit_cells[u][i], d;
		for (d = 0; d < sub->k; d++)
			if (sub->member[sub->chosen[d]] == p)
				break;
		if (d == sub->k && eliminate(s, p, values))
			any = true;
	}
	return any;
}

static long naked_subset(struct state *s, int k)
{
	uint64_t mask[GRID_MAX_SIDE];
	int member[GRID_MAX_SIDE];
	for (int u = 0; u < 3 * s->side; u++) {
		struct subset sub = {.mask = mask, .member = member, .k = k};
		int open = 0;
		for (int i = 0; i < s->side; i++) {
			int p = unit_cells[u][i];
			if (s->value[p])
				continue;
			open++;
			int n = cp_popcount(s->cand[p]);
			if (n >= 2 && n <= k) {
				mask[sub.n] = s->cand[p];
				member[sub.n++] = p;
			}
		}
		struct unit_arg arg = {u};
		if (open > k && each_subset(s, &sub, 0, 0, 0, naked_act, &arg))
			return 1;
	}
	return 0;
}

static bool hidden_act(struct state *s, const struct subset *sub, uint64_t places, void *arg)
{
	int u = ((struct unit_arg *)arg)->u;
	uint64_t values = 0;
	for (int d = 0; d < sub->k; d++)
		values |= bit_of(sub->member[sub->chosen[d]]);
	bool any = false;
	for (uint64_t m = places; m; m &= m - 1)
		if (eliminate(s, unit_cells[u][__builtin_ctzll(m)], s->all & ~values))
			any = true;
	return any;
}

static long hidden_subset(struct state *s, int k)
{
	uint64_t mask[GRID_MAX_SIDE];
	int member[GRID_MAX_SIDE];
	uint64_t places[GRID_MAX_SIDE];
	for (int u = 0; u < 3 * s->side; u++) {
		memset(places, 0, sizeof places);
		for (int i = 0; i < s->side; i++) {
			int p = unit_cells[u][i];
			if (s->value[p])
				continue;
			for (uint64_t m = s->cand[p]; m; m &= m - 1)
				places[__builtin_ctzll(m)] |= 1ULL << i;
		}
		struct subset sub = {.mask = mask, .member = member, .k = k};
		for (int v = 0; v < s->side; v++) {
			int n = cp_popcount(places[v]);
			if (n >= 2 && n <= k) {
				mask[sub.n] = places[v];
				member[sub.n++] = v + 1;
			}
		}
		struct unit_arg arg = {u};
		if (each_subset(s, &sub, 0, 0, 0, hidden_act, &arg))
			return 1;
	}
	return 0;
}

struct fish_arg {
	int v;
	bool by_rows; /* base lines are rows, cover lines columns */
};

static bool fish_act(struct state *s, const struct subset *sub, uint64_t covers, void *arg)
{
	const struct fish_arg *fa = arg;
	bool any = false;
	uint64_t base = 0;
	for (int d = 0; d < sub->k; d++)
		base |= 1ULL << sub->member[sub->chosen[d]];
	for (uint64_t m = covers; m; m &= m - 1) {
		int line = __builtin_ctzll(m);
		for (int i = 0; i < s->side; i++) {
			/* cell i of cover line: its base line is i */
			if (base >> i & 1)
				continue;
			int p = fa->by_rows ? i * s->side + line : line * s->side + i;
			if (eliminate(s, p, bit_of(fa->v)))
				any = true;
		}
	}
	return any;
}

/* X-wing (k 2), swordfish (3), jellyfish (4): k rows whose candidates for
 * a value lie in k columns between them: the value leaves the rest of
 * those columns (and the same with rows and columns swapped). */
static long fish(struct state *s, int k)
{
	/* [v][line]: the places of value v in row line (by column), and at
	 * [v][N + line] in column line (by row); placed: the values each line
	 * has */
	static uint64_t places[GRID_MAX_SIDE][2 * GRID_MAX_SIDE];
	uint64_t placed[2 * GRID_MAX_SIDE] = {0};
	for (int v = 0; v < s->side; v++)
		memset(places[v], 0, sizeof places[v][0] * 2 * (size_t)s->side);
	for (int c = 0; c < s->cells; c++) {
		int r = row_of(s, c), col = col_of(s, c);
		if (s->value[c]) {
			placed[r] |= s->cand[c];
			placed[s->side + col] |= s->cand[c];
			continue;
		}
		for (uint64_t m = s->cand[c]; m; m &= m - 1) {
			int v = __builtin_ctzll(m);
			places[v][r] |= 1ULL << col;
			places[v][s->side + col] |= 1ULL << r;
		}
	}
	uint64_t mask[GRID_MAX_SIDE];
	int member[GRID_MAX_SIDE];
	for (int v = 1; v <= s->side; v++) {
		for (int by_rows = 1; by_rows >= 0; by_rows--) {
			struct subset sub = {.mask = mask, .member = member, .k = k};
			for (int line = 0; line < s->side; line++) {
				int at = by_rows ? line : s->side + line;
				uint64_t m = places[v - 1][at];
				int n = cp_popcount(m);
				if (!(placed[at] & bit_of(v)) && n >= 2 && n <= k) {
					mask[sub.n] = m;
					member[sub.n++] = line;
				}
			}
			struct fish_arg arg = {v, by_rows};
			if (each_subset(s, &sub, 0, 0, 0, fish_act, &arg))
				return 1;
		}
	}
	return 0;
}

/* XY-wing: a cell {x,y} that sees a cell {x,z} and a cell {y,z}: z leaves
 * every cell that sees both of those. */
static long xy_wing(struct state *s)
{
	int pincers[3 * GRID_MAX_SIDE];
	for (int c = 0; c < s->cells; c++) {
		uint64_t xy = s->cand[c];
		if (s->value[c] || cp_popcount(xy) != 2)
			continue;
		int n = 0;
		const int units[3] = {row_of(s, c), s->side + col_of(s, c), 2 * s->side + box_of(s, c)};
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < s->side; i++) {
				int p = unit_cells[units[k]][i];
				if (p == c || s->value[p] || cp_popcount(s->cand[p]) != 2 ||
				    cp_popcount(s->cand[p] & xy) != 1)
					continue;
				int j;
				for (j = 0; j < n && pincers[j] != p; j++)
					;
				if (j == n)
					pincers[n++] = p;
			}
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++) {
				uint64_t ca = s->cand[pincers[a]], cb = s->cand[pincers[b]];
				uint64_t z = ca & cb;
				if ((ca & xy) == (cb & xy) || cp_popcount(z) != 1 || (z & xy))
					continue;
				bool any = false;
				for (int p = 0; p < s->cells; p++)
					if (p != pincers[a] && p != pincers[b] && p != c &&
					    sees(s, p, pincers[a]) && sees(s, p, pincers[b]) && eliminate(s, p, z))
						any = true;
				if (any)
					return 1;
			}
	}
	return 0;
}

static long apply(struct state *s, enum technique t)
{
	switch (t) {
	case TECH_NAKED_SINGLE:
		return naked_singles(s);
	case TECH_HIDDEN_SINGLE:
		return hidden_singles(s);
	case TECH_POINTING:
		return pointing(s);
	case TECH_CLAIMING:
		return claiming(s);
	case TECH_NAKED_PAIR:
		return naked_subset(s, 2);
	case TECH_HIDDEN_PAIR:
		return hidden_subset(s, 2);
	case TECH_NAKED_TRIPLE:
		return naked_subset(s, 3);
	case TECH_HIDDEN_TRIPLE:
		return hidden_subset(s, 3);
	case TECH_X_WING:
		return fish(s, 2);
	case TECH_XY_WING:
		return xy_wing(s);
	case TECH_SWORDFISH:
		return fish(s, 3);
	case TECH_NAKED_QUAD:
		return naked_subset(s, 4);
	case TECH_HIDDEN_QUAD:
		return hidden_subset(s, 4);
	case TECH_JELLYFISH:
		return fish(s, 4);
	case TECH_GUESS:
	case TECH_COUNT:
		break;
	}
	return 0;
}

enum outcome { STUCK, SOLVED, CONTRADICTION };

/* The techniques up to max_level, easiest first, until the board is
 * solved, broken, or none applies. uses and hardest may be NULL. */
static enum outcome logic(struct state *s, int max_level, long *uses, int *hardest)
{
	for (;;) {
		if (s->broken)
			return CONTRADICTION;
		if (s->open == 0)
			return SOLVED;
		enum technique t;
		long n = 0;
		for (t = 0; t < TECH_GUESS && technique_levels[t] <= max_level; t++)
			if ((n = apply(s, t)) > 0)
				break;
		if (n == 0)
			return STUCK;
		if (uses)
			uses[t] += n;
		if (hardest && (int)t > *hardest)
			*hardest = (int)t;
	}
}

/* --- guesses --- */

struct search {
	const struct rate_options *opt;
	struct state *pool; /* boards: 0 the root; at guess level L (1 on),
			     * 2L the value tried, 2L+1 the trials of
			     * choose_cell */
	int pool_n, pool_cap, box;
	uint64_t guesses;
	int depth;
	int solutions;
	bool bounded, nomem;
	struct grid *solution;
};

/* Makes boards 0..i exist; false when out of memory. Pointers into the
 * pool are good until the next call. */
static bool boards_upto(struct search *se, int i)
{
	if (i >= se->pool_cap) {
		int cap = se->pool_cap ? se->pool_cap * 2 : 16;
		while (cap <= i)
			cap *= 2;
		struct state *grown = realloc(se->pool, sizeof *grown * (size_t)cap);
		if (!grown)
			return false;
		se->pool = grown;
		se->pool_cap = cap;
	}
	while (se->pool_n <= i) {
		if (state_alloc(&se->pool[se->pool_n], se->box) < 0)
			return false;
		se->pool_n++;
	}
	return true;
}

/* Where to guess on s: a cell with few candidates each of whose values the
 * techniques settle (a contradiction or the solution), trying up to 16
 * cells from the fewest candidates on; else the first cell with the
 * fewest. */
static int choose_cell(const struct state *s, struct state *trial)
{
	int first = -1, tried = 0;
	for (int n = 2; n <= s->side && tried < 16; n++)
		for (int c = 0; c < s->cells && tried < 16; c++) {
			if (s->value[c] || cp_popcount(s->cand[c]) != n)
				continue;
			if (first < 0)
				first = c;
			tried++;
			bool settled = true;
			for (uint64_t m = s->cand[c]; m && settled; m &= m - 1) {
				state_copy(trial, s);
				place(trial, c, __builtin_ctzll(m) + 1);
				settled = logic(trial, LEVEL_HARD, NULL, NULL) != STUCK;
			}
			if (settled)
				return c;
		}
	return first;
}

/* Every value of a cell of board at (stuck), at guess level level, each
 * followed by the techniques and, where they stop, by guesses again. */
static void guess(struct search *se, int at, int level)
{
	if (level > se->depth)
		se->depth = level;
	if (!boards_upto(se, 2 * level + 1)) {
		se->nomem = true;
		return;
	}
	const int c = choose_cell(&se->pool[at], &se->pool[2 * level + 1]);
	if (c < 0)
		return; /* not stuck after all: no cell to guess in */
	const uint64_t values = se->pool[at].cand[c];
	for (uint64_t m = values; m; m &= m - 1) {
		if (se->opt->max_guesses && se->guesses >= se->opt->max_guesses) {
			se->bounded = true;
			return;
		}
		se->guesses++;
		struct state *child = &se->pool[2 * level];
		state_copy(child, &se->pool[at]);
		place(child, c, __builtin_ctzll(m) + 1);
		switch (logic(child, LEVEL_HARD, NULL, NULL)) {
		case SOLVED:
			if (se->solutions++ == 0)
				for (int i = 0; i < child->cells; i++)
					se->solution->cell[i] = child->value[i];
			break;
		case STUCK:
			guess(se, 2 * level, level + 1);
			break;
		case CONTRADICTION:
			break;
		}
		if (se->solutions >= 2 || se->bounded || se->nomem)
			return;
	}
}

static void release(struct search *se)
{
	for (int i = 0; i < se->pool_n; i++)
		free(se->pool[i].cand);
	free(se->pool);
}

int rate_puzzle(const struct grid *puzzle, const struct rate_options *opt, struct rating *out)
{
	memset(out, 0, offsetof(struct rating, solution));
	grid_init(&out->solution, puzzle->box);
	out->hardest = out->hardest_logic = TECH_COUNT;
	build_units(puzzle->box);
	struct search se = {.opt = opt, .box = puzzle->box, .solution = &out->solution};
	if (!boards_upto(&se, 0)) {
		release(&se);
		return -2;
	}
	struct state *root = &se.pool[0];
	load(root, puzzle);
	int hardest = -1, rc = -1;
	int max_logic = opt->max_level < LEVEL_HARD ? opt->max_level : LEVEL_HARD;
	switch (logic(root, max_logic, out->uses, &hardest)) {
	case SOLVED:
		for (int i = 0; i < root->cells; i++)
			out->solution.cell[i] = root->value[i];
		out->solutions = 1;
		/* a full grid needs nothing: simple */
		out->hardest = out->hardest_logic = hardest < 0 ? TECH_COUNT : (enum technique)hardest;
		out->level = hardest < 0 ? LEVEL_SIMPLE : technique_levels[out->hardest];
		rc = 0;
		break;
	case CONTRADICTION:
		break;
	case STUCK:
		if (opt->max_level < LEVEL_EXPERT)
			break;
		if (hardest >= 0)
			out->hardest_logic = (enum technique)hardest;
		out->hardest = TECH_GUESS;
		guess(&se, 0, 1);
		if (se.nomem) {
			release(&se);
			return -2;
		}
		out->uses[TECH_GUESS] = (long)se.guesses;
		out->depth = se.depth;
		out->solutions = se.solutions;
		out->bounded = se.bounded;
		if (se.solutions == 1 || (se.bounded && se.solutions == 0)) {
			out->level = se.depth <= 1 && !se.bounded ? LEVEL_EXPERT : LEVEL_EXTREME;
			rc = 0;
		}
		break;
	}
	release(&se);
	return rc;
}
