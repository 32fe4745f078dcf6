/* sudoku-hill: heuristic steepest-ascent hill climbing in the space of
 * box permutations, after Jones, Roach & Perkins, "Construction of
 * Heuristics for a Search-Based Approach to Solving Sudoku" (seeds/
 * hill-climbing-heuristics.txt).
 *
 *   state (3, 4.2)      every box holds exactly the digits its givens miss,
 *                       so the box rule always holds;
 *   move (3, 4.2)       swap two non-given cells of one box; the
 *                       neighbourhood is every such swap of every box;
 *   objective (4.3)     f = w1*f1 + w2*f2 (w1 = 1, w2 = -1): f1 counts the
 *                       distinct digits of every row and every column, f2
 *                       the clashes between a given and a non-given digit;
 *                       a state is a solution when f1 = 2*N*N;
 *   search (4.1)        steepest ascent: the whole neighbourhood is scored
 *                       (incrementally: a swap changes two rows and two
 *                       columns at most) and the best successor is taken;
 *   initial state (4.4) the greedy placement of Figure 3, then the
 *                       post-swapping of clashes with givens;
 *   plateaus (4.5)      a priority queue of the best states: when its 10
 *                       best share one score and none has a better
 *                       successor, the search restarts from a new initial
 *                       state.
 *
 * Where the paper is vague, the choices made here (each also noted at its
 * place below):
 * - The queue (4.1, 4.5). The paper began with best-first search over a
 *   priority queue of unexplored states and kept the queue "as a means of
 *   detecting plateaus". Here the queue is bounded (--queue, default 10 =
 *   the paper's cutoff) and holds the best states met since the last
 *   (re)start, each marked once expanded. An iteration expands the best
 *   unexpanded state (on equal scores the newest) and offers its best
 *   successors to the queue. While a better successor exists this is
 *   plain steepest ascent: the best successor is the best unexpanded
 *   state. A successor enters when it scores above the queue's worst
 *   state, or (the plateau walk, --plateau-walk, the default) when it
 *   scores the same as a worst state that is already expanded and has
 *   not itself been expanded since the restart: as in the paper's queue
 *   of unexplored states, fresh states of the plateau's score replace the
 *   spent ones. When every state in the queue is expanded, the 10 best
 *   share one score (or are local maxima) and none has a better or new
 *   successor: a plateau, and the search restarts. --no-plateau-walk lets
 *   only better states in, so that a plateau ends the climb as soon as
 *   the 10 states on it are spent. Why the walk is the default: the
 *   paper's Figures 5 and 6 need hundreds of iterations per climb (234
 *   iterations and 0.12 restarts for its easy puzzles), far more than
 *   the few dozen improving moves a climb from the greedy start can make;
 *   and it reaches solutions in fewer iterations, with fewer restarts and
 *   in less time than --no-plateau-walk (contrib/bench/code-notes.md). The
 *   walk remembers the states it expanded (at most 2^20 a climb; a longer
 *   walk counts as a plateau), so no state is expanded twice between
 *   restarts and the search never cycles.
 * - f2 (4.3): the printed formula counts clashes along a given's column;
 *   the text says "clashes between any given and non-given digits", so
 *   both the row and the column of each given count here.
 * - Ties between equally good successors are broken at random (the seed
 *   decides), so restarts and runs differ.
 * - Figure 3 (the greedy placement) is not in the text copy: here each
 *   box's empty cells are visited in reading order and each takes the
 *   first of the box's still unplaced digits that clashes with no given of
 *   its row and column, the digits being tried in a random order (so that
 *   a restart gets "a new initial state", 4.5); cells left without such a
 *   digit take the leftover digits. Then post-swapping (4.4): a non-given
 *   digit that clashes with a given is swapped with the first other
 *   non-given cell of its box, in random order, for which neither digit
 *   clashes with a given after the swap.
 * - An iteration is the expansion of one state (one move, the paper's
 *   unit); --max-iterations (not in the paper, default none) bounds the
 *   search. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "rng.h"
#include "worker.h"

static double weight_distinct = 1.0;  /* w1 */
static double weight_clashes = -1.0;  /* w2 */
static int queue_size = 10;
static bool plateau_walk = true;
static bool greedy_init = true;
static bool post_swap = true;
static int max_iterations = 0;
static bool summary = false;

