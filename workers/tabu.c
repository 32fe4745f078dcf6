/* sudoku-tabu: the hybrid AC3-tabu search of Soto, Crawford, Galleguillos,
 * Monfroy & Paredes, "A hybrid AC3-tabu search algorithm for solving
 * Sudoku puzzles" (seeds/ac3-tabu.txt).
 *
 *   network (4)        one variable per cell, its domain a subset of
 *                      1..N, binary constraints x != y between the cells
 *                      of every row, column and box;
 *   AC3 (Alg. 2, 3)    arc consistency, first on the puzzle (pre-
 *                      processing: its singletons are logical
 *                      consequences of the givens and stay fixed), then
 *                      after every iteration on the chosen candidate,
 *                      filling every cell whose domain is reduced to one
 *                      value;
 *   tabu (Alg. 4)      S_best starts as the filtered puzzle; each
 *                      iteration draws a candidate list from S_best's
 *                      neighbourhood by roulette wheel, takes the
 *                      candidate with the fewest empty cells once
 *                      filtered with AC3, and makes it S_best when its
 *                      cost (the number of empty cells, Fig. 3) is no
 *                      worse; the features by which it differs from
 *                      S_best enter a tabu list of bounded size
 *                      (--tabu-size);
 *   stop               a solution (cost 0, verified before it is
 *                      reported), the time limit, or the iteration limit
 *                      (--max-iterations, the paper's 1000 or 100,000).
 *
 * What the paper leaves open, and the choices made here:
 * - The states and the neighbourhood (Alg. 4, line 5). A state is a
 *   partial assignment without conflicts: the fixed cells plus some
 *   assigned cells, the rest empty, so that "cost = empty cells" (Fig. 3)
 *   measures it and AC3 can fill it. A move assigns a value v of an empty
 *   cell x's filtered root domain (the domain after pre-processing) to x
 *   and empties the (at most three) assigned peers that hold v, so the
 *   state stays conflict-free. It changes the cost by k - 1 where k is the
 *   number of cells emptied: k = 0 fills x from its current domain, k >= 1
 *   repairs a cell whose domain AC3 emptied. This is the neighbourhood
 *   that tabu search over partial colourings uses for graph colouring
 *   (Sudoku is one), and the only one under which both the paper's cost
 *   and its AC3 filling act on every state. --moves=any also lets a move
 *   change the value of an assigned cell (cost change k): more sideways
 *   moves, fewer tries that get stuck, but several times slower to a
 *   solution (contrib/bench/code-notes.md), so it is not the default.
 * - The roulette wheel and the best candidate (Alg. 4, lines 5-8). Each
 *   move's slice of the wheel is proportional to its fitness 1 / (2 + d),
 *   d its cost change before AC3 (1 / (1 + k) for a move into an empty
 *   cell). The candidate list is --candidates spins (default 10); the
 *   paper names no size, and its for loop over the neighbourhood reads as
 *   one spin per move (--candidates=0). The best candidate is "the matrix
 *   that has less empty cells". Every move into an empty cell leaves one
 *   empty cell fewer, so counted right after the move nearly all
 *   candidates tie and the choice is a random fill; what tells them apart
 *   is what AC3 then fills. So (--rank=ac3, the default) each candidate is
 *   filtered with AC3 and counted, the best (the first on ties) is kept,
 *   and it is the filtered matrix that line 9 yields. --rank=move counts
 *   before AC3, the literal order of lines 8 and 9; the best of the spins
 *   is then drawn at once from its exact distribution (best_candidate).
 *   The defaults, --rank=ac3 with 10 spins, were the fastest to a
 *   solution of those measured (contrib/bench/code-notes.md).
 * - The features (Alg. 4, line 11). FeatureDifferences(S_candidate,
 *   S_best) are the assignments (cell, value) that S_best had and the
 *   candidate lost: the emptied cells (and with --moves=any the old value
 *   of the cell that changed). A move that would make such an
 *   assignment again contains a tabu feature and is left out of the
 *   neighbourhood (Alg. 1, line 6). Without this the search would undo
 *   its last repair at once: it is what lets the search walk along
 *   plateaus of equal cost. The paper names no size; the default is 10,
 *   within the wide range of sizes that do equally well
 *   (contrib/bench/code-notes.md).
 * - AC3 on a candidate that empties a domain (Alg. 3 answers false): the
 *   paper's Alg. 4 does not look at the answer, and neither does this
 *   code. The cell stays empty (it counts in the cost) and the filtering
 *   goes on to its fixpoint elsewhere; a later move repairs the cell.
 *   The pre-processing is different: an empty domain there proves the
 *   puzzle has no solution, and the worker gives up at once.
 * - AC3 with binary != constraints: Revise3(x_i, x_i != x_j) removes a
 *   value v from D(x_i) exactly when D(x_j) = {v}, so an arc needs a new
 *   look only when a domain becomes a singleton. The queue therefore
 *   holds the cells whose domain may have become a singleton rather than
 *   the arcs; while no domain empties, AC3's fixpoint is unique, so the
 *   domains reached are AC3's. The
 *   domain of an empty cell is its root domain less the values its
 *   assigned peers hold (bit masks per row, column and box).
 * - Tries. Table 1 counts independent tries of 1000 iterations. Here a
 *   try ends after --try-iterations (default 1000) and the next starts
 *   from the filtered puzzle with an empty tabu list, until a solution,
 *   the time limit, or --max-iterations in all (default: no limit; Table
 *   2's limit is 100,000). A try also ends as soon as S_best is provably
 *   stuck: after a rejection, if no move of the neighbourhood is
 *   acceptable, every later iteration of the try would be rejected too.
 *   --try-iterations=0 makes the whole search one try, which gives up
 *   ("stuck") at such a point. Progress counts the tries after the first
 *   as restarts. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "propagate.h"
#include "rng.h"
#include "worker.h"

static int tabu_size = 10;
static int candidate_count = 10; /* 0: one spin per move of the neighbourhood */
static int rank_kind = 0; /* 0: a candidate's empty cells after AC3; 1: before */
static int try_length = 1000;
static int max_iterations = 0;
static bool summary = false;
static int move_kind = 0; /* 0: empty cells only; 1: any cell not fixed */

