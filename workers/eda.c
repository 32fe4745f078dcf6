/* sudoku-eda: RESEDA, the restarted estimation of distribution algorithm of
 * Maire & Prissette (seeds/reseda-eda.txt).
 *
 * Every cell keeps a probability p(i,j,k) for each symbol k (section 2.1).
 * One iteration draws Q complete grids from these probabilities, scores
 * them with the paper's cost (symbols missing from each row, column and
 * block, summed), keeps the Q1 best, and moves the probabilities towards
 * the symbol frequencies r among them: p <- alpha p + (1 - alpha) r
 * (section 2.2). An attempt ends when a grid of cost 0 is drawn, or fails
 * when rho(n) = min over cells of max over symbols of p exceeds beta: the
 * distribution has settled on a local minimum (section 2.3).
 *
 * A failed attempt leaves an approximate solution. RESEDA restarts from the
 * puzzle with one zone of it (a block, row or column that is a
 * permutation) added to the givens, one zone at a time, out of the 3
 * diagonal blocks (the default), the 9 blocks or all 27 zones; when none of
 * these restarts succeeds it starts afresh from the puzzle (sections 4.2
 * and 5.1). For very hard puzzles it can be coupled with brute force: each
 * admissible permutation of one block in turn is added to the givens and
 * RESEDA run on the result (section 5.2).
 *
 * The paper is about 9x9 grids. Here N = n*n for any box size n: blocks are
 * n x n, and the zone sets are the n diagonal blocks, the N blocks, and the
 * 3N rows, columns and blocks ("3", "9" and "27" keep their 9x9 names). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "propagate.h"
#include "rng.h"
#include "worker.h"

/* --- parameters: the paper's values as defaults (section 3.1) --- */

enum sampling { SAMPLE_PRECOMPUTE, SAMPLE_PERMUTATIONS, SAMPLE_BOTH };
enum zones { ZONES_NONE, ZONES_3, ZONES_9, ZONES_27 };
enum selection { SELECT_SORT, SELECT_GROUPS };

static int sample_count = 100; /* Q */
static int kept_count = 10;    /* Q1 */
static double alpha = 0.7;
/* Section 2.3 calls beta "a parameter close to one", but section 3.1 sets
 * the stop at rho(n) = 0.6 and keeps "these parameters ... in all the
 * following numerical tests": the paper's results are all with 0.6. */
static double beta = 0.6;
static int sampling = SAMPLE_BOTH;
static int zones = ZONES_3;
static int selection = SELECT_SORT;
static bool couple = false;
static int couple_block = 1;
static int max_cycles = 0;
static bool deduce = false;
/* Section 2.3 ends an attempt only when rho(n) > beta, which assumes that
 * every cell's distribution concentrates. One that keeps hitting the dead
 * end of the permutation draw (section 3.1: all its allowed symbols are
 * taken in its block) draws uniformly every time, so its probabilities
 * stay near uniform and rho never passes beta: seen on a few of Kennett's
 * hard puzzles, an attempt ran for minutes. So an attempt also fails after
 * max_iterations iterations; by default 100 / (1 - alpha), 333 at the
 * paper's alpha, where nearly all attempts end within 50 (and the slowest
 * rounds to success in its tables, 574 at alpha 0.99, stay well inside
 * 10000). */
static int max_iterations = 0;