static const struct worker_option hill_options[] = {
	{"w1", OPT_DOUBLE, &weight_distinct, -1000, 1000, NULL,
	 "weight of f1, the distinct digits of the rows and columns (4.3)"},
	{"w2", OPT_DOUBLE, &weight_clashes, -1000, 1000, NULL,
	 "weight of f2, the clashes of non-given digits with givens (4.3)"},
	{"queue", OPT_INT, &queue_size, 1, 1000, NULL,
	 "priority queue size: restart when it holds only spent states (4.5)"},
	{"plateau-walk", OPT_FLAG, &plateau_walk, 0, 0, NULL,
	 "new states of the queue's lowest score may replace spent ones (4.5)"},
	{"greedy", OPT_FLAG, &greedy_init, 0, 0, NULL,
	 "greedy initial placement, Figure 3 (--no-greedy: random order)"},
	{"post-swap", OPT_FLAG, &post_swap, 0, 0, NULL,
	 "post-swap digits that clash with givens after the placement (4.4)"},
	{"max-iterations", OPT_INT, &max_iterations, 0, 2000000000, NULL,
	 "give up after this many iterations, 0: never"},
	{"summary", OPT_FLAG, &summary, 0, 0, NULL,
	 "report the effort (iterations, restarts, ms) when a puzzle ends"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* A state kept in the priority queue. */
struct entry {
	double score;
	int f1, f2;
	uint64_t hash; /* of the non-given digits, to reject duplicates */
	uint64_t seq;  /* insertion order: on equal scores the newest is expanded first */
	uint64_t parent; /* the seq of the state it is a swap (a, b) away from */
	int a, b;
	bool expanded;
	uint8_t *cells;
};

/* A successor good enough to be offered to the queue. */
struct successor {
	double score;
	uint64_t tie; /* random: breaks ties among equal scores */
	int a, b;     /* the swapped cells */
};

struct hill {
	int box, side, cells;
	int target_f1; /* 2*N*N: every row and column holds N distinct digits */
	const uint8_t *given_value; /* the puzzle: 0 where open */
	const struct geometry *geo; /* its units */
	const uint8_t *row_of, *col_of; /* geo's */
	int *free_cells; /* [box * side + i]: the i-th non-given cell of a box */
	int *free_count; /* [box] */
	uint8_t *missing; /* [box * side + i]: the digits the box's givens miss */
	/* clash[cell * (N+1) + v]: the givens of the cell's row and column
	 * that hold v (0 to 2), what v costs in f2 there */
	uint8_t *clash;
	uint64_t *zobrist; /* [cell * (N+1) + v]: the hash of digit v in cell */
	/* counts of each digit in each row and column of the current state */
	uint16_t *row_count, *col_count;
	uint8_t *cur; /* the state being expanded */
	uint64_t cur_seq; /* its seq in the queue, or NO_SEQ */
	int f1, f2;
	uint64_t hash;
	long neighbourhood; /* swaps per state */

	struct entry *queue;
	int queued;
	uint64_t next_seq;
	struct successor *best; /* the best successors of one expansion */
	int nbest;
	/* the hashes of the states expanded since the last (re)start, for
	 * the plateau walk: open addressing, an entry valid when its
	 * generation is the current one, so that a restart clears it at once */
	struct visited {
		uint64_t hash;
		uint64_t generation;
	} *visited;
	size_t visited_size, nvisited; /* size: a power of two */
	uint64_t generation;

	struct rng rng;
	uint64_t iterations, restarts;
	double best_score; /* the best score since the search began */
};

#define NO_SEQ UINT64_MAX
/* The plateau walk's memory: at most this many states per climb (a table
 * of twice as many 16-byte entries, 32 MB). */
#define VISITED_MAX ((size_t)1 << 20)

static uint64_t digit_hash_of(int cell, int v)
{
	uint64_t x = (uint64_t)cell * 97 + (uint64_t)v;
	return rng_splitmix64(&x);
}

static inline uint64_t digit_hash(const struct hill *h, int cell, int v)
{
	return h->zobrist[cell * (h->side + 1) + v];
}

static inline int clashes_with_givens(const struct hill *h, int cell, int v)
{
	return h->clash[cell * (h->side + 1) + v];
}

static void hill_free(struct hill *h)
{
	free(h->free_cells);
	free(h->free_count);
	free(h->missing);
	free(h->clash);
	free(h->zobrist);
	free(h->row_count);
	free(h->col_count);
	free(h->cur);
	if (h->queue)
		for (int i = 0; i < queue_size; i++)
			free(h->queue[i].cells);
	free(h->queue);
	free(h->best);
	free(h->visited);
}

static int hill_alloc(struct hill *h, const struct grid *puzzle)
{
	const int n = puzzle->box, side = puzzle->side, cells = puzzle->cells;
	memset(h, 0, sizeof *h);
	h->box = n;
	h->side = side;
	h->cells = cells;
	h->target_f1 = 2 * side * side;
	h->given_value = puzzle->cell;
	h->geo = geometry_get(n);
	h->row_of = h->geo->row_of;
	h->col_of = h->geo->col_of;
	h->free_cells = malloc(sizeof(int) * (size_t)cells);
	h->free_count = calloc((size_t)side, sizeof(int));
	h->missing = malloc((size_t)cells);
	h->clash = calloc((size_t)cells * (size_t)(side + 1), 1);
	h->zobrist = malloc(sizeof *h->zobrist * (size_t)cells * (size_t)(side + 1));
	h->row_count = calloc((size_t)(side * (side + 1)), sizeof(uint16_t));
	h->col_count = calloc((size_t)(side * (side + 1)), sizeof(uint16_t));
	h->cur = malloc((size_t)cells);
	h->queue = calloc((size_t)queue_size, sizeof *h->queue);
	h->best = calloc((size_t)queue_size, sizeof *h->best);
	if (!h->free_cells || !h->free_count || !h->missing ||
	    !h->clash || !h->zobrist || !h->row_count || !h->col_count || !h->cur ||
	    !h->queue || !h->best)
		return -1;
	for (int i = 0; i < queue_size; i++)
		if (!(h->queue[i].cells = malloc((size_t)cells)))
			return -1;

	for (int b = 0; b < side; b++) {
		bool present[GRID_MAX_SIDE + 1] = {false};
		const uint16_t *box_cells = geometry_unit(h->geo, 2 * side + b);
		for (int i = 0; i < side; i++) {
			int cell = box_cells[i], v = puzzle->cell[cell];
			if (v)
				present[v] = true;
			else
				h->free_cells[b * side + h->free_count[b]++] = cell;
		}
		int k = 0;
		for (int v = 1; v <= side; v++)
			if (!present[v])
				h->missing[b * side + k++] = (uint8_t)v;
		h->neighbourhood += (long)h->free_count[b] * (h->free_count[b] - 1) / 2;
	}
	for (int cell = 0; cell < cells; cell++)
		for (int v = 0; v <= side; v++)
			h->zobrist[cell * (side + 1) + v] = digit_hash_of(cell, v);
	for (int cell = 0; cell < cells; cell++) {
		int v = puzzle->cell[cell];
		if (!v)
			continue;
		for (int k = 0; k < side; k++) {
			h->clash[(h->row_of[cell] * side + k) * (side + 1) + v]++;
			h->clash[(k * side + h->col_of[cell]) * (side + 1) + v]++;
		}
	}
	return 0;
}

static void shuffle(struct rng *r, uint8_t *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rng_below(r, (uint32_t)i + 1);
		uint8_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static void shuffle_int(struct rng *r, int *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rng_below(r, (uint32_t)i + 1);
		int t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* Figure 3 and 4.4: a new initial state in h->cur. */
static void initial_state(struct hill *h)
{
	const int side = h->side;
	memcpy(h->cur, h->given_value, (size_t)h->cells);
	for (int b = 0; b < side; b++) {
		const int nfree = h->free_count[b];
		const int *cells = &h->free_cells[b * side];
		uint8_t digits[GRID_MAX_SIDE];
		memcpy(digits, &h->missing[b * side], (size_t)nfree);
		shuffle(&h->rng, digits, nfree);
		if (!greedy_init) {
			for (int i = 0; i < nfree; i++)
				h->cur[cells[i]] = digits[i];
			continue;
		}
		/* greedy: each cell takes the first unplaced digit that clashes
		 * with no given; the cells left over take what is left */
		bool placed[GRID_MAX_SIDE] = {false};
		int left[GRID_MAX_SIDE], nleft = 0;
		for (int i = 0; i < nfree; i++) {
			int k;
			for (k = 0; k < nfree; k++)
				if (!placed[k] && !clashes_with_givens(h, cells[i], digits[k]))
					break;
			if (k < nfree) {
				placed[k] = true;
				h->cur[cells[i]] = digits[k];
			} else {
				left[nleft++] = cells[i];
			}
		}
		for (int k = 0, i = 0; k < nfree; k++)
			if (!placed[k])
				h->cur[left[i++]] = digits[k];
	}
	if (!post_swap)
		return;
	for (int b = 0; b < side; b++) {
		const int nfree = h->free_count[b];
		const int *cells = &h->free_cells[b * side];
		for (int i = 0; i < nfree; i++) {
			int a = cells[i];
			if (!clashes_with_givens(h, a, h->cur[a]))
				continue;
			int order[GRID_MAX_SIDE];
			memcpy(order, cells, sizeof(int) * (size_t)nfree);
			shuffle_int(&h->rng, order, nfree);
			for (int k = 0; k < nfree; k++) {
				int c = order[k];
				if (c == a || clashes_with_givens(h, a, h->cur[c]) ||
				    clashes_with_givens(h, c, h->cur[a]))
					continue;
				uint8_t t = h->cur[a];
				h->cur[a] = h->cur[c];
				h->cur[c] = t;
				break;
			}
		}
	}
}

/* Recounts the digits of h->cur: f1, f2, the counts and the hash. */
static void load_state(struct hill *h)
{
	const int side = h->side, stride = side + 1;
	memset(h->row_count, 0, sizeof(uint16_t) * (size_t)(side * stride));
	memset(h->col_count, 0, sizeof(uint16_t) * (size_t)(side * stride));
	h->f2 = 0;
	h->hash = 0;
	for (int cell = 0; cell < h->cells; cell++) {
		int v = h->cur[cell];
		h->row_count[h->row_of[cell] * stride + v]++;
		h->col_count[h->col_of[cell] * stride + v]++;
		if (!h->given_value[cell]) {
			h->f2 += clashes_with_givens(h, cell, v);
			h->hash ^= digit_hash(h, cell, v);
		}
	}
	h->f1 = 0;
	for (int i = 0; i < side * stride; i++)
		h->f1 += (h->row_count[i] > 0) + (h->col_count[i] > 0);
}

static double score_of(int f1, int f2)
{
	return weight_distinct * f1 + weight_clashes * f2;
}

/* Change of f1 when digit out leaves a row or column and digit in enters
 * it (out != in: a box never holds a digit twice). */
static inline int distinct_change(const uint16_t *count, int out, int in)
{
	return (count[in] == 0) - (count[out] == 1);
}

/* The changes of f1 and f2 if cells a and b (one box) swapped digits. */
static inline void swap_change(const struct hill *h, int a, int b, int *d1, int *d2)
{
	const int stride = h->side + 1;
	const int va = h->cur[a], vb = h->cur[b];
	const int ra = h->row_of[a], rb = h->row_of[b], ca = h->col_of[a], cb = h->col_of[b];
	int f1 = 0;
	if (ra != rb) {
		f1 += distinct_change(&h->row_count[ra * stride], va, vb);
		f1 += distinct_change(&h->row_count[rb * stride], vb, va);
	}
	if (ca != cb) {
		f1 += distinct_change(&h->col_count[ca * stride], va, vb);
		f1 += distinct_change(&h->col_count[cb * stride], vb, va);
	}
	*d1 = f1;
	*d2 = clashes_with_givens(h, a, vb) + clashes_with_givens(h, b, va) -
	      clashes_with_givens(h, a, va) - clashes_with_givens(h, b, vb);
}

static void apply_swap(struct hill *h, int a, int b, int d1, int d2)
{
	const int stride = h->side + 1;
	const int va = h->cur[a], vb = h->cur[b];
	const int ra = h->row_of[a], rb = h->row_of[b], ca = h->col_of[a], cb = h->col_of[b];
	h->row_count[ra * stride + va]--;
	h->row_count[ra * stride + vb]++;
	h->row_count[rb * stride + vb]--;
	h->row_count[rb * stride + va]++;
	h->col_count[ca * stride + va]--;
	h->col_count[ca * stride + vb]++;
	h->col_count[cb * stride + vb]--;
	h->col_count[cb * stride + va]++;
	h->cur[a] = (uint8_t)vb;
	h->cur[b] = (uint8_t)va;
	h->hash ^= digit_hash(h, a, va) ^ digit_hash(h, a, vb) ^ digit_hash(h, b, vb) ^
		   digit_hash(h, b, va);
	h->f1 += d1;
	h->f2 += d2;
}

/* --- the priority queue (4.5) --- */

static bool entry_before(const struct entry *x, const struct entry *y)
{
	return x->score > y->score || (x->score == y->score && x->seq > y->seq);
}

/* The order of eviction: the lowest score first, a spent state before a
 * new one of its score, then the oldest. */
static bool evict_before(const struct entry *x, const struct entry *y)
{
	if (x->score != y->score)
		return x->score < y->score;
	if (x->expanded != y->expanded)
		return x->expanded;
	return x->seq < y->seq;
}

/* The queue's worst state (the one a newcomer would evict), or -1 while
 * the queue has room. */
static int queue_worst(const struct hill *h)
{
	if (h->queued < queue_size)
		return -1;
	int worst = 0;
	for (int i = 1; i < h->queued; i++)
		if (evict_before(&h->queue[i], &h->queue[worst]))
			worst = i;
	return worst;
}

/* Whether a newcomer of this score may take the place of the worst state:
 * a better one always; with the plateau walk, one of the same score when
 * that state is spent (the newcomer must not have been expanded before). */
static bool may_replace(const struct entry *worst, double score)
{
	return score > worst->score || (plateau_walk && worst->expanded && score == worst->score);
}

static bool visited_has(const struct hill *h, uint64_t hash)
{
	if (!h->visited)
		return false;
	for (size_t i = hash & (h->visited_size - 1);; i = (i + 1) & (h->visited_size - 1)) {
		const struct visited *v = &h->visited[i];
		if (v->generation != h->generation)
			return false;
		if (v->hash == hash)
			return true;
	}
}

/* Remembers an expanded state. Returns -1 when the walk's memory is full
 * (or out of memory): the climb is then over. */
static int visited_add(struct hill *h, uint64_t hash)
{
	if ((h->nvisited + 1) * 2 > h->visited_size) {
		size_t size = h->visited_size ? h->visited_size * 2 : 1024;
		if (size > VISITED_MAX * 2)
			return -1;
		struct visited *table = calloc(size, sizeof *table);
		if (!table)
			return -1;
		/* generation 0 is never current: the new table starts empty */
		struct visited *old = h->visited;
		size_t old_size = h->visited_size;
		h->visited = table;
		h->visited_size = size;
		h->nvisited = 0;
		for (size_t i = 0; i < old_size; i++)
			if (old[i].generation == h->generation)
				visited_add(h, old[i].hash);
		free(old);
	}
	size_t i = hash & (h->visited_size - 1);
	while (h->visited[i].generation == h->generation) {
		if (h->visited[i].hash == hash)
			return 0;
		i = (i + 1) & (h->visited_size - 1);
	}
	h->visited[i] = (struct visited){hash, h->generation};
	h->nvisited++;
	return 0;
}

static void queue_clear(struct hill *h)
{
	h->queued = 0;
	h->generation++;
	h->nvisited = 0;
}

/* Offers h->cur (with its score and hash), a swap (a, b) away from the
 * state numbered parent, to the queue. Returns its seq, or NO_SEQ when it
 * does not enter. */
static uint64_t queue_offer_current(struct hill *h, uint64_t parent, int a, int b)
{
	for (int i = 0; i < h->queued; i++)
		if (h->queue[i].hash == h->hash &&
		    memcmp(h->queue[i].cells, h->cur, (size_t)h->cells) == 0)
			return NO_SEQ;
	double score = score_of(h->f1, h->f2);
	int slot = queue_worst(h);
	if (slot < 0)
		slot = h->queued++;
	else if (!may_replace(&h->queue[slot], score) ||
		 (score == h->queue[slot].score && visited_has(h, h->hash)))
		return NO_SEQ;
	struct entry *e = &h->queue[slot];
	e->parent = parent;
	e->a = a;
	e->b = b;
	e->score = score;
	e->f1 = h->f1;
	e->f2 = h->f2;
	e->hash = h->hash;
	e->seq = h->next_seq++;
	e->expanded = false;
	memcpy(e->cells, h->cur, (size_t)h->cells);
	return e->seq;
}

/* The best unexpanded state, or -1 when every state in the queue is spent. */
static int queue_next(const struct hill *h)
{
	int next = -1;
	for (int i = 0; i < h->queued; i++)
		if (!h->queue[i].expanded && (next < 0 || entry_before(&h->queue[i], &h->queue[next])))
			next = i;
	return next;
}

/* Keeps the queue_size best successors of one expansion in h->best. */
static void keep_successor(struct hill *h, double score, int a, int b)
{
	uint64_t tie = rng_next(&h->rng);
	int slot;
	if (h->nbest < queue_size) {
		slot = h->nbest++;
	} else {
		slot = 0;
		for (int i = 1; i < h->nbest; i++)
			if (h->best[i].score < h->best[slot].score ||
			    (h->best[i].score == h->best[slot].score && h->best[i].tie < h->best[slot].tie))
				slot = i;
		if (score < h->best[slot].score || (score == h->best[slot].score && tie < h->best[slot].tie))
			return;
	}
	h->best[slot] = (struct successor){score, tie, a, b};
}

static bool successor_before(const struct successor *p, const struct successor *q)
{
	return p->score < q->score || (p->score == q->score && p->tie < q->tie);
}

/* Sorts the kept successors worst first (a few: insertion sort). */
static void sort_successors(struct successor *s, int n)
{
	for (int i = 1; i < n; i++) {
		struct successor x = s[i];
		int j = i;
		for (; j > 0 && successor_before(&x, &s[j - 1]); j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
}

enum expand_result { EXPAND_ON, EXPAND_GOAL };

/* Scores the whole neighbourhood of h->cur and offers its best successors
 * to the queue. On a goal state, leaves it in h->cur. */
static enum expand_result expand(struct hill *h)
{
	const int side = h->side;
	const double base = score_of(h->f1, h->f2);
	/* a successor must beat the queue's worst to enter at all */
	int worst = queue_worst(h);
	double floor_score = worst < 0 ? -1e300 : h->queue[worst].score;
	bool floor_strict = worst >= 0 && !may_replace(&h->queue[worst], floor_score);
	h->nbest = 0;
	const int stride = side + 1;
	for (int b = 0; b < side; b++) {
		const int nfree = h->free_count[b];
		const int *cells = &h->free_cells[b * side];
		/* what the scoring of this box's swaps reads, gathered once */
		struct slot {
			int v, row, col;
			int row_single, col_single; /* v is alone in its row / column */
			const uint16_t *row_count, *col_count;
			const uint8_t *clash;
		} slot[GRID_MAX_SIDE];
		for (int i = 0; i < nfree; i++) {
			struct slot *x = &slot[i];
			const int cell = cells[i];
			x->v = h->cur[cell];
			x->row = h->row_of[cell];
			x->col = h->col_of[cell];
			x->row_count = &h->row_count[x->row * stride];
			x->col_count = &h->col_count[x->col * stride];
			x->row_single = x->row_count[x->v] == 1;
			x->col_single = x->col_count[x->v] == 1;
			x->clash = &h->clash[cell * stride];
		}
		for (int i = 0; i < nfree; i++) {
			const struct slot *x = &slot[i];
			const int x_clash = x->clash[x->v];
			for (int j = i + 1; j < nfree; j++) {
				const struct slot *y = &slot[j];
				/* swap_change, with what it reads gathered in the slots */
				int d1 = 0;
				if (x->row != y->row)
					d1 += (x->row_count[y->v] == 0) - x->row_single +
					      (y->row_count[x->v] == 0) - y->row_single;
				if (x->col != y->col)
					d1 += (x->col_count[y->v] == 0) - x->col_single +
					      (y->col_count[x->v] == 0) - y->col_single;
				int d2 = x->clash[y->v] + y->clash[x->v] - x_clash - y->clash[y->v];
				if (h->f1 + d1 == h->target_f1) {
					apply_swap(h, cells[i], cells[j], d1, d2);
					return EXPAND_GOAL;
				}
				double score = base + weight_distinct * d1 + weight_clashes * d2;
				if (score < floor_score || (floor_strict && score == floor_score))
					continue;
				keep_successor(h, score, cells[i], cells[j]);
				if (h->nbest == queue_size) {
					/* later successors must beat the weakest kept one */
					double weakest = h->best[0].score;
					for (int k = 1; k < h->nbest; k++)
						if (h->best[k].score < weakest)
							weakest = h->best[k].score;
					if (weakest > floor_score || !floor_strict) {
						floor_score = weakest;
						floor_strict = false;
					}
				}
			}
		}
	}
	/* offer them worst first, so that the best is the newest of its score */
	sort_successors(h->best, h->nbest);
	for (int k = 0; k < h->nbest; k++) {
		const struct successor *s = &h->best[k];
		int d1, d2;
		swap_change(h, s->a, s->b, &d1, &d2);
		apply_swap(h, s->a, s->b, d1, d2);
		queue_offer_current(h, h->cur_seq, s->a, s->b);
		swap_change(h, s->a, s->b, &d1, &d2);
		apply_swap(h, s->a, s->b, d1, d2);
	}
	return EXPAND_ON;
}

static void copy_solution(const struct hill *h, struct solve_result *res, const struct grid *puzzle)
{
	grid_from_cells(&res->solution, puzzle->box, h->cur);
}

static enum solve_status hill_solve(const struct grid *puzzle, struct solve_result *res,
				    struct worker_ctx *ctx)
{
	struct hill h;
	enum solve_status status = SOLVE_GAVEUP;
	if (hill_alloc(&h, puzzle) < 0) {
		snprintf(res->reason, sizeof res->reason, "memory");
		hill_free(&h);
		return SOLVE_GAVEUP;
	}
	rng_seed(&h.rng, worker_seed(ctx));
	h.best_score = -1e300;
	uint64_t work = 0; /* swaps scored since the last look at the clock */
	bool start = true;
	for (;;) {
		if (start) {
			/* a (new) initial state: the queue starts afresh (4.5) */
			initial_state(&h);
			load_state(&h);
			queue_clear(&h);
			start = false;
			if (h.f1 == h.target_f1) {
				status = SOLVE_SOLVED;
				break;
			}
			h.cur_seq = queue_offer_current(&h, NO_SEQ, 0, 0);
		}
		int next = queue_next(&h);
		if (next < 0) {
			if (h.neighbourhood == 0) {
				/* one state only, and it is no solution */
				snprintf(res->reason, sizeof res->reason, "unsat");
				break;
			}
			h.restarts++;
			start = true;
			continue;
		}
		struct entry *e = &h.queue[next];
		const double score = e->score;
		e->expanded = true;
		if (plateau_walk && visited_add(&h, e->hash) < 0) {
			/* a walk this long is a plateau too */
			h.restarts++;
			start = true;
			continue;
		}
		if (e->parent != NO_SEQ && e->parent == h.cur_seq) {
			/* the usual case: a successor of the state just expanded */
			int d1, d2;
			swap_change(&h, e->a, e->b, &d1, &d2);
			apply_swap(&h, e->a, e->b, d1, d2);
		} else if (e->seq != h.cur_seq) {
			memcpy(h.cur, e->cells, (size_t)h.cells);
			load_state(&h);
		}
		h.cur_seq = e->seq;
		if (score > h.best_score)
			h.best_score = score;
		h.iterations++;
		if (expand(&h) == EXPAND_GOAL) {
			status = SOLVE_SOLVED;
			break;
		}
		if (max_iterations && h.iterations >= (uint64_t)max_iterations) {
			snprintf(res->reason, sizeof res->reason, "iterations");
			break;
		}
		work += (uint64_t)h.neighbourhood + 64;
		if (work >= 16384) {
			work = 0;
			if (worker_should_stop(ctx)) {
				status = SOLVE_STOPPED;
				break;
			}
			if (worker_progress_wanted(ctx))
				worker_progress(ctx, "iteration=%llu score=%g best=%g restarts=%llu",
						(unsigned long long)h.iterations, score, h.best_score,
						(unsigned long long)h.restarts);
		}
	}
	if (status == SOLVE_SOLVED)
		copy_solution(&h, res, puzzle);
	if (summary)
		worker_progress(ctx, "iteration=%llu restarts=%llu best=%g ms=%.3f",
				(unsigned long long)h.iterations, (unsigned long long)h.restarts,
				h.best_score, worker_elapsed_ms(ctx));
	res->nodes = h.iterations;
	hill_free(&h);
	return status;
}

const struct worker_algorithm worker_algorithm = {
	.name = "hill",
	.summary = "Steepest-ascent hill climbing over in-box swaps, greedy start, plateau restarts.",
	.source = "Jones, Roach & Perkins, Construction of Heuristics for a Search-Based Approach "
		  "to Solving Sudoku, 3-4",
	.kind = WORKER_STOCHASTIC,
	.min_box = 2,
	.max_box = 8,
	.options = hill_options,
	.solve = hill_solve,
};
