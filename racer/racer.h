/* sudoku-race: what the racer's parts share. The racer is one libevent loop
 * (main.c) around these parts:
 *   options.c   the command line
 *   workers.c   finding worker programs, the portfolio (--workers)
 *   proc.c      one worker process, a state machine: spawn, pipes, hello,
 *               requests, cancel, stop (the mechanism)
 *   pool.c      the processes of each entry: how many, lazy start, strikes,
 *               respawn, shutdown (the policy)
 *   schedule.c  the staged race's policy: presolver per size, learned budget
 *   race.c      puzzles: cache look-up, dispatch, escalation, verdicts
 *   input.c     puzzles from files or standard input, through puzzle_stream
 *   output.c    answers in input order, in the input's notation (json.c)
 *   cache.c     the LMDB result cache (cache_cmd.c: `sudoku-race cache ...`)
 *   store.c     the cache's one interface: LMDB, or Redis (cache_redis.c)
 *   progress.c  --progress: live display or plain lines
 *   stats.c     --stats */
#ifndef RACER_RACER_H
#define RACER_RACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <sys/types.h>

#include "lib/clock.h"
#include "lib/common.h"
#include "lib/grid.h"
#include "lib/puzzle_stream.h"
#include "lib/wrap.h"
#include "protocol/message.h"

struct event_base;

#define PROGRAM "sudoku-race"

/* The most worker entries in a portfolio (outcomes are kept per entry). */
#define MAX_SPECS 32
#define MAX_CLAIMS 4
/* The most presolver processes (-j). */
#define MAX_JOBS 64

extern struct event_base *base;

/* now_ns, ms_since, ms_tv: lib/clock.h; warn, die, xmalloc...: lib/common.h
 * (main sets warn's hook: progress_before_output). */
/* One read(2) of up to most bytes onto buf's end: evbuffer_read, and so
 * bufferevents, read 4 kB at most (libevent 2.1), each with a FIONREAD;
 * the input and the workers' answers came in 4 kB reads. Returns read's
 * result, errno kept. */
struct evbuffer;
ssize_t read_into(struct evbuffer *buf, int fd, size_t most);

/* --- main.c: the run as a whole --- */

/* Called when input ended or an answer was written: ends the run when
 * everything read has been answered. */
void racer_check_finished(void);
/* Standard output was closed by its reader (`| head -1`): a clean end. */
void racer_output_closed(void);
/* A system error (exit status 2), and the run ends. */
void racer_system_error(void);
/* An input file could not be read: exit status 2 at the end. */
void racer_input_error(void);

/* --- options.c --- */

enum command {
	CMD_RACE,
	CMD_LIST_WORKERS,
	CMD_CACHE, /* sudoku-race cache stats|clear|export|import */
};

struct options {
	enum command command;
	char **worker_lists; /* --workers, as given (may repeat) */
	int nworker_lists;
	double timeout_s;    /* 0: none */
	double grace_s;
	double hello_timeout_s;
	bool progress, stats, json, pretty;
	long count;          /* --count=K: solutions to look for (0: no counting) */
	long progress_ms;    /* --progress-ms: the plain lines' period */
	bool seed_set;
	uint64_t seed;
	const char *cache_dir; /* --cache DIR */
	bool no_cache;
	size_t cache_size;   /* --cache-size, bytes; 0: CACHE_SIZE_DEFAULT */
	bool cache_trust;    /* cache import --trust */
	int jobs;            /* -j: presolver processes; 0: the processors */
	bool schedule_all;   /* --schedule=all: every puzzle to every entry at once */
	const char *presolver; /* --presolver: the entry that gets every puzzle first */
	double budget_s;     /* --budget: fixed; 0: learned */
	long line_offset;    /* --line-offset: the input's lines are numbered from this + 1 */
	char **args;         /* input files, or the cache subcommand and its arguments */
	int nargs;
};

extern struct options opt;

void options_parse(int argc, char **argv);

/* --- workers.c: the portfolio --- */

enum spec_status {
	SPEC_OK,          /* usable (or not started yet) */
	SPEC_UNAVAILABLE, /* not found, no device, bad hello: left out */
	SPEC_DISABLED,    /* kept dying: left out, warned once */
};

/* One entry of the portfolio: a worker program with its options, run as
 * one or more processes (procs[first .. first + nprocs)). */
