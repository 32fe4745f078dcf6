/* sudoku-sat: the puzzle as a SAT problem, solved by CaDiCaL (a CDCL solver,
 * through its C API, in process). Beyond the seeds: large grids are where
 * clause learning beats the papers' searches.
 *
 * The encoding keeps only what the givens leave open. sudoku-cp's two rules
 * (propagate.c) run first; each candidate v of each open cell is a variable,
 * and each open cell and each value still missing from a unit gets an
 * exactly-one constraint over its candidates: one clause for "at least
 * one", and "at most one" pairwise for lists of up to 24 literals, by a
 * sequential counter (Sinz 2005: k-1 extra variables, 3k-4 binary clauses)
 * for longer ones, which only near-empty grids have. A 36x36 puzzle at 45%
 * fixed makes some 5,600 variables, where the plain encoding of every cell
 * and value has 46,656 and 3.3 million clauses.
 *
 * The defaults are the fastest measured (contrib/bench/sat-notes.md,
 * "Options measured"): pairwise at-most-one, with CaDiCaL in stable mode
 * only (its --sat configuration); each helps alone, and focused mode alone
 * times out. These puzzles have a solution, and stable mode is for finding
 * one. Locked
 * candidates before encoding (--locked), or no presolve at all, change
 * little: CDCL finds what they find.
 *
 * Counting adds a clause that blocks each solution found and solves again
 * (the solver is incremental). Cancel and the time limit reach CaDiCaL
 * through its terminate callback, which it polls once per step of its
 * search (a decision or a conflict). */
#include "config.h"

#include <ccadical.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/geometry.h"
#include "propagate.h"
#include "worker.h"

enum amo_encoding { AMO_AUTO, AMO_PAIRWISE, AMO_SEQUENTIAL };
enum solver_mode { MODE_BOTH, MODE_SAT, MODE_UNSAT };

static int amo_encoding = AMO_AUTO;
static int pairwise_max = 24;
static bool presolve = true;
static bool locked_candidates = false;
static bool initial_phase = true;
static int solver_mode = MODE_SAT;