static const struct worker_option eda_options[] = {
	{"samples", OPT_INT, &sample_count, 1, 100000, NULL, "Q: grids drawn per iteration"},
	{"keep", OPT_INT, &kept_count, 1, 100000, NULL,
	 "Q1: best grids kept to re-estimate the probabilities"},
	{"alpha", OPT_DOUBLE, &alpha, 0, 0.999999, NULL,
	 "smoothing: p <- alpha p + (1 - alpha) r"},
	{"beta", OPT_DOUBLE, &beta, 0, 1, NULL,
	 "an attempt fails once min(cells) max(symbols) p exceeds beta"},
	{"sampling", OPT_CHOICE, &sampling, 0, 0, "precompute|permutations|both",
	 "drawing: exclude the givens' symbols, fill blocks as permutations, or both"},
	{"zones", OPT_CHOICE, &zones, 0, 0, "none|3|9|27",
	 "partial restarts fix one zone of a failed attempt: none, the diagonal blocks, "
	 "every block, every row, column and block"},
	{"selection", OPT_CHOICE, &selection, 0, 0, "sort|groups",
	 "keep the Q1 best of all Q, or the best of each of Q1 groups of Q/Q1"},
	{"couple", OPT_FLAG, &couple, 0, 0, NULL,
	 "brute force over one block's admissible permutations, RESEDA on each (5.2)"},
	{"couple-block", OPT_INT, &couple_block, 1, GRID_MAX_SIDE, NULL,
	 "the block --couple enumerates, 1 (top left) to N in reading order"},
	{"deduce", OPT_FLAG, &deduce, 0, 0, NULL,
	 "add the clues constraint propagation deduces before each attempt (section 6)"},
	{"max-iterations", OPT_INT, &max_iterations, 0, 1e9, NULL,
	 "an attempt also fails after this many iterations; 0: 100 / (1 - alpha)"},
	{"cycles", OPT_INT, &max_cycles, 0, 1e9, NULL,
	 "give up after this many resolutions (an attempt and its partial restarts); 0: never"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

static int eda_init(struct worker_init *wi, char *msg, size_t msgsz)
{
	(void)wi;
	if (kept_count > sample_count) {
		snprintf(msg, msgsz, "--keep=%d is more than --samples=%d", kept_count, sample_count);
		return -1;
	}
	return 0;
}

/* --- the search state of one puzzle --- */

enum attempt_end { ATTEMPT_SOLVED, ATTEMPT_FAILED, ATTEMPT_INFEASIBLE, ATTEMPT_STOPPED };

struct eda {
	int box, side, cells;
	uint64_t all;          /* the symbol set {1..N}: bit k-1 is symbol k */
	struct rng rng;
	struct worker_ctx *ctx;
	const struct grid *puzzle;

	/* unit u < N is a row, < 2N a column, < 3N a block: geo->unit is
	 * [3N][N], geo->cell_unit [cells][3] (lib/geometry.h) */
	const struct geometry *geo;

	/* one attempt */
	uint8_t *clue;         /* [cells]: givens and fixed cells, 0 elsewhere */
	uint64_t *allowed;     /* [cells]: symbols the sampler may draw */
	double *p;             /* [cells][N]: p[c*N + k-1] = P(cell c holds k) */
	uint8_t *grids;        /* [Q][cells]: this iteration's samples */
	int *cost;             /* [Q] */
	int *kept;             /* [Q1]: indices of the samples kept */
	uint8_t *approx;       /* [cells]: the attempt's lowest-cost sample */
	int approx_cost;

	/* the resolution: base clues (puzzle, plus a block under --couple) */
	uint8_t *base;         /* [cells] */
	uint8_t *scratch;      /* [cells] */

	struct cp_board board; /* --deduce */
	struct grid *clue_grid; /* --deduce: the clues as a grid */

	/* permutation sampling, per block */
	int *open;             /* [N] */

	/* counters */
	long iterations;       /* over the whole solve */
	long restarts;         /* partial restarts */
	long cycles;           /* resolutions started */
	long permutation;      /* --couple: permutations tried */
	int last_cost;         /* best cost of the latest iteration */
	double rho;
	uint64_t drawn;        /* samples drawn: the effort reported */
	uint64_t work, next_poll;
	bool stopped;
};

static bool eda_stop(struct eda *e)
{
	if (e->stopped)
		return true;
	if (e->work < e->next_poll)
		return false;
	e->next_poll = e->work + 20000;
	e->stopped = worker_should_stop(e->ctx);
	return e->stopped;
}

static void eda_progress(struct eda *e)
{
	if (!worker_progress_wanted(e->ctx))
		return;
	if (couple)
		worker_progress(e->ctx,
				"iter=%ld cost=%d rho=%.3f restarts=%ld cycles=%ld permutation=%ld samples=%llu",
				e->iterations, e->last_cost, e->rho, e->restarts, e->cycles, e->permutation,
				(unsigned long long)e->drawn);
	else
		worker_progress(e->ctx, "iter=%ld cost=%d rho=%.3f restarts=%ld cycles=%ld samples=%llu",
				e->iterations, e->last_cost, e->rho, e->restarts, e->cycles,
				(unsigned long long)e->drawn);
}

static void eda_free(struct eda *e)
{
	free(e->clue_grid);
	free(e->clue);
	free(e->allowed);
	free(e->p);
	free(e->grids);
	free(e->cost);
	free(e->kept);
	free(e->approx);
	free(e->base);
	free(e->scratch);
	free(e->open);
	cp_board_free(&e->board);
}

static int eda_alloc(struct eda *e, const struct grid *puzzle)
{
	memset(e, 0, sizeof *e);
	e->puzzle = puzzle;
	e->box = puzzle->box;
	e->side = puzzle->side;
	e->cells = puzzle->cells;
	const int n = e->box, N = e->side, C = e->cells;
	e->all = N == 64 ? ~0ULL : (1ULL << N) - 1;
	e->geo = geometry_get(n);
	e->clue = malloc((size_t)C);
	e->allowed = malloc(sizeof(uint64_t) * (size_t)C);
	e->p = malloc(sizeof(double) * (size_t)C * (size_t)N);
	e->grids = malloc((size_t)sample_count * (size_t)C);
	e->cost = malloc(sizeof(int) * (size_t)sample_count);
	e->kept = malloc(sizeof(int) * (size_t)kept_count);
	e->approx = malloc((size_t)C);
	e->base = malloc((size_t)C);
	e->scratch = malloc((size_t)C);
	e->open = malloc(sizeof(int) * (size_t)N);
	e->clue_grid = malloc(grid_bytes(puzzle));
	if (cp_board_alloc(&e->board, n) < 0 || !e->clue || !e->allowed || !e->p || !e->grids ||
	    !e->cost || !e->kept || !e->approx || !e->base || !e->scratch || !e->open || !e->clue_grid) {
		eda_free(e);
		return -1;
	}
	memcpy(e->base, puzzle->cell, (size_t)C);
	grid_copy(e->clue_grid, puzzle);
	return 0;
}

static inline uint64_t bit(int symbol)
{
	return 1ULL << (symbol - 1);
}

/* Symbols of clues among the peers of each cell, per unit: the masks the
 * pre-computation of section 2.1 reads. Returns false on a clash. */
static bool unit_masks(const struct eda *e, const uint8_t *clue, uint64_t *mask)
{
	memset(mask, 0, sizeof *mask * 3 * (size_t)e->side);
	for (int c = 0; c < e->cells; c++) {
		if (!clue[c])
			continue;
		for (int t = 0; t < 3; t++) {
			uint64_t *m = &mask[e->geo->cell_unit[3 * c + t]];
			if (*m & bit(clue[c]))
				return false;
			*m |= bit(clue[c]);
		}
	}
	return true;
}

/* --- the cost function (section 2.1) --- */

/* Missing symbols, summed over every row, column and block. */
static int grid_cost(struct eda *e, const uint8_t *g)
{
	uint64_t mask[3 * GRID_MAX_SIDE];
	const int N = e->side;
	memset(mask, 0, sizeof mask[0] * 3 * (size_t)N);
	for (int c = 0; c < e->cells; c++) {
		uint64_t b = bit(g[c]);
		const uint16_t *u = &e->geo->cell_unit[3 * c];
		mask[u[0]] |= b;
		mask[u[1]] |= b;
		mask[u[2]] |= b;
	}
	int cost = 3 * N * N;
	for (int u = 0; u < 3 * N; u++)
		cost -= __builtin_popcountll(mask[u]);
	e->work += (uint64_t)e->cells;
	return cost;
}

/* --- drawing a grid (section 3.1's three strategies) --- */

/* The k-th (0-based) symbol of a set. */
static int nth_symbol(uint64_t set, uint32_t k)
{
	while (k--)
		set &= set - 1;
	return __builtin_ctzll(set) + 1;
}

/* Draws a symbol of set with probabilities proportional to row[k-1], whose
 * sum over set is total (> 0). */
static int draw(struct rng *rng, const double *row, uint64_t set, double total)
{
	double u = rng_double(rng) * total;
	int last = 0;
	for (uint64_t s = set; s; s &= s - 1) {
		int k = __builtin_ctzll(s) + 1;
		u -= row[k - 1];
		if (row[k - 1] > 0)
			last = k;
		if (u < 0)
			return k;
	}
	return last; /* rounding: the last symbol with weight */
}

/* Pre-computation alone: every cell drawn on its own from its probabilities,
 * which are zero outside the symbols the givens allow (univariate). */
static void draw_cells(struct eda *e, uint8_t *g)
{
	const int N = e->side;
	for (int c = 0; c < e->cells; c++) {
		if (e->clue[c]) {
			g[c] = e->clue[c];
			continue;
		}
		const double *row = &e->p[(size_t)c * (size_t)N];
		double total = 0;
		for (uint64_t s = e->allowed[c]; s; s &= s - 1)
			total += row[__builtin_ctzll(s)];
		g[c] = (uint8_t)draw(&e->rng, row, e->allowed[c], total);
	}
	e->work += (uint64_t)e->cells * (uint64_t)N;
}

/* Permutations within blocks (section 3.1): in each block, the open cell
 * whose most probable remaining symbol is the most probable (after
 * renormalising over the symbols not yet used in the block) draws first;
 * its symbol leaves the others' choices; and so on. The paper notes that a
 * permutation cannot always be completed, and then picks "the remaining
 * symbols uniformly at random"; with the pre-computation on, this "may
 * increase the number of blocks that are not permutations". Our reading: a
 * cell none of whose allowed symbols is left draws uniformly among its
 * allowed symbols (so the pre-computation's constraints hold and the block
 * may repeat a symbol); without the pre-computation every symbol is allowed
 * and this cannot happen while probabilities stay positive. Cells left
 * without a choice draw last; ties go to a random one of the cells. */
static bool draw_blocks(struct eda *e, uint8_t *g)
{
	const int N = e->side;
	for (int b = 0; b < N; b++) {
		const uint16_t *cell = geometry_unit(e->geo, 2 * N + b);
		uint64_t used = 0;
		int nopen = 0;
		for (int i = 0; i < N; i++) {
			int c = cell[i];
			if (e->clue[c]) {
				g[c] = e->clue[c];
				used |= bit(e->clue[c]);
			} else {
				e->open[nopen++] = c;
			}
		}
		while (nopen) {
			int pick = -1, ties = 0;
			double pick_score = -1, pick_total = 0;
			for (int i = 0; i < nopen; i++) {
				int c = e->open[i];
				const double *row = &e->p[(size_t)c * (size_t)N];
				double total = 0, top = 0;
				for (uint64_t s = e->allowed[c] & ~used; s; s &= s - 1) {
					double v = row[__builtin_ctzll(s)];
					total += v;
					if (v > top)
						top = v;
				}
				double score = total > 0 ? top / total : -1;
				if (score > pick_score) {
					pick = i;
					pick_score = score;
					pick_total = total;
					ties = 1;
				} else if (score == pick_score && rng_below(&e->rng, (uint32_t)++ties) == 0) {
					pick = i;
					pick_total = total;
				}
			}
			e->work += (uint64_t)nopen * (uint64_t)N;
			int c = e->open[pick];
			const double *row = &e->p[(size_t)c * (size_t)N];
			int k;
			if (pick_total > 0) {
				k = draw(&e->rng, row, e->allowed[c] & ~used, pick_total);
			} else {
				uint64_t set = (e->allowed[c] & ~used) ? e->allowed[c] & ~used : e->allowed[c];
				k = nth_symbol(set, rng_below(&e->rng, (uint32_t)__builtin_popcountll(set)));
			}
			g[c] = (uint8_t)k;
			used |= bit(k);
			e->open[pick] = e->open[--nopen];
		}
		if (eda_stop(e))
			return false;
	}
	return true;
}

/* --- one attempt: EDA to success or to rho(n) > beta (sections 2.2-2.3) --- */

/* Sets the probabilities of section 2.1 for the current clues: 1 for a
 * clue; uniform over the symbols no clue among the cell's peers holds
 * (pre-computation; the paper's text swaps "in V" and "not in V", the
 * intent is plain), or over all N symbols without it. Returns false when a
 * cell has no symbol left: no solution extends these clues. */
static bool init_probabilities(struct eda *e)
{
	uint64_t mask[3 * GRID_MAX_SIDE];
	const int N = e->side;
	const bool precompute = sampling != SAMPLE_PERMUTATIONS;
	if (deduce) {
		/* The paper's closing suggestion (section 6): "find some easy
		 * clues using a deterministic method and then use our algorithm
		 * with these supplementary clues". The project's propagation
		 * (naked and hidden singles) fixes what it can; its contradiction
		 * rejects these clues at once. */
		memcpy(e->clue_grid->cell, e->clue, (size_t)e->cells);
		if (cp_board_load(&e->board, e->clue_grid) < 0)
			return false;
		cp_board_to_grid(&e->board, e->clue_grid);
		memcpy(e->clue, e->clue_grid->cell, (size_t)e->cells);
	}
	if (!unit_masks(e, e->clue, mask))
		return false;
	for (int c = 0; c < e->cells; c++) {
		double *row = &e->p[(size_t)c * (size_t)N];
		memset(row, 0, sizeof *row * (size_t)N);
		if (e->clue[c]) {
			e->allowed[c] = bit(e->clue[c]);
			row[e->clue[c] - 1] = 1;
			continue;
		}
		const uint16_t *u = &e->geo->cell_unit[3 * c];
		uint64_t set = precompute ? e->all & ~(mask[u[0]] | mask[u[1]] | mask[u[2]]) : e->all;
		if (precompute && deduce)
			set &= e->board.cand[c];
		if (!set)
			return false;
		e->allowed[c] = set;
		double each = 1.0 / __builtin_popcountll(set);
		for (uint64_t s = set; s; s &= s - 1)
			row[__builtin_ctzll(s)] = each;
	}
	return true;
}

/* Keeps the Q1 lowest-cost samples in e->kept (section 2.2): by insertion
 * into a sorted list, or as the best of each of Q1 consecutive groups of
 * about Q/Q1 samples, the paper's cheaper alternative. */
static void select_best(struct eda *e)
{
	const int Q = sample_count, Q1 = kept_count;
	if (selection == SELECT_GROUPS) {
		for (int g = 0; g < Q1; g++) {
			int from = (int)((long)g * Q / Q1), to = (int)((long)(g + 1) * Q / Q1);
			int best = from;
			for (int q = from + 1; q < to; q++)
				if (e->cost[q] < e->cost[best])
					best = q;
			e->kept[g] = best;
		}
		return;
	}
	int n = 0;
	for (int q = 0; q < Q; q++) {
		if (n == Q1 && e->cost[q] >= e->cost[e->kept[n - 1]])
			continue;
		int i = n < Q1 ? n++ : n - 1;
		while (i > 0 && e->cost[e->kept[i - 1]] > e->cost[q]) {
			e->kept[i] = e->kept[i - 1];
			i--;
		}
		e->kept[i] = q;
	}
}

/* p <- alpha p + (1 - alpha) r, r the symbol frequencies among the kept
 * samples; returns rho = min over cells of max over symbols of p. */
static double update_probabilities(struct eda *e)
{
	const int N = e->side, Q1 = kept_count;
	const double keep = alpha, learn = (1 - alpha) / Q1;
	double rho = 1;
	for (int c = 0; c < e->cells; c++) {
		if (e->clue[c])
			continue;
		double *row = &e->p[(size_t)c * (size_t)N];
		for (uint64_t s = e->allowed[c]; s; s &= s - 1)
			row[__builtin_ctzll(s)] *= keep;
		for (int j = 0; j < Q1; j++)
			row[e->grids[(size_t)e->kept[j] * (size_t)e->cells + (size_t)c] - 1] += learn;
		double top = 0;
		for (uint64_t s = e->allowed[c]; s; s &= s - 1)
			if (row[__builtin_ctzll(s)] > top)
				top = row[__builtin_ctzll(s)];
		if (top < rho)
			rho = top;
	}
	e->work += (uint64_t)e->cells * (uint64_t)N;
	return rho;
}

/* Runs EDA from the clues in e->clue. On ATTEMPT_SOLVED the solution is in
 * e->approx; on ATTEMPT_FAILED e->approx holds the lowest-cost sample seen,
 * the "approximate solution" the partial restarts take zones from. */
static enum attempt_end run_attempt(struct eda *e)
{
	const int Q = sample_count, C = e->cells;
	const long limit = max_iterations ? max_iterations : (long)(100 / (1 - alpha));
	if (!init_probabilities(e))
		return ATTEMPT_INFEASIBLE;
	e->approx_cost = -1;
	for (long iteration = 1;; iteration++) {
		int best = -1;
		for (int q = 0; q < Q; q++) {
			uint8_t *g = &e->grids[(size_t)q * (size_t)C];
			if (sampling == SAMPLE_PRECOMPUTE)
				draw_cells(e, g);
			else if (!draw_blocks(e, g))
				return ATTEMPT_STOPPED;
			e->drawn++;
			e->cost[q] = grid_cost(e, g);
			if (best < 0 || e->cost[q] < e->cost[best])
				best = q;
			if (e->cost[q] == 0) {
				memcpy(e->approx, g, (size_t)C);
				e->approx_cost = 0;
				e->last_cost = 0;
				return ATTEMPT_SOLVED;
			}
			if (eda_stop(e))
				return ATTEMPT_STOPPED;
		}
		e->iterations++;
		e->last_cost = e->cost[best];
		if (e->approx_cost < 0 || e->cost[best] <= e->approx_cost) {
			memcpy(e->approx, &e->grids[(size_t)best * (size_t)C], (size_t)C);
			e->approx_cost = e->cost[best];
		}
		select_best(e);
		e->rho = update_probabilities(e);
		eda_progress(e);
		if (e->rho > beta || iteration >= limit)
			return ATTEMPT_FAILED;
	}
}

/* --- RESEDA: partial restarts (sections 4.2 and 5.1) --- */

/* The zones tried after a failed attempt, as unit numbers, in the order
 * tried: rows, then columns, then blocks (section 4.2 does not say). */
static int zone_list(const struct eda *e, int *unit)
{
	const int n = e->box, N = e->side;
	int k = 0;
	switch (zones) {
	case ZONES_NONE:
		break;
	case ZONES_3:
		for (int i = 0; i < n; i++)
			unit[k++] = 2 * N + i * n + i;
		break;
	case ZONES_9:
		for (int b = 0; b < N; b++)
			unit[k++] = 2 * N + b;
		break;
	case ZONES_27:
		for (int u = 0; u < 3 * N; u++)
			unit[k++] = u;
		break;
	}
	return k;
}

/* Adds zone unit of the approximate solution to the base clues, in
 * e->clue. A zone that is not a permutation is discarded (section 4.2: "
 * discarding obviously any of them which is not a permutation"); so, in the
 * same spirit, is one that clashes with the givens, which no solution can
 * hold, and one the givens fill already, which would only repeat the full
 * attempt. Returns false for a discarded zone. */
static bool fix_zone(struct eda *e, const uint8_t *approx, int unit)
{
	const int N = e->side;
	const uint16_t *cell = geometry_unit(e->geo, unit);
	uint64_t seen = 0;
	bool adds = false;
	for (int i = 0; i < N; i++) {
		int c = cell[i];
		if (seen & bit(approx[c]))
			return false;
		seen |= bit(approx[c]);
		if (!e->base[c])
			adds = true;
	}
	if (!adds)
		return false;
	memcpy(e->clue, e->base, (size_t)e->cells);
	for (int i = 0; i < N; i++)
		e->clue[cell[i]] = approx[cell[i]];
	uint64_t mask[3 * GRID_MAX_SIDE];
	return unit_masks(e, e->clue, mask);
}

/* One resolution: an attempt from the base clues, then, if it fails, one
 * partial restart per admissible zone of its approximate solution. The
 * paper recommends ending there and starting afresh (a full restart) rather
 * than restarting from further zones. */
static enum attempt_end resolve(struct eda *e)
{
	int unit[3 * GRID_MAX_SIDE];
	e->cycles++;
	memcpy(e->clue, e->base, (size_t)e->cells);
	enum attempt_end end = run_attempt(e);
	if (end != ATTEMPT_FAILED)
		return end;
	/* the zones come from this first attempt's approximate solution */
	uint8_t *first = e->scratch;
	memcpy(first, e->approx, (size_t)e->cells);
	int nzones = zone_list(e, unit);
	for (int z = 0; z < nzones; z++) {
		if (!fix_zone(e, first, unit[z]))
			continue;
		e->restarts++;
		end = run_attempt(e);
		if (end == ATTEMPT_SOLVED || end == ATTEMPT_STOPPED)
			return end;
	}
	return ATTEMPT_FAILED;
}

/* --- coupling with brute force (section 5.2) --- */

/* Enumerates the admissible permutations of one block: its open cells take
 * distinct symbols, each allowed by the givens (the "basic constraints").
 * A depth-first search, resumable, in a random order that is drawn afresh
 * for each pass over all of them. */
struct block_enum {
	int nopen;
	int cell[GRID_MAX_SIDE];
	uint64_t allowed[GRID_MAX_SIDE];
	uint64_t untried[GRID_MAX_SIDE];
	uint8_t value[GRID_MAX_SIDE];
	int depth; /* -1: a pass is over (or not begun) */
};

static void enum_init(struct eda *e, struct block_enum *be, int block)
{
	uint64_t mask[3 * GRID_MAX_SIDE];
	const int N = e->side;
	unit_masks(e, e->puzzle->cell, mask); /* the driver checked: no clash */
	be->nopen = 0;
	for (int i = 0; i < N; i++) {
		int c = geometry_unit(e->geo, 2 * N + block)[i];
		if (e->puzzle->cell[c])
			continue;
		const uint16_t *u = &e->geo->cell_unit[3 * c];
		be->cell[be->nopen] = c;
		be->allowed[be->nopen] = e->all & ~(mask[u[0]] | mask[u[1]] | mask[u[2]]);
		be->nopen++;
	}
	be->depth = -1;
}

/* The next permutation into e->base, or false when the pass is over (the
 * next call begins a new pass). */
static bool enum_next(struct eda *e, struct block_enum *be)
{
	if (be->nopen == 0) {
		/* a full block: one permutation, the givens' own */
		if (be->depth == 0) {
			be->depth = -1;
			return false;
		}
		be->depth = 0;
		return true;
	}
	if (be->depth < 0) {
		be->depth = 0;
		be->untried[0] = be->allowed[0];
	} else {
		be->depth = be->nopen - 1; /* resume below the last permutation */
	}
	for (;;) {
		int d = be->depth;
		if (!be->untried[d]) {
			if (d == 0) {
				be->depth = -1;
				return false;
			}
			be->depth--;
			continue;
		}
		uint64_t set = be->untried[d];
		int k = nth_symbol(set, rng_below(&e->rng, (uint32_t)__builtin_popcountll(set)));
		be->untried[d] &= ~bit(k);
		be->value[d] = (uint8_t)k;
		if (d + 1 == be->nopen)
			break;
		uint64_t used = 0;
		for (int i = 0; i <= d; i++)
			used |= bit(be->value[i]);
		be->untried[d + 1] = be->allowed[d + 1] & ~used;
		be->depth = d + 1;
	}
	memcpy(e->base, e->puzzle->cell, (size_t)e->cells);
	for (int i = 0; i < be->nopen; i++)
		e->base[be->cell[i]] = be->value[i];
	return true;
}

/* --- the entry point --- */

static enum solve_status eda_solve(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx)
{
	struct eda e;
	if (eda_alloc(&e, puzzle) < 0) {
		snprintf(res->reason, sizeof res->reason, "out-of-memory");
		return SOLVE_GAVEUP;
	}
	e.ctx = ctx;
	rng_seed(&e.rng, worker_seed(ctx));
	enum solve_status status = SOLVE_GAVEUP;
	struct block_enum be;
	if (couple) {
		if (couple_block > e.side) {
			/* one word, as the protocol's gaveup wants */
			snprintf(res->reason, sizeof res->reason, "couple-block-%d-of-%d", couple_block, e.side);
			goto done;
		}
		enum_init(&e, &be, couple_block - 1);
	}
	for (;;) {
		if (max_cycles && e.cycles >= max_cycles) {
			snprintf(res->reason, sizeof res->reason, "no-solution-in-%d-resolutions", max_cycles);
			break;
		}
		if (couple) {
			if (!enum_next(&e, &be) && !enum_next(&e, &be)) {
				snprintf(res->reason, sizeof res->reason, "unsat");
				break;
			}
			e.permutation++;
		}
		enum attempt_end end = resolve(&e);
		if (end == ATTEMPT_SOLVED) {
			grid_from_cells(&res->solution, puzzle->box, e.approx);
			status = SOLVE_SOLVED;
			break;
		}
		if (end == ATTEMPT_STOPPED) {
			status = SOLVE_STOPPED;
			break;
		}
		if (end == ATTEMPT_INFEASIBLE && !couple) {
			/* the puzzle's own givens leave some cell no symbol */
			snprintf(res->reason, sizeof res->reason, "unsat");
			break;
		}
		if (worker_should_stop(ctx)) {
			status = SOLVE_STOPPED;
			break;
		}
	}
done:
	res->nodes = e.drawn;
	eda_free(&e);
	return status;
}

const struct worker_algorithm worker_algorithm = {
	.name = "eda",
	.summary = "RESEDA: an estimation of distribution algorithm with partial restarts (stochastic).",
	.source = "Maire & Prissette, A restarted estimation of distribution algorithm for solving "
		  "sudoku puzzles, sections 2-5",
	.kind = WORKER_STOCHASTIC,
	.min_box = 2,
	.max_box = 5,
	.options = eda_options,
	.init = eda_init,
	.solve = eda_solve,
};