struct worker_spec {
	int index;
	char *label;          /* as given: "cp", "cp:seed=2", "./fake-liar" */
	char *name;           /* the program part: "cp" */
	bool gpu;             /* sudoku-gpu: one process, fed batches */
	char *path;           /* the program, or NULL when not found */
	char **argv;          /* path, --protocol, the entry's options, NULL */
	bool own_seed;        /* the entry sets --seed itself */
	bool explicit;        /* named in --workers (a failure to start is worth a warning) */
	enum spec_status status;
	char why[320];        /* UNAVAILABLE, DISABLED: why */
	/* from hello */
	bool hello_seen;
	bool complete;
	int min_box, max_box;
	char device[8];
	char detail[256];
	char version[32];
	int batch;
	int first, nprocs;    /* its processes in procs[] */
	bool started;         /* its processes were started (lazily) */
	int nstarted;         /* how many of them: one, then more as needed */
	/* pool_may_grow: processes allowed now, when the next doubling is,
	 * and its first process's start (spawn to hello) */
	int grow_allowed;
	uint64_t grow_after_ns, start_cost_ns;
	bool presolver;       /* the presolver of some size: -j processes */
	bool confirmer;       /* --count: the first confirmer of some size: -j too */
	/* deaths since the last well-formed final message, over all its copies */
	int strikes;
	bool warned_wrong;
	/* --stats: every request sent ends as one of won .. open */
	struct spec_stats {
		long sent, won, late, wrong, gaveup, errors, cancelled;
		long lost; /* its process ended (died, killed, restarted) with it in flight */
		long open; /* in flight when the run ended */
		/* the processes */
		long malformed, refused, died, killed, respawns, hello_failures;
		long won_escalated; /* races won after the rest joined */
		double won_ms;
	} st;
};

extern struct worker_spec *specs;
extern int nspecs;

/* The default portfolio, in order. */
extern const char *const default_worker_names[];
/* Default portfolio entry i (NAME or NAME:OPTIONS) written into buf. */
const char *default_entry(int i, char *buf, size_t size);

/* Builds the portfolio from --workers (or the defaults that are found).
 * Exits 2 with a message when a named worker is missing. */
void workers_setup(void);
/* --list-workers: every known worker plus other sudoku-* programs found. */
void workers_setup_listing(void);
/* --list-workers' table, on standard output. */
void workers_print_listing(void);
/* Where the racer looks for sudoku-* programs, for messages. */
const char *workers_search_path(void);
/* The program of a worker name (sudoku-NAME beside the racer, ...), malloc'd;
 * NULL when there is none. */
char *workers_find_program(const char *name);
void workers_free(void);

/* What one entry of the portfolio did in one race. */
enum outcome {
	OUT_NONE,      /* not sent (yet) */
	OUT_SENT,      /* in flight */
	OUT_WON,
	OUT_LATE,      /* a correct answer after the race was decided */
	OUT_CANCELLED,
	OUT_WRONG,     /* a solution that does not verify */
	OUT_UNSAT,
	OUT_COUNTED,   /* --count: gave the deciding count */
	OUT_GAVEUP,
	OUT_ERROR,     /* error ID ..., or a message that does not answer the request */
	OUT_MALFORMED, /* a malformed or over-long line */
	OUT_DIED,
	OUT_KILLED,    /* no acknowledgement within the grace, or shut down */
	OUT_SKIPPED,   /* does not take the puzzle (size, kind, --count) */
	OUT_OUT,       /* the entry is out of the portfolio (disabled, unavailable) */
};

/* --- proc.c: one worker process (the mechanism) --- */

/* A process's life (tmux's job.c is the model): every transition is in
 * proc.c, and a closed or failed write is a state, never a dangling pipe.
 *   NEW -> STARTING (spawned; waiting for hello) -> IDLE <-> BUSY
 *   BUSY -> CANCELLING (a cancel waits for its acknowledgement)
 *   any live state -> WCLOSED (its standard input failed: it can take
 *     nothing more, so it is stopped at once) -> STOPPING
 *   any live state -> STOPPING (SIGTERM to its process group; SIGKILL after
 *     the grace) -> DEAD (exited and its output ended) -> NEW again
 *     (pool.c's policy decides when) */
