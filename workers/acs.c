/* sudoku-acs: Ant Colony System with Best Value Evaporation, Lloyd & Amos,
 * "Solving Sudoku with Ant Colony Optimisation" (seeds/ant-colony-bve.txt,
 * section 3.2, Algorithm 1, equations (1)-(7)), on top of the constraint
 * propagation of section 3.1 (propagate.c), the same code as sudoku-cp's
 * search ("BS"): the two differ only in the search, as in the paper.
 *
 * A pheromone matrix holds one level per cell and value, all tau0 = 1/c at
 * the start (c cells). Each iteration, m ants take a fresh copy of the
 * propagated puzzle, start on different random cells and visit every cell
 * in turn, all ants one step at a time. At an open cell an ant chooses a
 * value from its value set, greedily (eq. 1) or by roulette (eq. 2) as eq.
 * (3) says, fixes it, propagates, and lowers that value's pheromone (eq. 4).
 * The best ant is the one with the most cells fixed (f); it yields
 * dtau = c / (c - f) (eq. 5), which replaces the best solution when it beats
 * the best value dtau_best; the best solution's values get
 * tau <- (1 - rho) tau + rho dtau_best (eq. 6); then dtau_best evaporates by
 * the factor 1 - fBVE (eq. 7). An ant that fixes every cell has solved the
 * puzzle: propagation keeps an ant's fixed cells free of clashes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "propagate.h"
#include "rng.h"
#include "worker.h"

/* The paper's settings (section 4.1; xi from section 3.2). */
static int ants = 10;         /* m */
static double rho = 0.9;      /* global evaporation, eq. (6) */
static double q0 = 0.9;       /* greediness, eq. (3) */
static double xi = 0.1;       /* local evaporation, eq. (4) */
static double fbve = 0.005;   /* best value evaporation, eq. (7) */
static bool bve = true;       /* --no-bve: fBVE = 0, the ablation of section 4.4 */
static double tau0_option;    /* 0: tau0 = 1/c, as the paper */
static int greedy_rule;       /* GREEDY_PAPER or GREEDY_TEXTBOOK */
static int max_iterations;    /* 0: no limit (the time limit ends the search) */
static int restart_after;     /* 0: never, as the paper */

enum { GREEDY_PAPER, GREEDY_TEXTBOOK };

