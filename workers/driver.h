/* The worker driver's own parts, shared between its files (not the
 * algorithms' interface: that is worker.h):
 *
 *   driver.c          main: picks the mode
 *   driver_config.c   the options' values, the device
 *   driver_options.c  the command line and --help
 *   driver_context.c  the algorithm's side of worker.h: stop checks,
 *                     progress, counting, seeds, stages' times
 *   driver_protocol.c protocol mode (PROTOCOL.md)
 *   driver_out.c      protocol mode's output: whole lines, answers in runs
 *   driver_filter.c   filter mode, one puzzle at a time, and the verdicts
 *   driver_pipeline.c filter mode for algorithms that solve batches */
#ifndef SUDOKU_DRIVER_H
#define SUDOKU_DRIVER_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/answer.h"
#include "lib/clock.h"
#include "lib/common.h"
#include "lib/grid.h"
#include "worker.h"

struct msg_effort;

#define ALGO worker_algorithm

/* The stop checks: why a search must end now. worker_should_stop() is the
 * one check an algorithm polls; ctx_stop() the one way to ask for a stop.
 *   cancel   protocol "cancel" of every request the search is for
 *            (driver_protocol.c): answered "cancelled ID";
 *   timeout  --time-limit, or a solve's limit_ms, ran out (noticed by
 *            worker_should_stop itself): "# timeout after ..." in filter
 *            mode, "gaveup ID timeout" in protocol mode;
 *   quit     protocol "quit" (driver_protocol.c): nothing more is sent.
 * tests/driver-stops.bats checks that each ends a search that would never
 * end by itself. */
enum stop_reason { STOP_NONE, STOP_CANCEL, STOP_TIMEOUT, STOP_QUIT };

struct worker_ctx {
	atomic_int stop;
	uint64_t start_ns, deadline_ns; /* deadline 0: none */
	uint64_t progress_ns, next_progress_ns; /* interval 0: no progress */
	long count_limit;
	uint64_t seed;
	const char *id;    /* protocol mode: the request id */
	const char *where; /* filter mode: "line 7" */
	/* protocol mode, a batch's search: the request its progress speaks
	 * for now, NULL for none (called with out_lock held, so that no
	 * progress line follows a request's acknowledged cancel); NULL: id */
	const char *(*speaker)(const struct worker_ctx *ctx);
	void *owner; /* the speaker's */
};

/* The driver's options (driver_options.c reads them). */
struct driver_options {
	bool protocol;
	bool pretty;
	bool progress;
	long count_limit; /* 1: first solution only */
	double time_limit; /* seconds, 0: none */
	uint64_t seed;
	long progress_ms;
	int batch;
	bool timing;
	bool json; /* filter mode: a JSON object per puzzle */
};

/* driver_config.c */
extern struct driver_options opt;
extern struct worker_init device;
bool size_supported(int box);
/* Threads that call solve_batch at once: init's wi->batches (2 when it
 * says none), at most max. */
int batch_threads(int max);

/* driver_options.c */
/* Returns the index of the first FILE argument. */
int parse_options(int argc, char **argv);

/* driver_context.c */

/* Asks ctx's search to stop, from any thread. A cancel or a timeout does
 * not replace a reason already given; quit replaces any (it answers
 * nothing). */
void ctx_stop(struct worker_ctx *ctx, enum stop_reason why);
/* Why ctx's search was asked to stop; STOP_NONE while it may go on. */
enum stop_reason ctx_stop_reason(struct worker_ctx *ctx);
void ctx_start(struct worker_ctx *ctx, double limit_s, long progress_ms, long count, uint64_t seed);
/* The same, its clock started at start_ns (a now_ns() value): a run of
 * puzzles solved back to back starts each at the end of the one before,
 * one clock read a puzzle, not two (the reads were 2-3% of sudoku-cp's time
 * on easy puzzles). */
void ctx_start_at(struct worker_ctx *ctx, uint64_t start_ns, double limit_s, long progress_ms, long count,
		  uint64_t seed);
/* Milliseconds from ctx's start to end_ns (worker_elapsed_ms to a clock
 * read already made). */
double ctx_ms_to(const struct worker_ctx *ctx, uint64_t end_ns);
void stage_add(const char *stage, double ms, bool algorithm);
void stage_report(double wall_ms, long puzzles);

/* A solving thread's results for solve_batch, kept from batch to batch:
 * short ones (worker.h), a few MB for a big batch where whole ones take 4
 * KB a puzzle (140 MB for 32768, page faults the first time). */
struct batch_results {
	char *mem;
	size_t size;
	struct solve_result **res;
	int cap;
};
/* Room for the results of these n puzzles; res[i] is puzzles[i]'s. */
struct solve_result **batch_results(struct batch_results *br, const struct grid *const *puzzles, int n);
void batch_results_free(struct batch_results *br);

/* driver_out.c */
extern pthread_mutex_t out_lock;
/* Final answers held in the buffer, not yet written (see send_msg). */
extern atomic_long answers_held;
/* Writes to standard output so far: a solver that wrote (and may have
 * waited for the racer to read) reads the clock again before its next
 * puzzle. */
extern atomic_ulong output_writes;
void flush_answers(void);
/* A line from the codec (msg_write_*'s length); later: a final answer. */
void send_msg(const char *line, int len, bool later);
/* A final solution for a request that came in a bulk frame: a record of a
 * solutions frame, held with the answers (a run of them shares a frame). */
void send_solution_record(uint64_t id, const struct grid *solution, const struct msg_effort *e);
/* send_msg of a line that does not wait, out_lock held. */
void send_msg_locked(const char *line, int len);

/* driver_protocol.c */
int protocol_main(void);

/* driver_filter.c */

/* Whether a puzzle was searched, or why not. */
enum filter_kind { FILTER_SEARCHED, FILTER_INVALID, FILTER_UNSUPPORTED, FILTER_CLASH };

/* One puzzle's verdict in filter mode, as format_answer writes it. */
struct filter_answer {
	const char *file; /* NULL: standard input */
	long line;
	enum filter_kind kind;
	/* not searched: why, "line N: ..."; SOLVE_GAVEUP: the algorithm's reason */
	const char *note;
	const struct grid *puzzle; /* NULL when invalid */
	const struct notation *nt;
	/* searched: the verdict */
	enum solve_status st;
	long count;
	const struct grid *solution;
	double ms; /* the search's wall time (for solve_batch, its batch's) */
};

extern int exit_status;
/* Room for more bytes at o->p + o->len (a batch's answers are formatted by
 * several threads at once, then written in order); exits when memory runs
 * out. */
char *out_room(struct answer_buf *o, size_t more);
/* Appends a puzzle's answer to o through the answer codec
 * (lib/answer.h): the solution (verified first) or a '#' line, a
 * boxed grid with --pretty, a JSON object with --json. Sets *failed when it
 * is not a solution. */
void format_answer(struct answer_buf *o, const struct filter_answer *a, bool *failed);
/* Why a puzzle of this side is not taken: "line N: ...". */
void describe_unsupported(char *buf, size_t bufsz, long line, int side);
int filter_main(int argc, char **argv, int first);

/* driver_pipeline.c */
int pipeline_main(int argc, char **argv, int first, uint64_t start_ns);

#endif