enum proc_state {
	PROC_NEW,        /* not running: never started, or finished */
	PROC_STARTING,   /* spawned, waiting for hello */
	PROC_IDLE,       /* no request in flight */
	PROC_BUSY,       /* requests in flight */
	PROC_CANCELLING, /* a cancel is waiting for its acknowledgement (grace timer) */
	PROC_WCLOSED,    /* its standard input is gone */
	PROC_STOPPING,   /* signalled or told to quit: waiting for it to end */
	PROC_DEAD,       /* ended: waiting for end of output and waitpid */
};

struct request {
	uint64_t seq;
	bool cancel_sent;
	uint64_t cancel_ns;
};

struct proc {
	struct worker_spec *spec;
	int copy;                 /* 0 .. spec->nprocs - 1 */
	enum proc_state state;
	pid_t pid;                /* also its process group */
	bool eof, reaped;
	bool abandoned;           /* SIGKILLed in its start at shutdown: not waited for */
	int wstatus;
	enum outcome why;        /* what its requests in flight become when it ends */
	bool strike;              /* its end counts against its entry */
	bool was_starting;        /* it ended before hello */
	/* the worker's standard output: an event of our own, read in 64 kB
	 * (a bufferevent reads 4 kB at most, libevent 2.1), and what was read */
	struct event *from;
	struct evbuffer *from_buf;
	struct bufferevent *to;   /* the worker's standard input */
	struct event *timer;      /* hello timeout, grace, kill after SIGTERM, respawn */
	struct event *stage_timer; /* race.c's: the head puzzle's budget */
	bool held;                /* race.c's: its head puzzle was escalated */
	bool filling;             /* race.c's: being filled up to its depth */
	/* in the order sent, from inflight_buf + inflight_head: the head's
	 * answer (most answers) moves nothing, and a few hundred in flight
	 * are moved down only when the buffer's end is reached */
	struct request *inflight;
	struct request *inflight_buf;
	int ninflight, capinflight, inflight_head;
	int ncancels;             /* of those in flight, cancelled and not acknowledged */
	int found;                /* where the last request looked up was (a hint) */
	uint64_t spawned_ns;
	uint64_t head_ns;         /* when the current request became the head */
	/* --progress */
	char progress[160];
	uint64_t progress_seq;
	uint64_t progress_line_ns;
};

extern struct proc *procs;
extern int nprocs;

static inline struct proc *proc_of(const struct worker_spec *s, int copy)
{
	return &procs[s->first + copy];
}

const char *proc_state_name(enum proc_state s);
/* Spawns it (fork/exec, no shell). A failed pipe or fork ends it at once
 * (a strike, like a death). */
void proc_spawn(struct proc *p);
/* Ready for requests (it said hello, is not ending). */
bool proc_ready(const struct proc *p);
/* Ready, and not too far behind to take one more request. */
bool proc_can_send(const struct proc *p);
/* line: a solve message; its LF is added when it lacks one. */
void proc_send_solve(struct proc *p, uint64_t seq, const char *line, size_t len);
void proc_send_cancel(struct proc *p, uint64_t seq);
/* Ends it: SIGTERM to its group, SIGKILL after the grace. why: for the
 * requests it loses; strike: whether that counts against its entry. */
void proc_stop(struct proc *p, enum outcome why, bool strike);
/* SIGKILL to its group (after proc_stop: no grace). */
void proc_kill(struct proc *p);
/* At shutdown: quit, then end of input, SIGKILL after the grace. */
void proc_quit(struct proc *p);
/* waitpid said it ended. */
void proc_reaped(struct proc *p, int wstatus);
bool proc_finished(const struct proc *p);
/* Once ended (DEAD): pool_proc_respawn(p) after ms. */
void proc_after(struct proc *p, double ms);
void proc_free(struct proc *p);

/* --- pool.c: the processes of each entry (the policy) --- */

/* Creates the pool: -j processes of each presolver entry (default: the
 * processors), a quarter as many of the others (at least one), one of a GPU
 * entry. Nothing is started. probe: --list-workers (one of each, started
 * once, never again). */
void pool_init(int jobs, bool probe);
/* Starts an entry's processes (once; later calls do nothing). */
void pool_start_spec(struct worker_spec *s);
/* Starts every entry's processes. */
void pool_start_all(void);
/* One more process of an entry (its first, if none): false when all are
 * started (or it is out). */
bool pool_grow(struct worker_spec *s);
/* May a presolver entry with work queued on a ready process start one
 * more process now? */
