/* The staged race's policy (docs/racer.md, "The schedule"): which entry gets a
 * puzzle first and alone (the presolver of its size), and for how long
 * before the rest of the portfolio joins (the budget). The budget is
 * learned from the run's own presolver times per size: a high quantile of
 * the recent ones, times a margin, kept between a floor (the noise of a
 * busy machine: a process may wait a few time slices for a core) and a
 * ceiling (a hard puzzle never waits long for the others). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grid.h"
#include "racer/options.h"
#include "racer/pool.h"
#include "racer/schedule.h"
#include "racer/workers.h"

/* Recent presolver times kept per size, and when the budget is computed
 * again: every 16 puzzles at first, then every 128 (the quantile is a
 * selection over up to 256 times: not every puzzle's work). */
#define RECENT 256
#define RECOMPUTE_EVERY 16
#define QUANTILE 0.95
#define MARGIN 4.0

/* Per box size n (grids n^2 x n^2): the floor and ceiling of the budget,
 * in ms. Until 16 times are known, the budget is twice the floor. From
 * 36x36 up the presolver (sat) takes seconds where it wins (36x36 at 45%:
 * median 1.4 s, longest 5 s) and nobody else wins at all: the floor is
 * seconds, so that the others do not take its cores for nothing. */
static const double floor_ms[GRID_MAX_BOX + 1] = {0, 0, 5, 10, 20, 50, 2000, 5000, 5000};
static const double ceiling_ms[GRID_MAX_BOX + 1] = {0, 0, 100, 250, 1000, 2000, 10000, 20000, 20000};

/* The presolver, per size: the first of these names in the portfolio that
 * is usable. cp is the fastest complete worker up to 16x16; sat (CDCL) from
 * 25x25 up: on 25x25 at 40-50% its median equals cp's and its longest is a
 * tenth of cp's, and cp solves no 36x36 at 45% (contrib/bench/sat-notes.md).
 * A near-empty large grid goes to cp first all the same: its encoding is
 * large, and propagation fills such a grid at once (EMPTY_GIVENS). */
static const char *const preferred[GRID_MAX_BOX + 1][3] = {
	{NULL}, {NULL}, {"cp", "dlx", NULL}, {"cp", "dlx", NULL}, {"cp", "sat", "dlx"},
	{"sat", "cp", "dlx"}, {"sat", "cp", "dlx"}, {"sat", "cp", "dlx"}, {"sat", "cp", "dlx"},
};
static const char *const preferred_empty[3] = {"cp", "sat", "dlx"};
#define EMPTY_GIVENS 0.2

/* Escalated races of a size won, and by whom: after EXPLORE of them, an
 * entry that won none no longer joins that size's escalations (on a small
 * machine every process that joins takes a share of the cores from the
 * ones that win). */
#define EXPLORE 8
static long escalations_won[GRID_MAX_BOX + 1];
static long wins_after[GRID_MAX_BOX + 1][MAX_SPECS];

struct size_times {
	float ms[RECENT];
	long n; /* times recorded, all told */
	double budget_ms;
	double quantile_ms;
};
static struct size_times times[GRID_MAX_BOX + 1];

/* --presolver: the entry named (its label, or its name), or -1. */
static int named_presolver = -1;

/* The usable entry of this program that takes this size (as far as its
 * hello says, if it came), or -1. */
static int usable_named(const char *name, int box)
{
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		if (s->status == SPEC_OK && strcmp(s->name, name) == 0 &&
		    (!s->hello_seen || (box >= s->min_box && box <= s->max_box && (!opt.count || s->complete))))
			return i;
	}
	return -1;
}

/* The first of names that is a usable entry taking this size (or
 * --presolver's entry; -1 with --schedule=all). */
static int presolver_of(const char *const names[3], int box)
{
	if (opt.schedule_all)
		return -1;
	if (named_presolver >= 0)
		return specs[named_presolver].status == SPEC_OK ? named_presolver : -1;
	for (int k = 0; k < 3 && names[k]; k++) {
		int i = usable_named(names[k], box);
		if (i >= 0)
			return i;
	}
	return -1;
}

void schedule_init(void)
{
	if (opt.presolver) {
		for (int i = 0; i < nspecs && named_presolver < 0; i++)
			if (strcmp(specs[i].label, opt.presolver) == 0)
				named_presolver = i;
		for (int i = 0; i < nspecs && named_presolver < 0; i++)
			if (strcmp(specs[i].name, opt.presolver) == 0)
				named_presolver = i;
		if (named_presolver < 0) {
			fprintf(stderr, "%s: --presolver: '%s' is not an entry of the portfolio\n", PROGRAM,
				opt.presolver);
			exit(2);
		}
	}
	schedule_forget();
	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX; box++) {
		times[box].budget_ms = 2 * floor_ms[box];
		/* the presolvers of both kinds of grid get -j processes */
		int who[] = {presolver_of(preferred[box], box), presolver_of(preferred_empty, box)};
		for (size_t k = 0; k < sizeof who / sizeof who[0]; k++)
			if (who[k] >= 0)
				specs[who[k]].presolver = true;
		/* --count: every answer is confirmed by a second program, the
		 * first of the list that is not the presolver's: it gets -j
		 * processes too (with one, it was the run's bottleneck) */
		if (opt.count && who[0] >= 0)
			for (int k = 0; k < 3 && preferred[box][k]; k++) {
				int c = usable_named(preferred[box][k], box);
				if (c >= 0 && strcmp(specs[c].name, specs[who[0]].name) != 0) {
					specs[c].confirmer = true;
					break;
				}
			}
	}
}