static const struct worker_option acs_options[] = {
	{"ants", OPT_INT, &ants, 1, 1000, NULL, "number of ants m"},
	{"rho", OPT_DOUBLE, &rho, 0, 1, NULL, "global pheromone evaporation rho, eq. (6)"},
	{"q0", OPT_DOUBLE, &q0, 0, 1, NULL, "greediness q0, eq. (3)"},
	{"xi", OPT_DOUBLE, &xi, 0, 1, NULL, "local pheromone evaporation xi, eq. (4)"},
	{"fbve", OPT_DOUBLE, &fbve, 0, 1, NULL, "best value evaporation rate fBVE, eq. (7)"},
	{"bve", OPT_FLAG, &bve, 0, 0, NULL, "best value evaporation (--no-bve: fBVE = 0)"},
	{"tau0", OPT_DOUBLE, &tau0_option, 0, 1e6, NULL,
	 "initial pheromone tau0 (0: 1/c, c the number of cells)"},
	{"greedy", OPT_CHOICE, &greedy_rule, 0, 0, "paper|textbook",
	 "when eq. (3) chooses greedily: paper, q > q0 as printed; textbook ACS, q <= q0"},
	{"max-iterations", OPT_INT, &max_iterations, 0, 2e9, NULL,
	 "give up after this many iterations (0: no limit)"},
	{"restart", OPT_INT, &restart_after, 0, 2e9, NULL,
	 "not in the paper: start afresh after this many iterations without more cells fixed "
	 "(0: never)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* Cancel must be seen within milliseconds: an ant's step on a 64x64 grid
 * can take tens of microseconds, so poll every few dozen steps. */
enum { POLL_STEPS = 32 };

struct colony {
	int box, side, cells;
	double tau0;
	double *tau;             /* [cells * side]: tau_i^k at i * side + k - 1 */
	struct cp_board puzzle;  /* the givens, propagated (Algorithm 1, lines 1-4) */
	struct cp_board *ant;    /* [ants]: each ant's partial solution */
	int *at;                 /* [ants]: the cell each ant visits next */
	struct cp_board best;    /* the best solution, the one dtau_best came from */
	int best_fixed;
	double dtau_best;
	int most_fixed;          /* since the last restart, for --restart */
	unsigned most_fixed_at;  /* the iteration it was reached */
	unsigned restarts;
	unsigned *started;       /* [cells]: the iteration whose ant starts there */
	struct rng rng;
};

static void colony_free(struct colony *col)
{
	if (col->ant)
		for (int a = 0; a < ants; a++)
			cp_board_free(&col->ant[a]);
	cp_board_free(&col->puzzle);
	cp_board_free(&col->best);
	free(col->ant);
	free(col->at);
	free(col->tau);
	free(col->started);
}

static int colony_alloc(struct colony *col, int box)
{
	memset(col, 0, sizeof *col);
	col->box = box;
	col->side = box * box;
	col->cells = col->side * col->side;
	col->tau = malloc(sizeof *col->tau * (size_t)col->cells * (size_t)col->side);
	col->ant = calloc((size_t)ants, sizeof *col->ant);
	col->at = calloc((size_t)ants, sizeof *col->at);
	col->started = calloc((size_t)col->cells, sizeof *col->started);
	if (!col->tau || !col->ant || !col->at || !col->started)
		return -1;
	if (cp_board_alloc(&col->puzzle, box) < 0 || cp_board_alloc(&col->best, box) < 0)
		return -1;
	for (int a = 0; a < ants; a++)
		if (cp_board_alloc(&col->ant[a], box) < 0)
			return -1;
	return 0;
}

/* Algorithm 1, line 5: every pheromone level tau0, and no best solution
 * yet. --restart comes back here when the colony has stagnated. */
static void start_afresh(struct colony *col, unsigned iteration)
{
	for (size_t i = 0; i < (size_t)col->cells * (size_t)col->side; i++)
		col->tau[i] = col->tau0;
	col->dtau_best = 0;
	col->best_fixed = 0;
	col->most_fixed = 0;
	col->most_fixed_at = iteration;
}

/* Equations (1)-(3): a value from the non-empty value set of a cell. */
static int choose_value(struct colony *col, uint64_t set, const double *tau)
{
	double q = rng_double(&col->rng);
	bool greedy = greedy_rule == GREEDY_PAPER ? q > q0 : q <= q0;
	if (greedy) {
		/* eq. (1): the highest pheromone; ties go to the lowest value */
		int best = cp_first_value(set);
		double best_tau = tau[best - 1];
		for (uint64_t rest = set & (set - 1); rest; rest &= rest - 1) {
			int v = cp_first_value(rest);
			if (tau[v - 1] > best_tau) {
				best_tau = tau[v - 1];
				best = v;
			}
		}
		return best;
	}
	/* eq. (2): roulette, each value weighted by its pheromone */
	double total = 0;
	for (uint64_t rest = set; rest; rest &= rest - 1)
		total += tau[cp_first_value(rest) - 1];
	double spin = rng_double(&col->rng) * total, sum = 0;
	int v = 0;
	for (uint64_t rest = set; rest; rest &= rest - 1) {
		v = cp_first_value(rest);
		sum += tau[v - 1];
		if (spin < sum)
			break;
	}
	return v; /* rounding can leave spin at the total: the last value */
}

/* Algorithm 1, lines 7-8: fresh copies of the puzzle, each ant on a
 * different random cell (when there are no more ants than cells). */
static void place_ants(struct colony *col, unsigned iteration)
{
	for (int a = 0; a < ants; a++) {
		cp_board_copy(&col->ant[a], &col->puzzle);
		cp_set_tolerant(&col->ant[a], true);
		int cell = (int)rng_below(&col->rng, (uint32_t)col->cells);
		if (ants <= col->cells)
			while (col->started[cell] == iteration)
				cell = (int)rng_below(&col->rng, (uint32_t)col->cells);
		col->started[cell] = iteration;
		col->at[a] = cell;
	}
}

enum tour_end { TOUR_DONE, TOUR_SOLVED, TOUR_STOPPED };

/* Algorithm 1, lines 9-19: every ant visits every cell, the ants taking
 * turns one step each (so that each local update, eq. (4), steers the ants
 * after it). *solver is set to an ant that fixed every cell. */
static enum tour_end tour(struct colony *col, struct worker_ctx *ctx, uint64_t *choices,
			  int *solver)
{
	const int side = col->side, cells = col->cells;
	const double keep = 1 - xi, add = xi * col->tau0;
	for (int step = 0; step < cells; step++) {
		for (int a = 0; a < ants; a++) {
			struct cp_board *b = &col->ant[a];
			int cell = col->at[a];
			col->at[a] = cell + 1 == cells ? 0 : cell + 1;
			/* fixed cells are passed, and so are cells left with no
			 * possible value: the ant has failed there */
			if (b->value[cell] || !b->cand[cell])
				continue;
			double *tau = col->tau + (size_t)cell * (size_t)side;
			int v = choose_value(col, b->cand[cell], tau);
			cp_assign(b, cell, v);
			/* eq. (4), on the chosen value only: the values that
			 * propagation fixed were not selected (3.2, line 15) */
			tau[v - 1] = keep * tau[v - 1] + add;
			if (b->fixed == cells) {
				/* solved: the rest of the iteration cannot do better */
				*solver = a;
				return TOUR_SOLVED;
			}
			if (++*choices % POLL_STEPS == 0 && worker_should_stop(ctx))
				return TOUR_STOPPED;
		}
	}
	return TOUR_DONE;
}

/* Algorithm 1, lines 20-22: the best ant, eq. (5), the global update on the
 * best solution's values, eq. (6), and best value evaporation, eq. (7).
 * f counts every fixed cell, the givens and what propagation fixed
 * included (3.2 leaves it open): so f = c is exactly a solution, the point
 * where eq. (5) would divide by zero. */
static void update(struct colony *col, int *iteration_best)
{
	int best_ant = 0;
	for (int a = 1; a < ants; a++)
		if (col->ant[a].fixed > col->ant[best_ant].fixed)
			best_ant = a;
	int f = col->ant[best_ant].fixed;
	*iteration_best = f;
	double dtau = (double)col->cells / (double)(col->cells - f);
	if (dtau > col->dtau_best) {
		cp_board_copy(&col->best, &col->ant[best_ant]);
		col->best_fixed = f;
		col->dtau_best = dtau;
	}
	const int side = col->side;
	const double add = rho * col->dtau_best;
	for (int i = 0; i < col->cells; i++) {
		int v = col->best.value[i];
		if (v) {
			double *t = &col->tau[(size_t)i * (size_t)side + (size_t)v - 1];
			*t = (1 - rho) * *t + add;
		}
	}
	col->dtau_best *= 1 - (bve ? fbve : 0);
}

static enum solve_status acs_solve(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx)
{
	struct colony col;
	enum solve_status status;
	uint64_t choices = 0;
	if (colony_alloc(&col, puzzle->box) < 0) {
		colony_free(&col);
		snprintf(res->reason, sizeof res->reason, "out of memory");
		return SOLVE_GAVEUP;
	}
	rng_seed(&col.rng, worker_seed(ctx));
	if (cp_board_load(&col.puzzle, puzzle) < 0) {
		/* a stochastic worker does not prove: it says why it stops */
		snprintf(res->reason, sizeof res->reason, "unsat (constraint propagation)");
		status = SOLVE_GAVEUP;
		goto done;
	}
	if (col.puzzle.fixed == col.cells) {
		cp_board_to_grid(&col.puzzle, &res->solution);
		status = SOLVE_SOLVED;
		goto done;
	}
	col.tau0 = tau0_option > 0 ? tau0_option : 1.0 / col.cells;
	start_afresh(&col, 0);
	for (unsigned iteration = 1;; iteration++) {
		if (max_iterations && iteration > (unsigned)max_iterations) {
			snprintf(res->reason, sizeof res->reason,
				 "%d iterations, best %d/%d cells fixed", max_iterations,
				 col.best_fixed, col.cells);
			status = SOLVE_GAVEUP;
			break;
		}
		if (worker_should_stop(ctx)) {
			status = SOLVE_STOPPED;
			break;
		}
		place_ants(&col, iteration);
		int solver = -1, iteration_best;
		enum tour_end end = tour(&col, ctx, &choices, &solver);
		if (end == TOUR_STOPPED) {
			status = SOLVE_STOPPED;
			break;
		}
		if (end == TOUR_SOLVED) {
			cp_board_to_grid(&col.ant[solver], &res->solution);
			status = SOLVE_SOLVED;
			break;
		}
		update(&col, &iteration_best);
		if (worker_progress_wanted(ctx))
			worker_progress(ctx, "iter=%u filled=%d/%d cost=%d dtau=%.4g iter_filled=%d choices=%llu restarts=%u",
					iteration, col.best_fixed, col.cells, col.cells - col.best_fixed,
					col.dtau_best, iteration_best, (unsigned long long)choices, col.restarts);
		if (iteration_best > col.most_fixed) {
			col.most_fixed = iteration_best;
			col.most_fixed_at = iteration;
		} else if (restart_after && iteration - col.most_fixed_at >= (unsigned)restart_after) {
			start_afresh(&col, iteration);
			col.restarts++;
		}
	}
done:
	res->nodes = choices;
	colony_free(&col);
	return status;
}

static const struct worker_option_alias acs_aliases[] = {
	{"max-iterations", "iterations", NULL}, /* eda, hill and tabu's word */
	{NULL, NULL, NULL},
};

const struct worker_algorithm worker_algorithm = {
	.name = "acs",
	.summary = "Ant Colony System with Best Value Evaporation over constraint propagation.",
	.source = "Lloyd & Amos, Solving Sudoku with Ant Colony Optimisation, 3.1-3.2 (Algorithm 1)",
	.kind = WORKER_STOCHASTIC,
	.min_box = 2,
	.max_box = 8,
	.options = acs_options,
	.aliases = acs_aliases,
	.solve = acs_solve,
};