bool pool_may_grow(struct worker_spec *s);
/* Is one of its processes saying hello yet? */
bool pool_spec_starting(const struct worker_spec *s);
bool pool_started(void);
/* Could this entry still take part in a race later (starting, or waiting
 * to be started again)? */
bool pool_spec_may_join(const struct worker_spec *s);
/* The copy of an entry that should take one more request now: the ready
 * one with the fewest in flight (NULL: none can). */
struct proc *pool_pick(const struct worker_spec *s, bool skip_held);
/* From proc.c: hello came (ok), the process ended (finished), a request's
 * answer or loss (the entry is healthy again). */
void pool_proc_ready(struct proc *p);
void pool_proc_finished(struct proc *p);
void pool_proc_respawn(struct proc *p);
void pool_spec_out(struct worker_spec *s, enum spec_status status, bool say, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Stops every worker: quit, then SIGKILL after the grace. done() runs when
 * every process has ended and was waited for. */
void pool_shutdown(void (*done)(void));
bool pool_probing(void);
/* SIGCHLD */
void pool_reap(void);
void pool_free(void);
/* True when every entry either said hello or is out (for --list-workers). */
bool pool_all_settled(void);

/* --- schedule.c: the staged race's policy --- */

/* The entry that gets this puzzle first and alone, by its size (-1: none,
 * every entry races at once). */
int schedule_presolver(const struct grid *g);
/* An entry's status or hello changed: the presolvers are looked up again. */
void schedule_forget(void);
/* How long the presolver has on a puzzle of this size before the rest of
 * the portfolio joins, in ms: learned from the run's own solve times. */
double schedule_budget_ms(int box);
/* A presolver's solve time (its own ms=) for a puzzle of this size. */
void schedule_record(int box, double ms);
/* An escalated race of this size was won by this entry. */
void schedule_escalation_won(int box, int spec);
/* Does this entry join the escalated races of this size? (Every entry
 * does until a few were won; then those that won any.) */
bool schedule_joins(int box, int spec);
/* Which complete entry is asked first to confirm a claim on a grid of this
 * size: the lowest rank. */
int schedule_confirmer_rank(int box, int spec);
/* For --stats: one line about the budgets in use; the entries left out of
 * escalations, per size. */
void schedule_describe(char *buf, size_t size);
void schedule_describe_benched(char *buf, size_t size);
void schedule_init(void);

/* --- race.c: puzzles and their races --- */

enum verdict {
	V_PENDING,
	V_SOLVED,      /* solution set */
	V_UNSAT,       /* a complete worker proved it (or the cache said so) */
	V_MULTIPLE,    /* --count: at least two solutions (solution set: one of them) */
	V_UNSOLVED,    /* every worker gave up or failed */
	V_TIMEOUT,     /* --timeout */
	V_INVALID,     /* the input was not a puzzle: item.error */
	V_CLASH,       /* givens clash: text */
	V_UNSUPPORTED, /* no worker takes its size */
};

enum uniqueness { UNIQ_UNKNOWN = 0, UNIQ_UNIQUE = 1, UNIQ_MULTIPLE = 2 };

const char *outcome_name(enum outcome o);

struct puzzle {
	uint64_t seq;
	/* PZ_LOOKUP: its cache look-up is on its way (a Redis cache, store.h) */
	enum { PZ_FREE, PZ_WAITING, PZ_LOOKUP, PZ_RACING, PZ_DONE } state;
	const char *input_name;    /* NULL: standard input */
	enum verdict verdict;
	char text[GRID_ERR_MAX + 64]; /* V_CLASH, V_UNSUPPORTED: "line N: why" */
	uint8_t *solution;         /* cells of the solution (V_SOLVED, V_MULTIPLE) */
	uint8_t solution_small[256]; /* where they are kept up to 16x16 */
	bool cache_hit;
	int winner;                /* spec index, -1: none */
	char winner_name[17];      /* cache hits: the worker that found it then */
	double winner_ms;          /* the winner's own ms= (cache: as stored) */
	double race_ms;            /* the racer's clock, from the race's start */
	enum stage { STAGE_WAITING, STAGE_FIRST, STAGE_ALL } stage;
	int first_spec;            /* STAGE_FIRST: the entry that has it alone */
	bool requeue;              /* STAGE_FIRST: taken back from a held process */
	bool escalated;            /* the rest of the portfolio joined after the budget */
	bool overdue;              /* STAGE_FIRST: over its budget, waiting for a place */
	uint64_t dispatch_ns;      /* first sent to a worker */
	uint64_t start_ns;         /* the race's clock: a worker began it (0: not yet) */
	uint64_t all_ns;           /* STAGE_ALL since */
	struct event *timeout_ev;  /* --timeout of a puzzle in STAGE_ALL */
	enum uniqueness uniq;      /* V_SOLVED: what --count found (or the cache knew) */
	long count;                /* --count: solutions found, up to K (0: not counted) */
	int prev, next;            /* a list (waiting, or STAGE_ALL), slot indices, -1 ends */
	char *solve_line;          /* "solve SEQ GRID fields seed=S\n" while racing */
	char solve_small[192];     /* where it is kept for a 9x9 grid (no malloc) */
	size_t solve_len, solve_noseed_len; /* the line, and its part before " seed=" */
	bool timeout_reason;       /* a worker gave up with "timeout" */
	/* verdicts that need proof (unsat, a count): the claims so far, from
	 * entries of different programs, and whether a second one agreed */
	int8_t claim_spec[MAX_CLAIMS];
	uint8_t claim_verdict[MAX_CLAIMS];
	long claim_count[MAX_CLAIMS]; /* --count=K: solutions found, K at most */
	uint8_t nclaims;
	bool confirmed;            /* two programs agreed (or the givens clash) */
	uint32_t asked;            /* entries asked to confirm (bits) */
	int8_t awaiting;           /* the confirmer in whose queue it waits for room, or -1 */
	char provers[40];          /* "cp+sat": who proved the final verdict */
	uint8_t copy[MAX_SPECS];   /* which process of each entry has it */
	uint8_t outcome[MAX_SPECS];
	float outcome_ms[MAX_SPECS];
	/* the grid, its notation, its line, or the error; last, so that a
	 * 9x9 puzzle's slot is used in its first kilobyte (a slot is 5 kB:
	 * page faults were 7% of the racer's time on a large file) */
	struct stream_item item;
};

void race_init(void);
void race_free(void);
/* Slots free for new puzzles; input pauses below two. */
int race_free_slots(void);
/* The next slot to fill with a puzzle from the input. */
struct puzzle *race_next_slot(void);
/* The input filled the slot's item (ev: STREAM_PUZZLE or STREAM_INVALID). */
void race_add(enum stream_event ev, const char *input_name);
/* After a batch of race_add: cache look-ups done, dispatch, output. */
void race_batch_begin(void);
void race_batch_end(void);
/* Everything read has been answered and written out. */
bool race_all_done(void);
/* From the pool. */
void race_worker_ready(struct proc *p);
/* A process began a new request (its head changed). */
void race_head_started(struct proc *p);
void race_message(struct proc *p, uint64_t seq, struct msg *m);
void race_progress(struct proc *p, uint64_t seq, struct msg *m);
void race_lost(struct proc *p, uint64_t seq, enum outcome why);
void race_pool_changed(void);
/* Stops dispatching (shutdown). */
void race_stop(void);
struct puzzle *race_find(uint64_t seq);

/* --- input.c --- */

void input_init(char **names, int n);
void input_start(void);
/* For good: the run is ending. */
void input_stop(void);
void input_resume(void);
bool input_done(void);
void input_free(void);

/* --- output.c --- */

void output_init(void);
/* Writes a finished puzzle's answer (in input order: race.c calls it). */
void output_puzzle(struct puzzle *pz);
/* Writes what is buffered, blocking (at exit). */
void output_flush_all(void);
/* Bytes waiting to be written: input pauses when too many. */
size_t output_backlog(void);
/* Exit status so far: 1 when an answer written was not a solution. */
int output_status(void);
void output_free(void);

/* json.c: one --json line for a finished puzzle, into an evbuffer. */
struct evbuffer;
void json_puzzle(struct evbuffer *out, const struct puzzle *pz, const struct grid *solution);

/* --- cache.c --- */

/* Worker names that proved an unsat or count verdict, comma-separated:
 * at most CACHE_PROVERS_MAX - 1 characters. */
#define CACHE_PROVERS_MAX 48
/* --cache-size: the default, and the least it may be */
#define CACHE_SIZE_DEFAULT ((size_t)1 << 30)
#define CACHE_SIZE_MIN ((size_t)256 << 10)

struct cache_entry {
	enum verdict verdict;  /* V_SOLVED (with uniqueness) or V_UNSAT */
	enum uniqueness uniq;
	double ms;
	char winner[17];
	char version[17];
	/* who proved the unsat verdict or the uniqueness (e.g. "cp,sat");
	 * "" when not recorded (entries of format 1 never record it) */
	char provers[CACHE_PROVERS_MAX];
	struct grid solution;  /* V_SOLVED */
};

/* CACHE_PENDING: the answer comes later (store.h) */
enum cache_result { CACHE_MISS, CACHE_HIT, CACHE_BAD, CACHE_PENDING };

/* Resolves the cache directory (--cache, or XDG). Returns NULL when there
 * is no home to put it in. */
const char *cache_default_dir(void);
/* --cache-size: bytes, or with K, M, G, T (powers of 1024; KiB, KB also). */
int cache_parse_size(const char *s, size_t *bytes);
/* Opens (creating the directory, mode 0700), at most opt.cache_size bytes.
 * On failure -1 and err says why; a damaged store has been set aside
 * (renamed) then, and err says where. */
int cache_open(const char *dir, bool readonly, char *err, size_t errsz);
bool cache_enabled(void);
/* The open store's size limit: --cache-size, else the one it keeps. */
size_t cache_limit(void);
void cache_close(void);
/* Look-ups between begin and end share one read transaction. A hit counts
 * as a use (least recently used entries are evicted first). */
void cache_read_begin(void);
void cache_read_end(void);
enum cache_result cache_get(const struct grid *puzzle, struct cache_entry *e, char *why,
			    size_t whysz);
/* Queued; written in batches (cache_flush, or a timer). An entry already
 * stored stays when it knows as much (a verified solution over unsat,
 * known uniqueness, recorded provers). */
void cache_put(const struct grid *puzzle, const struct cache_entry *e);
void cache_delete(const struct grid *puzzle);
void cache_flush(void);
/* The store failed while running: one warning, then no cache. */
void cache_fail(const char *what, int rc);

struct cache_counts {
	long hits, misses, bad, written, evicted;
};
extern struct cache_counts cache_counts;

/* For cache_cmd.c. status: 1, an entry (puzzle and e); 0, an entry of a
 * newer racer's format; -1, an unreadable one (both NULL). */
typedef void (*cache_visit)(const struct grid *puzzle, const struct cache_entry *e, int status,
			    void *arg);
/* Every entry of the open store. -1 and err when it cannot be read (a
 * damaged store is set aside, and err says so). */
int cache_each(cache_visit fn, void *arg, char *err, size_t errsz);
/* Empties the store in dir. 0: emptied (entries: how many); 1: it was
 * damaged and has been removed (msg says so); -1: msg says why not. */
int cache_clear(const char *dir, size_t *entries, char *msg, size_t msgsz);
/* sudoku-race cache stats|clear|export|import: argv[0] is "cache". */
int cache_command(int argc, char **argv);
/* Encodes and decodes values (shared with cache_cmd.c). */
size_t cache_value_max(void);
/* A value read for puzzle (from either store): a hit (decoded into e and
 * verified), a miss (a newer racer's format), or bad (why says). */
enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len,
			      struct cache_entry *e, char *why, size_t whysz);
size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf,
		    size_t bufsz);
/* 1: ok (puzzle, e filled); 0: a format from a newer racer; -1: bad. */
int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz);

/* --- progress.c --- */

void progress_init(void);
void progress_message(struct proc *p, uint64_t seq, const struct msg *m);
/* Erases the live display before stdout is written to the same terminal. */
void progress_before_output(void);
void progress_end(void);
/* progress_ms to ask workers for (0: none). */
long progress_interval_ms(void);

/* --- stats.c --- */

struct race_counts {
	long puzzles, solved, unsat, multiple, unsolved, timeouts, invalid, unsupported;
	long cache_hits;
	long first_only, escalated, all_at_once; /* how the races ran */
	long confirmed, unconfirmed, liars;       /* verdicts that need proof */
};
extern struct race_counts counts;

void stats_report(double wall_ms);
/* The width of a table's first column: the widest entry label, or the
 * heading, at most `most` (a wider label has a line of its own). */
int label_width(const char *heading, int most);

#endif