static const struct worker_option sat_options[] = {
	{"amo", OPT_CHOICE, &amo_encoding, 0, 0, "auto|pair|seq",
	 "at most one: pairwise, a sequential counter, or auto (pairwise up to"
	 " --pairwise-max literals)"},
	{"pairwise-max", OPT_INT, &pairwise_max, 2, 64, NULL,
	 "--amo=auto: the longest list encoded pairwise"},
	{"presolve", OPT_FLAG, &presolve, 0, 0, NULL,
	 "propagate the givens by sudoku-cp's rules before encoding (--no-presolve: every"
	 " value of every open cell, less its peers' givens)"},
	{"locked", OPT_FLAG, &locked_candidates, 0, 0, NULL,
	 "presolve: also remove locked candidates (pointing and claiming)"},
	{"phase", OPT_FLAG, &initial_phase, 0, 0, NULL,
	 "CaDiCaL's initial phase: true (--no-phase: false)"},
	{"mode", OPT_CHOICE, &solver_mode, 0, 0, "both|sat|unsat",
	 "CaDiCaL's search modes: both (its default, alternating), sat (stable mode"
	 " only: CaDiCaL's --sat), unsat (focused mode only: its --unsat)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* The clauses being built, and the variables' meaning. */
struct encoding {
	CCaDiCaL *solver;
	int side, cells;
	int *var;       /* [cells * N]: at cell * N + v - 1, the variable "cell
			 * holds v", 0 when v is not a candidate there */
	int nvars;      /* the candidates' variables, then the counters' */
};

static void add_clause2(struct encoding *e, int a, int b)
{
	ccadical_add(e->solver, a);
	ccadical_add(e->solver, b);
	ccadical_add(e->solver, 0);
}

/* At most one of lits[0..n-1] true. */
static void at_most_one(struct encoding *e, const int *lits, int n)
{
	bool pairwise = amo_encoding == AMO_PAIRWISE ||
			(amo_encoding == AMO_AUTO && n <= pairwise_max);
	if (pairwise || n <= 2) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				add_clause2(e, -lits[i], -lits[j]);
		return;
	}
	/* sequential counter: s_i says "one of lits[0..i] is true" */
	int s_prev = ++e->nvars;
	add_clause2(e, -lits[0], s_prev);
	for (int i = 1; i < n - 1; i++) {
		int s = ++e->nvars;
		add_clause2(e, -lits[i], s);
		add_clause2(e, -s_prev, s);
		add_clause2(e, -lits[i], -s_prev);
		s_prev = s;
	}
	add_clause2(e, -lits[n - 1], -s_prev);
}

/* Exactly one of lits[0..n-1] true (n = 0: the empty clause, unsat). */
static void exactly_one(struct encoding *e, const int *lits, int n)
{
	for (int i = 0; i < n; i++)
		ccadical_add(e->solver, lits[i]);
	ccadical_add(e->solver, 0);
	at_most_one(e, lits, n);
}

/* The candidates of the open cells, numbered, and their constraints.
 * Returns false when told to stop: a near-empty 64x64 grid takes a second
 * to encode, and a cancel must not wait that long. */
static bool encode(struct encoding *e, const struct cp_board *b, struct worker_ctx *ctx)
{
	const int side = e->side;
	int lits[GRID_MAX_SIDE];
	memset(e->var, 0, sizeof *e->var * (size_t)e->cells * (size_t)side);
	for (int cell = 0; cell < e->cells; cell++) {
		if (cell % side == 0 && worker_should_stop(ctx))
			return false;
		if (b->value[cell])
			continue;
		int n = 0;
		for (uint64_t c = b->cand[cell]; c; c &= c - 1)
			lits[n++] = e->var[cell * side + __builtin_ctzll(c)] = ++e->nvars;
		exactly_one(e, lits, n);
	}
	for (int u = 0; u < 3 * side; u++) {
		const uint16_t *unit = geometry_unit(b->geo, u);
		if (worker_should_stop(ctx))
			return false;
		for (int v1 = 0; v1 < side; v1++) {
			int n = 0;
			bool placed = false;
			for (int k = 0; k < side && !placed; k++) {
				int cell = unit[k];
				placed = b->value[cell] == v1 + 1;
				if (e->var[cell * side + v1])
					lits[n++] = e->var[cell * side + v1];
			}
			if (!placed)
				exactly_one(e, lits, n);
		}
	}
	return true;
}

/* What the terminate and learn callbacks see. */
struct watch {
	struct worker_ctx *ctx;
	const struct encoding *e;
	int presolved;       /* cells fixed before the encoding */
	uint64_t steps;      /* terminate polls: decisions and conflicts */
	uint64_t learned;    /* clauses learned: one per conflict */
	uint64_t units;      /* of them, units: variables fixed for good */
	long found;
};

static int should_terminate(void *state)
{
	struct watch *w = state;
	w->steps++;
	if (worker_progress_wanted(w->ctx))
		worker_progress(w->ctx, "conflicts=%llu fixed=%llu/%d cells=%d/%d found=%ld steps=%llu",
				(unsigned long long)w->learned, (unsigned long long)w->units,
				w->e->nvars, w->presolved, w->e->cells, w->found,
				(unsigned long long)w->steps);
	return worker_should_stop(w->ctx);
}

/* ccadical_set_learn's callback: its type is CaDiCaL's, the clause is not
 * ours to change */
// cppcheck-suppress constParameter
static void count_learned(void *state, int *clause)
{
	struct watch *w = state;
	w->learned++;
	if (clause[0] && !clause[1])
		w->units++;
}

/* CaDiCaL's options; they must be set before the first clause. */
static void configure(CCaDiCaL *solver, uint64_t seed)
{
	ccadical_set_option(solver, "quiet", 1);
	ccadical_set_option(solver, "seed", (int)(seed % INT_MAX));
	ccadical_set_option(solver, "phase", initial_phase);
	if (solver_mode == MODE_SAT) {
		/* CaDiCaL's own "--sat" configuration */
		ccadical_set_option(solver, "elimreleff", 10);
		ccadical_set_option(solver, "stabilizeonly", 1);
		ccadical_set_option(solver, "subsumereleff", 60);
	} else if (solver_mode == MODE_UNSAT) {
		ccadical_set_option(solver, "stabilize", 0);
		ccadical_set_option(solver, "walk", 0);
	}
}

/* Without the presolve: the givens are fixed and each open cell keeps the
 * values its peers' givens leave, nothing more. */
static void load_plain(struct cp_board *b, const struct grid *puzzle)
{
	const int npeers = b->geo->npeers;
	b->fixed = 0;
	b->failed = false;
	for (int cell = 0; cell < b->cells; cell++) {
		b->value[cell] = puzzle->cell[cell];
		if (puzzle->cell[cell]) {
			b->cand[cell] = 1ULL << (puzzle->cell[cell] - 1);
			b->fixed++;
			continue;
		}
		uint64_t c = b->all;
		const uint16_t *peers = geometry_peers(b->geo, cell);
		for (int k = 0; k < npeers; k++)
			if (puzzle->cell[peers[k]])
				c &= ~(1ULL << (puzzle->cell[peers[k]] - 1));
		b->cand[cell] = c;
		if (!c)
			b->failed = true;
	}
}

/* Removes a value (bit) from the open cells of unit u whose key (a cell's
 * row, column or box: geometry.h) is not k. */
static bool remove_outside(struct cp_board *b, int u, uint64_t bit, int (*key)(const struct geometry *, int),
			   int k)
{
	const uint16_t *unit = geometry_unit(b->geo, u);
	bool changed = false;
	for (int i = 0; i < b->side; i++) {
		int cell = unit[i];
		if (!b->value[cell] && (b->cand[cell] & bit) && key(b->geo, cell) != k) {
			b->cand[cell] &= ~bit;
			changed = true;
		}
	}
	return changed;
}

/* Locked candidates, on the board's value sets after propagation: when the
 * places of a value in a box lie in one row (or column), the value leaves
 * the rest of that row ("pointing"); when its places in a row or column lie
 * in one box, it leaves the rest of that box ("claiming"). Repeated until
 * nothing changes. A cell left with one value, or a value left with one
 * place in a unit, becomes a given of work (so that propagation takes it
 * from there). Returns the number of such new givens, or -1 when a value
 * set or a value's places run out. */
static int remove_locked(struct cp_board *b, struct grid *work)
{
	const int side = b->side;
	const struct geometry *geo = b->geo;
	bool changed = true;
	while (changed) {
		changed = false;
		for (int u = 0; u < 3 * side; u++) {
			const uint16_t *unit = geometry_unit(geo, u);
			for (int v1 = 0; v1 < side; v1++) {
				uint64_t bit = 1ULL << v1;
				int first = -1;
				bool same_row = true, same_col = true, same_box = true, placed = false;
				for (int i = 0; i < side && !placed; i++) {
					int cell = unit[i];
					placed = b->value[cell] == v1 + 1;
					if (b->value[cell] || !(b->cand[cell] & bit))
						continue;
					if (first < 0) {
						first = cell;
						continue;
					}
					same_row &= geometry_row(geo, cell) == geometry_row(geo, first);
					same_col &= geometry_col(geo, cell) == geometry_col(geo, first);
					same_box &= geometry_box(geo, cell) == geometry_box(geo, first);
				}
				if (placed || first < 0)
					continue;
				if (u >= 2 * side) {
					if (same_row)
						changed |= remove_outside(b, geometry_row(geo, first), bit, geometry_box,
									  u - 2 * side);
					if (same_col)
						changed |= remove_outside(b, side + geometry_col(geo, first), bit,
									  geometry_box, u - 2 * side);
				} else if (same_box) {
					changed |= remove_outside(b, 2 * side + geometry_box(geo, first), bit,
								  u < side ? geometry_row : geometry_col,
								  u < side ? u : u - side);
				}
			}
		}
	}
	/* what the removals left: singles of both kinds, or a contradiction */
	int singles = 0;
	for (int cell = 0; cell < b->cells; cell++) {
		if (b->value[cell] || work->cell[cell])
			continue;
		uint64_t c = b->cand[cell];
		if (!c)
			return -1;
		if (!(c & (c - 1))) {
			work->cell[cell] = (uint8_t)cp_first_value(c);
			singles++;
		}
	}
	for (int u = 0; u < 3 * side; u++) {
		const uint16_t *unit = geometry_unit(geo, u);
		for (int v1 = 0; v1 < side; v1++) {
			int places = 0, where = -1;
			for (int i = 0; i < side; i++) {
				int cell = unit[i];
				if (b->value[cell] == v1 + 1 || work->cell[cell] == v1 + 1) {
					places = -1;
					break;
				}
				if (!b->value[cell] && !work->cell[cell] && (b->cand[cell] & (1ULL << v1))) {
					places++;
					where = cell;
				}
			}
			if (places == 0)
				return -1;
			if (places == 1) {
				work->cell[where] = (uint8_t)(v1 + 1);
				singles++;
			}
		}
	}
	return singles;
}

/* The solution in the model: the board's fixed cells and, in each open
 * cell, its true candidate. */
static void read_model(const struct encoding *e, const struct cp_board *b, struct grid *g)
{
	cp_board_to_grid(b, g);
	for (int cell = 0; cell < e->cells; cell++) {
		if (b->value[cell])
			continue;
		for (int v1 = 0; v1 < e->side; v1++) {
			int x = e->var[cell * e->side + v1];
			if (x && ccadical_val(e->solver, x) > 0) {
				g->cell[cell] = (uint8_t)(v1 + 1);
				break;
			}
		}
	}
}

/* Rules out the solution g: some open cell must differ. */
static void block(const struct encoding *e, const struct cp_board *b, const struct grid *g)
{
	for (int cell = 0; cell < e->cells; cell++)
		if (!b->value[cell])
			ccadical_add(e->solver, -e->var[cell * e->side + g->cell[cell] - 1]);
	ccadical_add(e->solver, 0);
}

static enum solve_status sat_solve(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx)
{
	const long limit = worker_count_limit(ctx);
	struct cp_board board;
	struct encoding e = {.side = puzzle->side, .cells = puzzle->cells};
	if (cp_board_alloc(&board, puzzle->box) < 0)
		goto nomem;
	bool unsat;
	if (!presolve) {
		load_plain(&board, puzzle);
		unsat = board.failed;
	} else {
		/* propagation, then locked candidates while they find singles */
		union grid_room work_room;
		struct grid *work = &work_room.grid;
		grid_copy(work, puzzle);
		for (;;) {
			unsat = cp_board_load(&board, work) < 0;
			if (unsat || !locked_candidates)
				break;
			int singles = remove_locked(&board, work);
			if (singles <= 0) {
				unsat = singles < 0;
				break;
			}
		}
	}
	if (unsat) {
		cp_board_free(&board);
		return SOLVE_UNSAT;
	}
	if (board.fixed == board.cells) {
		/* propagation alone solved it: one solution, no search */
		cp_board_to_grid(&board, &res->solution);
		cp_board_free(&board);
		res->count = 1;
		return SOLVE_SOLVED;
	}
	e.var = malloc(sizeof *e.var * (size_t)e.cells * (size_t)e.side);
	e.solver = e.var ? ccadical_init() : NULL;
	if (!e.solver) {
		free(e.var);
		cp_board_free(&board);
		goto nomem;
	}
	configure(e.solver, worker_seed(ctx));
	struct watch w = {.ctx = ctx, .e = &e, .presolved = board.fixed};
	enum solve_status status = SOLVE_UNSAT;
	if (!encode(&e, &board, ctx))
		status = SOLVE_STOPPED;
	ccadical_set_terminate(e.solver, &w, should_terminate);
	ccadical_set_learn(e.solver, &w, INT_MAX, count_learned);
	while (status != SOLVE_STOPPED) {
		int r = ccadical_solve(e.solver);
		if (r == 0) {
			status = SOLVE_STOPPED;
			break;
		}
		if (r != 10)
			break;
		if (w.found == 0) {
			read_model(&e, &board, &res->solution);
			status = SOLVE_SOLVED;
		}
		if (++w.found >= limit)
			break;
		union grid_room another;
		read_model(&e, &board, &another.grid);
		block(&e, &board, &another.grid);
		if (worker_should_stop(ctx)) {
			status = SOLVE_STOPPED;
			break;
		}
	}
	res->count = w.found;
	res->nodes = w.learned;
	ccadical_release(e.solver);
	free(e.var);
	cp_board_free(&board);
	return status;
nomem:
	snprintf(res->reason, sizeof res->reason, "out of memory");
	return SOLVE_GAVEUP;
}

const struct worker_algorithm worker_algorithm = {
	.name = "sat",
	.summary = "The puzzle as SAT, solved by CaDiCaL (CDCL): a complete solver for large grids.",
	.source = "no paper: CaDiCaL (Biere et al.) on a compact encoding of what propagation leaves",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.options = sat_options,
	.solve = sat_solve,
};
