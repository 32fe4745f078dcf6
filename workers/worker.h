/* The interface between the worker driver (driver.c: I/O, protocol, clocks,
 * signals, options) and one algorithm. An algorithm file defines
 *
 *     const struct worker_algorithm worker_algorithm = { ... };
 *
 * and never reads, writes or sleeps: it gets a puzzle, searches, polls
 * worker_should_stop() every few thousand steps, and reports progress
 * through worker_progress() when worker_progress_wanted() says so. */
#ifndef SUDOKU_WORKER_H
#define SUDOKU_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/grid.h"

enum worker_kind {
	WORKER_COMPLETE,   /* can prove "no solution" and count solutions */
	WORKER_STOCHASTIC, /* finds a solution or gives up */
};

enum solve_status {
	SOLVE_SOLVED,  /* res->solution holds a solution (count mode: res->count >= 1) */
	SOLVE_UNSAT,   /* proved: no solution (complete workers only) */
	SOLVE_GAVEUP,  /* res->reason says why (iteration limit, ...) */
	SOLVE_STOPPED, /* worker_should_stop() said so: the driver knows why */
};

struct solve_result {
	long count;           /* count mode: solutions found, at most the limit */
	uint64_t nodes;       /* search effort in the algorithm's own unit */
	char reason[128];     /* SOLVE_GAVEUP: a short reason, no newline */
	GRID_MEMBER(solution); /* the first solution found; last, so that a
				  batch's results can be short (solve_batch) */
};

/* The bytes a result takes when its solution has room for cells cells
 * alone: a batch's results are that short. */
static inline size_t solve_result_size(int cells)
{
	return offsetof(struct solve_result, solution) + sizeof(struct grid) + (size_t)cells;
}

/* An algorithm's own command-line options (besides the driver's). Each
 * points at the algorithm's variable holding the paper's default. */
enum worker_option_type {
	OPT_INT,    /* int *, range [min, max] */
	OPT_DOUBLE, /* double *, range [min, max] */
	OPT_FLAG,   /* bool *: --name sets it, --no-name clears it */
	OPT_CHOICE, /* int *: index into choices, "a|b|c" */
};

struct worker_option {
	const char *name; /* long option, without the dashes; NULL ends a table */
	enum worker_option_type type;
	void *value;
	double min, max;
	const char *choices;
	const char *help; /* one line for --help */
};

/* An option's old spelling, still read, not shown in --help: the option
 * under another name, and (OPT_CHOICE) old spellings of its choices,
 * "old=new,...". A NULL option ends a table. */
struct worker_option_alias {
	const char *option, *alias, *old_values;
};

/* What init() may say about this process before any puzzle. */
struct worker_init {
	const char *device;  /* "cpu" (default), "gpu", or "none" */
	char detail[160];    /* device name, or why there is no device */
	int max_box;         /* may lower the algorithm's max_box (e.g. GPU memory) */
	int batches;         /* solve_batch calls the algorithm runs at once (0: 2) */
};

struct worker_ctx;

struct worker_algorithm {
	const char *name;    /* the program is sudoku-NAME */
	const char *summary; /* one line for --help and --list-workers */
	const char *source;  /* the paper and section it follows */
	enum worker_kind kind;
	int min_box, max_box;
	const struct worker_option *options; /* may be NULL */
	const struct worker_option_alias *aliases; /* may be NULL */
	/* Optional: called once after the options are read. Returns 0, or -1
	 * with a message in msg (a usage error: bad option combination). */
	int (*init)(struct worker_init *wi, char *msg, size_t msgsz);
	/* Solves one puzzle whose givens do not clash. The puzzle is at its
	 * size (grid.h: copy it with grid_copy); res has room for a solution
	 * of any size. */
	enum solve_status (*solve)(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx);
	/* Optional: solves several puzzles at once (the GPU). The driver calls it
	 * with up to batch_max puzzles when more than one is waiting; it fills
	 * *res[i] (uninitialised: pointers into the driver's own records, so that
	 * a big batch costs no second copy of them) and status[i]. Each res[i]
	 * has room for the puzzle's cells alone (solve_result_size): write its
	 * solution's header and that many cells. init's wi->batches threads (2
	 * by default) call it (or solve) at once, each with its own batch and
	 * ctx, so that one batch's expansion overlaps another's launches; in
	 * filter mode init runs in a thread of its own while the input is
	 * read. */
	void (*solve_batch)(const struct grid *const *puzzles, int n, struct solve_result *const *res,
			    enum solve_status *status, struct worker_ctx *ctx);
	int batch_max;
};

extern const struct worker_algorithm worker_algorithm;

/* True when the search must end now: cancel, quit, or the time limit. Costs
 * an atomic load and a clock read: call it every few thousand steps. */
bool worker_should_stop(struct worker_ctx *ctx);

/* True when a progress report is due (the driver throttles them). */
bool worker_progress_wanted(struct worker_ctx *ctx);

/* Reports progress as space-separated key=value fields, e.g.
 * worker_progress(ctx, "filled=%d/%d nodes=%llu", ...). No newline. */
void worker_progress(struct worker_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Solutions to look for: 1 normally; K >= 2 in count mode, where a complete
 * worker counts up to K solutions into res->count. */
long worker_count_limit(const struct worker_ctx *ctx);

/* The seed of this puzzle's random numbers (--seed, or seed= in the
 * protocol): the same seed gives the same run. */
uint64_t worker_seed(const struct worker_ctx *ctx);

/* Milliseconds since this puzzle's search began. */
double worker_elapsed_ms(const struct worker_ctx *ctx);

/* --timing (offered to algorithms with solve_batch): each launch's report
 * (through worker_progress) and the stages' shares of the wall time are
 * wanted. */
bool worker_timing_wanted(void);

/* Adds ms to the busy time of one of the algorithm's stages (a string
 * literal, e.g. "expansion"), reported at the end under --timing beside
 * the driver's own (reading, parsing, formatting). Any thread may call it. */
void worker_stage_time(const char *stage, double ms);

/* Tells the user something they should act on (a search that may not end
 * in reasonable time): a line on standard error in filter mode; nothing in
 * protocol mode, where the racer keeps its own time limits. */
void worker_notice(struct worker_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