static const struct worker_option tabu_options[] = {
	{"tabu-size", OPT_INT, &tabu_size, 0, 1000000, NULL,
	 "size limit of the tabu list of features (Alg. 4, lines 13-15)"},
	{"candidates", OPT_INT, &candidate_count, 0, 1000000, NULL,
	 "roulette-wheel spins per iteration, 0: one per move (Alg. 4, line 5)"},
	{"rank", OPT_CHOICE, &rank_kind, 0, 0, "ac3|move",
	 "count a candidate's empty cells after AC3 filtering, or right after the move"},
	{"try-iterations", OPT_INT, &try_length, 0, 2000000000, NULL,
	 "iterations of one try before the next starts (Table 1: 1000), 0: one try"},
	{"max-iterations", OPT_INT, &max_iterations, 0, 2000000000, NULL,
	 "give up after this many iterations in all (Table 2: 100000), 0: never"},
	{"moves", OPT_CHOICE, &move_kind, 0, 0, "empty|any",
	 "which cells a move may give a value: empty ones, or any not fixed"},
	{"summary", OPT_FLAG, &summary, 0, 0, NULL,
	 "report the effort (iterations, restarts, ms) when a puzzle ends"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* A move: give cell `cell` the value `value`, emptying the peers that
 * hold it; `delta` is the change of cost before AC3 (the peers emptied,
 * less one when the cell was empty). */
struct move {
	int cell, value, delta;
};

/* One change to the assignment, to undo a rejected candidate. */
struct change {
	int cell, old_value;
};

struct tabu {
	int box, side, cells, stride; /* stride = N + 1: per-unit tables by value */
	const struct geometry *geo; /* its units and peers */
	const uint8_t *row_of, *col_of, *box_of; /* geo's */
	const struct grid *puzzle;
	uint64_t all;        /* the value set {1..N} */
	uint64_t *root;      /* [cells] the domains after pre-processing */
	bool *fixed;         /* [cells] given, or a singleton of the pre-processing */
	uint8_t *value;      /* [cells] the current assignment, 0: empty */
	/* the assigned values of each unit, and where each is */
	uint64_t *row_mask, *col_mask, *box_mask;
	/* the assigned values where a row meets a box ([row * n + box column])
	 * and where a column meets a box ([column * n + box row]) */
	uint64_t *row_box_mask, *col_box_mask;
	int *row_pos, *col_pos, *box_pos; /* [unit * stride + v]: cell or -1 */
	int empty;  /* cost: empty cells of the current state */
	int open;   /* cells not fixed */
	int *open_cells;

	/* the neighbourhood of one iteration: its size, and its moves per cost
	 * change d + 1 (d from -1 to 3), the roulette wheel's classes */
	int nmoves;
	int class_size[5];

	/* AC3's queue of cells to look at, and whether each is in it */
	int *queue;
	bool *queued;
	int nqueue;

	struct change *log;
	int nlog;

	/* the tabu list: a ring of features (cell * stride + value) */
	int *tabu_ring;
	int tabu_len, tabu_head;
	uint32_t *tabu_count; /* [cells * stride]: times a feature is in the list */
	uint64_t *tabu_mask;  /* [cells]: the values that are tabu there */

	struct rng rng;
};

static uint64_t bit(int v)
{
	return 1ULL << (v - 1);
}

static void tabu_free(struct tabu *t)
{
	free(t->root);
	free(t->fixed);
	free(t->value);
	free(t->row_mask);
	free(t->col_mask);
	free(t->box_mask);
	free(t->row_pos);
	free(t->col_pos);
	free(t->box_pos);
	free(t->open_cells);
	free(t->row_box_mask);
	free(t->col_box_mask);
	free(t->tabu_mask);
	free(t->queue);
	free(t->queued);
	free(t->log);
	free(t->tabu_ring);
	free(t->tabu_count);
}

static int tabu_alloc(struct tabu *t, const struct grid *puzzle)
{
	memset(t, 0, sizeof *t);
	const int side = puzzle->side, cells = puzzle->cells, stride = side + 1;
	t->box = puzzle->box;
	t->side = side;
	t->cells = cells;
	t->stride = stride;
	t->puzzle = puzzle;
	t->all = side == 64 ? ~0ULL : (1ULL << side) - 1;
	t->geo = geometry_get(t->box);
	t->row_of = t->geo->row_of;
	t->col_of = t->geo->col_of;
	t->box_of = t->geo->box_of;
	const size_t units = (size_t)side * (size_t)stride;
	t->root = malloc(sizeof *t->root * (size_t)cells);
	t->fixed = calloc((size_t)cells, sizeof *t->fixed);
	t->value = calloc((size_t)cells, 1);
	t->row_mask = calloc((size_t)side, sizeof(uint64_t));
	t->col_mask = calloc((size_t)side, sizeof(uint64_t));
	t->box_mask = calloc((size_t)side, sizeof(uint64_t));
	t->row_pos = malloc(sizeof(int) * units);
	t->col_pos = malloc(sizeof(int) * units);
	t->box_pos = malloc(sizeof(int) * units);
	t->open_cells = malloc(sizeof(int) * (size_t)cells);
	t->row_box_mask = calloc((size_t)side * (size_t)t->box, sizeof(uint64_t));
	t->col_box_mask = calloc((size_t)side * (size_t)t->box, sizeof(uint64_t));
	t->tabu_mask = calloc((size_t)cells, sizeof(uint64_t));
	t->queue = malloc(sizeof(int) * (size_t)cells);
	t->queued = calloc((size_t)cells, sizeof *t->queued);
	/* a candidate changes each cell at most twice (emptied, then filled) */
	t->log = malloc(sizeof *t->log * (size_t)cells * 3);
	t->tabu_ring = malloc(sizeof(int) * (size_t)(tabu_size + 3));
	t->tabu_count = calloc((size_t)cells * (size_t)stride, sizeof(uint32_t));
	if (!t->root || !t->fixed || !t->value || !t->row_mask || !t->col_mask || !t->box_mask || !t->row_pos || !t->col_pos ||
	    !t->box_pos || !t->open_cells || !t->row_box_mask || !t->col_box_mask ||
	    !t->tabu_mask || !t->queue || !t->queued ||
	    !t->log || !t->tabu_ring || !t->tabu_count)
		return -1;
	return 0;
}

/* The values no assigned peer of a cell holds, within its root domain. */
static inline uint64_t domain(const struct tabu *t, int cell)
{
	return t->root[cell] & ~(t->row_mask[t->row_of[cell]] | t->col_mask[t->col_of[cell]] |
				 t->box_mask[t->box_of[cell]]);
}

static void assign(struct tabu *t, int cell, int v)
{
	const int r = t->row_of[cell], c = t->col_of[cell], b = t->box_of[cell];
	t->value[cell] = (uint8_t)v;
	t->row_mask[r] |= bit(v);
	t->col_mask[c] |= bit(v);
	t->box_mask[b] |= bit(v);
	t->row_box_mask[r * t->box + c / t->box] |= bit(v);
	t->col_box_mask[c * t->box + r / t->box] |= bit(v);
	t->row_pos[r * t->stride + v] = cell;
	t->col_pos[c * t->stride + v] = cell;
	t->box_pos[b * t->stride + v] = cell;
	t->empty--;
}

static void unassign(struct tabu *t, int cell)
{
	const int r = t->row_of[cell], c = t->col_of[cell], b = t->box_of[cell];
	const int v = t->value[cell];
	t->value[cell] = 0;
	t->row_mask[r] &= ~bit(v);
	t->col_mask[c] &= ~bit(v);
	t->box_mask[b] &= ~bit(v);
	t->row_box_mask[r * t->box + c / t->box] &= ~bit(v);
	t->col_box_mask[c * t->box + r / t->box] &= ~bit(v);
	t->row_pos[r * t->stride + v] = -1;
	t->col_pos[c * t->stride + v] = -1;
	t->box_pos[b * t->stride + v] = -1;
	t->empty++;
}

static void logged_assign(struct tabu *t, int cell, int v)
{
	t->log[t->nlog++] = (struct change){cell, 0};
	assign(t, cell, v);
}

static void logged_unassign(struct tabu *t, int cell)
{
	t->log[t->nlog++] = (struct change){cell, t->value[cell]};
	unassign(t, cell);
}

/* Undoes the logged changes, newest first. */
static void undo(struct tabu *t)
{
	while (t->nlog) {
		const struct change *ch = &t->log[--t->nlog];
		if (t->value[ch->cell])
			unassign(t, ch->cell);
		if (ch->old_value)
			assign(t, ch->cell, ch->old_value);
	}
}

static void look_at(struct tabu *t, int cell)
{
	if (!t->queued[cell] && !t->value[cell]) {
		t->queued[cell] = true;
		t->queue[t->nqueue++] = cell;
	}
}

static void look_at_peers(struct tabu *t, int cell)
{
	const int n = t->geo->npeers;
	const uint16_t *peers = geometry_peers(t->geo, cell);
	for (int i = 0; i < n; i++)
		look_at(t, peers[i]);
}

/* AC3 on the current state from the cells queued: every empty cell whose
 * domain is a single value takes it, and its peers are looked at again.
 * Returns the number of empty cells whose domain is empty. */
static int ac3(struct tabu *t)
{
	int wiped = 0;
	while (t->nqueue) {
		int cell = t->queue[--t->nqueue];
		t->queued[cell] = false;
		if (t->value[cell])
			continue;
		uint64_t d = domain(t, cell);
		if (d == 0) {
			wiped++;
		} else if ((d & (d - 1)) == 0) {
			logged_assign(t, cell, cp_first_value(d));
			look_at_peers(t, cell);
		}
	}
	return wiped;
}

/* Pre-processing (Alg. 4, line 1): AC3 on the puzzle. Its singletons
 * follow from the givens, so they are fixed like the givens. Returns -1
 * when a domain empties: the puzzle has no solution. */
static int preprocess(struct tabu *t)
{
	const int side = t->side, cells = t->cells;
	for (int i = 0; i < side * t->stride; i++)
		t->row_pos[i] = t->col_pos[i] = t->box_pos[i] = -1;
	t->empty = cells;
	for (int cell = 0; cell < cells; cell++) {
		t->root[cell] = t->all;
		if (t->puzzle->cell[cell])
			assign(t, cell, t->puzzle->cell[cell]);
	}
	for (int cell = 0; cell < cells; cell++)
		look_at(t, cell);
	t->nlog = 0;
	int wiped = ac3(t);
	t->nlog = 0;
	if (wiped)
		return -1;
	t->open = 0;
	for (int cell = 0; cell < cells; cell++) {
		if (t->value[cell]) {
			t->fixed[cell] = true;
			t->root[cell] = bit(t->value[cell]);
		} else {
			t->root[cell] = domain(t, cell);
			t->open_cells[t->open++] = cell;
		}
	}
	return 0;
}

/* ExpireFeature (Alg. 4, line 14): the oldest feature leaves the list. */
static void expire_feature(struct tabu *t)
{
	int feature = t->tabu_ring[t->tabu_head];
	if (--t->tabu_count[feature] == 0)
		t->tabu_mask[feature / t->stride] &= ~bit(feature % t->stride);
	t->tabu_head = (t->tabu_head + 1) % (tabu_size + 3);
	t->tabu_len--;
}

/* The state to begin a try from: the filtered puzzle, an empty tabu list. */
static void begin_try(struct tabu *t)
{
	for (int i = 0; i < t->open; i++)
		if (t->value[t->open_cells[i]])
			unassign(t, t->open_cells[i]);
	while (t->tabu_len)
		expire_feature(t);
}

/* The distinct assigned peers holding v, which a move (cell, v) empties. */
static int holders(const struct tabu *t, int cell, int v, int out[3])
{
	int n = 0;
	int p = t->row_pos[t->row_of[cell] * t->stride + v];
	if (p >= 0)
		out[n++] = p;
	p = t->col_pos[t->col_of[cell] * t->stride + v];
	if (p >= 0)
		out[n++] = p;
	p = t->box_pos[t->box_of[cell] * t->stride + v];
	if (p >= 0 && (n == 0 || out[0] != p) && (n < 2 || out[1] != p))
		out[n++] = p;
	return n;
}

/* Whether a move may change this cell (--moves). */
static bool movable(const struct tabu *t, int cell)
{
	return move_kind == 1 || !t->value[cell];
}

/* The values a move may give a cell, less the tabu ones, by how many of
 * its peers hold them (k[0] to k[3]: the peers the move empties). Bit
 * sets, so that a cell's moves cost a few word operations: a value's
 * holders are its row's, its column's, and its box's unless that one is
 * in the cell's row or column already. */
static void move_sets(const struct tabu *t, int cell, uint64_t k[4])
{
	const int r = t->row_of[cell], c = t->col_of[cell], n = t->box;
	const uint64_t row = t->row_mask[r], col = t->col_mask[c];
	const uint64_t box = t->box_mask[t->box_of[cell]] & ~t->row_box_mask[r * n + c / n] &
			     ~t->col_box_mask[c * n + r / n];
	uint64_t values = t->root[cell] & ~t->tabu_mask[cell];
	if (t->value[cell])
		values &= ~bit(t->value[cell]);
	const uint64_t some = row | col | box, odd = row ^ col ^ box, three = row & col & box;
	k[0] = values & ~some;
	k[1] = values & odd & ~three;
	k[2] = values & some & ~odd;
	k[3] = values & three;
}

/* Sizes S_best's neighbourhood (less the tabu moves) and its classes. */
static void neighbourhood(struct tabu *t)
{
	t->nmoves = 0;
	memset(t->class_size, 0, sizeof t->class_size);
	for (int i = 0; i < t->open; i++) {
		const int cell = t->open_cells[i];
		if (!movable(t, cell))
			continue;
		uint64_t k[4];
		move_sets(t, cell, k);
		const int shift = t->value[cell] ? 1 : 0; /* class = k - (empty) + 1 */
		for (int j = 0; j < 4; j++) {
			int count = cp_popcount(k[j]);
			t->class_size[j + shift] += count;
			t->nmoves += count;
		}
	}
}

/* The rank-th move (from 0) of class `class`, in cell and value order. */
static struct move class_move(const struct tabu *t, int class, int rank)
{
	for (int i = 0;; i++) {
		const int cell = t->open_cells[i];
		if (!movable(t, cell))
			continue;
		const int j = class - (t->value[cell] ? 1 : 0);
		if (j < 0 || j > 3)
			continue;
		uint64_t k[4];
		move_sets(t, cell, k);
		int count = cp_popcount(k[j]);
		if (rank >= count) {
			rank -= count;
			continue;
		}
		uint64_t m = k[j];
		while (rank--)
			m &= m - 1;
		return (struct move){cell, cp_first_value(m), class - 1};
	}
}

/* One spin of the roulette wheel: a move with probability proportional to
 * its fitness 1 / (2 + d). */
static struct move spin(struct tabu *t)
{
	double weight[5], total = 0;
	for (int c = 0; c < 5; c++) {
		weight[c] = t->class_size[c] / (1.0 + c);
		total += weight[c];
	}
	double x = rng_double(&t->rng) * total;
	int chosen = -1;
	for (int c = 0; c < 5 && chosen < 0; c++) {
		if (t->class_size[c] && x < weight[c])
			chosen = c;
		else
			x -= weight[c];
	}
	if (chosen < 0) /* rounding: the last class */
		for (int c = 4; c >= 0 && chosen < 0; c--)
			if (t->class_size[c])
				chosen = c;
	return class_move(t, chosen, (int)rng_below(&t->rng, (uint32_t)t->class_size[chosen]));
}

/* --rank=move: the best of `spins` roulette-wheel draws (Alg. 4, lines 5-8): the draw
 * with the least cost change d, the first such on ties. Every move's slice
 * is 1 / (2 + d), so all moves of one d are alike, and the result has a
 * closed form that costs no draw per spin: the best draw has cost change
 * d with probability (1 - P(< d))^spins - (1 - P(<= d))^spins, P(...) the
 * wheel's share of those moves, and within its class it is uniform. The
 * same distribution as spinning, in time independent of the list size
 * (contrib/bench/code-notes.md). */
static struct move best_candidate(struct tabu *t, int spins)
{
	double weight[5], total = 0;
	for (int c = 0; c < 5; c++) {
		weight[c] = t->class_size[c] / (1.0 + c);
		total += weight[c];
	}
	double x = rng_double(&t->rng), below = 0;
	int chosen = -1;
	for (int c = 0; c < 5 && chosen < 0; c++) {
		if (!t->class_size[c])
			continue;
		double p = pow(1 - below / total, spins) - pow(1 - (below + weight[c]) / total, spins);
		below += weight[c];
		if (x < p)
			chosen = c;
		else
			x -= p;
	}
	if (chosen < 0) /* rounding: the last class */
		for (int c = 4; c >= 0 && chosen < 0; c--)
			if (t->class_size[c])
				chosen = c;
	return class_move(t, chosen, (int)rng_below(&t->rng, (uint32_t)t->class_size[chosen]));
}

static void add_feature(struct tabu *t, int cell, int v)
{
	const int ring = tabu_size + 3;
	int feature = cell * t->stride + v;
	t->tabu_ring[(t->tabu_head + t->tabu_len) % ring] = feature;
	t->tabu_len++;
	t->tabu_count[feature]++;
	t->tabu_mask[cell] |= bit(v);
	while (t->tabu_len > tabu_size)
		expire_feature(t);
}

/* Makes the move and filters the result with AC3 (Alg. 4, line 9), every
 * change logged. The assignments the move takes away (the emptied peers',
 * and the cell's own old one) go to out and lost: FeatureDifferences.
 * Returns how many. */
static int make_candidate(struct tabu *t, const struct move *m, int out[4], int lost[4])
{
	int n = holders(t, m->cell, m->value, out);
	t->nlog = 0;
	for (int i = 0; i < n; i++) {
		lost[i] = t->value[out[i]];
		logged_unassign(t, out[i]);
		look_at(t, out[i]);
	}
	if (t->value[m->cell]) {
		out[n] = m->cell;
		lost[n++] = t->value[m->cell];
		logged_unassign(t, m->cell);
	}
	logged_assign(t, m->cell, m->value);
	look_at_peers(t, m->cell);
	ac3(t);
	return n;
}

enum iteration_result { ITER_ACCEPTED, ITER_REJECTED, ITER_STUCK };

/* One iteration of Alg. 4 (lines 4-16). */
static enum iteration_result iterate(struct tabu *t)
{
	neighbourhood(t);
	if (t->nmoves == 0)
		return ITER_STUCK; /* every move is tabu */
	const int spins = candidate_count ? candidate_count : t->nmoves;
	const int cost_before = t->empty;
	struct move best;
	if (rank_kind == 0) {
		/* each candidate filtered and counted, then undone; the best
		 * (the first on ties) is made again below */
		int best_cost = 0;
		for (int i = 0; i < spins; i++) {
			struct move m = spin(t);
			int out[4], lost[4];
			make_candidate(t, &m, out, lost);
			if (i == 0 || t->empty < best_cost) {
				best_cost = t->empty;
				best = m;
			}
			undo(t);
		}
	} else {
		best = best_candidate(t, spins);
	}
	int out[4], lost[4];
	int nlost = make_candidate(t, &best, out, lost);
	if (t->empty > cost_before) {
		undo(t);
		return ITER_REJECTED;
	}
	t->nlog = 0;
	for (int i = 0; i < nlost; i++)
		add_feature(t, out[i], lost[i]);
	return ITER_ACCEPTED;
}

enum scan_result { SCAN_FREE, SCAN_STUCK, SCAN_STOPPED };

/* After a rejection: is any move of the neighbourhood (the same as the
 * iteration's: a rejection changes neither S_best nor the tabu list)
 * acceptable? When
 * none is, every later iteration of the try would be rejected as well:
 * S_best is a fixpoint of Alg. 4, and the try is over. Ending it here
 * gives what running out its iterations would, sooner. */
static enum scan_result scan_for_escape(struct tabu *t, struct worker_ctx *ctx)
{
	const int cost = t->empty;
	int tried = 0;
	for (int i = 0; i < t->open; i++) {
		const int cell = t->open_cells[i];
		if (!movable(t, cell))
			continue;
		uint64_t k[4];
		move_sets(t, cell, k);
		for (uint64_t m = k[0] | k[1] | k[2] | k[3]; m; m &= m - 1) {
			if ((++tried & 63) == 0 && worker_should_stop(ctx))
				return SCAN_STOPPED;
			const struct move move = {cell, cp_first_value(m), 0};
			int out[4], lost[4];
			make_candidate(t, &move, out, lost);
			bool acceptable = t->empty <= cost;
			undo(t);
			if (acceptable)
				return SCAN_FREE;
		}
	}
	return SCAN_STUCK;
}

static enum solve_status tabu_solve(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	struct tabu t;
	enum solve_status status = SOLVE_GAVEUP;
	uint64_t iterations = 0, restarts = 0, try_iterations = 0;
	if (tabu_alloc(&t, puzzle) < 0) {
		snprintf(res->reason, sizeof res->reason, "memory");
		tabu_free(&t);
		return SOLVE_GAVEUP;
	}
	rng_seed(&t.rng, worker_seed(ctx));
	if (preprocess(&t) < 0) {
		/* AC3 emptied a domain with the givens alone */
		snprintf(res->reason, sizeof res->reason, "unsat");
		goto done;
	}
	uint64_t work = 0;
	int best_cost = t.empty;
	bool scanned = false; /* since the last acceptance */
	begin_try(&t);
	while (t.empty > 0) {
		if (max_iterations && iterations >= (uint64_t)max_iterations) {
			snprintf(res->reason, sizeof res->reason, "iterations");
			goto done;
		}
		if (try_length && try_iterations >= (uint64_t)try_length) {
			begin_try(&t);
			restarts++;
			try_iterations = 0;
			scanned = false;
		}
		iterations++;
		try_iterations++;
		enum iteration_result r = iterate(&t);
		if (r == ITER_ACCEPTED) {
			scanned = false;
		} else if (r == ITER_STUCK || !scanned) {
			enum scan_result sr = r == ITER_STUCK ? SCAN_STUCK : scan_for_escape(&t, ctx);
			scanned = true;
			work += (uint64_t)t.nmoves * 16;
			if (sr == SCAN_STOPPED) {
				status = SOLVE_STOPPED;
				goto done;
			}
			if (sr == SCAN_STUCK) {
				if (!try_length) {
					/* one endless try, and it can no longer move */
					snprintf(res->reason, sizeof res->reason, "stuck");
					goto done;
				}
				try_iterations = (uint64_t)try_length;
			}
		}
		if (t.empty < best_cost)
			best_cost = t.empty;
		work += (uint64_t)t.nmoves + 64;
		if (work >= 8192) {
			work = 0;
			if (worker_should_stop(ctx)) {
				status = SOLVE_STOPPED;
				goto done;
			}
			if (worker_progress_wanted(ctx))
				worker_progress(ctx, "iteration=%llu cost=%d best=%d restarts=%llu",
						(unsigned long long)iterations, t.empty, best_cost,
						(unsigned long long)restarts);
		}
	}
	/* cost 0: a full assignment without conflicts; checked all the same */
	grid_from_cells(&res->solution, puzzle->box, t.value);
	if (grid_verify(puzzle, &res->solution, NULL, 0))
		status = SOLVE_SOLVED;
	else
		snprintf(res->reason, sizeof res->reason, "internal-error");
done:
	if (summary)
		worker_progress(ctx, "iteration=%llu cost=%d restarts=%llu ms=%.3f",
				(unsigned long long)iterations, t.empty, (unsigned long long)restarts,
				worker_elapsed_ms(ctx));
	res->nodes = iterations;
	tabu_free(&t);
	return status;
}

const struct worker_algorithm worker_algorithm = {
	.name = "tabu",
	.summary = "Hybrid AC3-tabu search: arc consistency filtering inside a tabu search.",
	.source = "Soto et al., A hybrid AC3-tabu search algorithm for solving Sudoku puzzles, 3-4",
	.kind = WORKER_STOCHASTIC,
	.min_box = 2,
	.max_box = 8,
	.options = tabu_options,
	.solve = tabu_solve,
};