/* presolver_of per size and kind of grid, as long as no entry changed (it
 * is asked once a puzzle; the answer changes only with an entry); -2: not
 * known */
static int presolver_known[GRID_MAX_BOX + 1][2];

void schedule_forget(void)
{
	for (int box = 0; box <= GRID_MAX_BOX; box++)
		presolver_known[box][0] = presolver_known[box][1] = -2;
}

int schedule_presolver(const struct grid *g)
{
	int box = g->box;
	if (box < GRID_MIN_BOX || box > GRID_MAX_BOX)
		return -1;
	bool empty = box >= 5 && g->cells - grid_count_blanks(g) < EMPTY_GIVENS * g->cells;
	int *known = &presolver_known[box][empty];
	if (*known == -2)
		*known = presolver_of(empty ? preferred_empty : preferred[box], box);
	return *known;
}

double schedule_budget_ms(int box)
{
	if (opt.budget_s > 0)
		return opt.budget_s * 1000;
	return box >= GRID_MIN_BOX && box <= GRID_MAX_BOX ? times[box].budget_ms : 1000;
}

/* The k-th smallest of v[0..n) (Hoare's selection; v is reordered): the
 * quantile without a sort. */
static float kth_smallest(float *v, int n, int k)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		float pivot = v[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				float t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

void schedule_record(int box, double ms)
{
	if (box < GRID_MIN_BOX || box > GRID_MAX_BOX)
		return;
	struct size_times *t = &times[box];
	t->ms[t->n % RECENT] = (float)ms;
	t->n++;
	if (t->n < 16 || t->n % (t->n < RECENT ? RECOMPUTE_EVERY : RECENT / 2))
		return;
	int n = t->n < RECENT ? (int)t->n : RECENT;
	float v[RECENT];
	memcpy(v, t->ms, (size_t)n * sizeof *v);
	t->quantile_ms = kth_smallest(v, n, (int)(QUANTILE * (n - 1)));
	double b = MARGIN * t->quantile_ms;
	if (b < floor_ms[box])
		b = floor_ms[box];
	if (b > ceiling_ms[box])
		b = ceiling_ms[box];
	t->budget_ms = b;
}

void schedule_describe(char *buf, size_t size)
{
	size_t pos = 0;
	buf[0] = '\0';
	if (opt.budget_s > 0) {
		snprintf(buf, size, "fixed at %.1f ms (--budget)", opt.budget_s * 1000);
		return;
	}
	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX && pos < size; box++) {
		const struct size_times *t = &times[box];
		if (!t->n)
			continue;
		pos += (size_t)snprintf(buf + pos, size - pos, "%s%dx%d %.1f ms (q95 %.2f ms of %ld)",
					pos ? ", " : "", box * box, box * box, t->budget_ms, t->quantile_ms, t->n);
	}
}

void schedule_escalation_won(int box, int spec)
{
	if (box < GRID_MIN_BOX || box > GRID_MAX_BOX || spec < 0 || spec >= MAX_SPECS)
		return;
	escalations_won[box]++;
	wins_after[box][spec]++;
}

/* The presolvers' list of a size is also the order of speed among the
 * complete programs: the confirmer is the first of them that may confirm,
 * then any other complete entry, in portfolio order (bf, last in the
 * default one, may take minutes to count a 17-clue puzzle). */
int schedule_confirmer_rank(int box, int spec)
{
	if (box >= GRID_MIN_BOX && box <= GRID_MAX_BOX)
		for (int k = 0; k < 3 && preferred[box][k]; k++)
			if (strcmp(specs[spec].name, preferred[box][k]) == 0)
				return k;
	return 3 + spec;
}

bool schedule_joins(int box, int spec)
{
	if (box < GRID_MIN_BOX || box > GRID_MAX_BOX || opt.schedule_all)
		return true;
	return escalations_won[box] < EXPLORE || wins_after[box][spec] > 0;
}

void schedule_describe_benched(char *buf, size_t size)
{
	size_t pos = 0;
	buf[0] = '\0';
	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX && pos < size; box++) {
		if (escalations_won[box] < EXPLORE)
			continue;
		int listed = 0;
		for (int i = 0; i < nspecs && pos < size; i++) {
			if (schedule_joins(box, i) || !pool_spec_started(i) || specs[i].presolver)
				continue;
			if (!listed++)
				pos += (size_t)snprintf(buf + pos, size - pos, "%s%dx%d:", pos ? "; " : "", box * box,
							box * box);
			if (pos < size)
				pos += (size_t)snprintf(buf + pos, size - pos, " %s", specs[i].label);
		}
	}
}
