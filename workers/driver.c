/* The worker driver: everything around an algorithm. Filter mode (files or
 * standard input to one answer line per puzzle), protocol mode (PROTOCOL.md),
 * options, clocks, progress, counting. The algorithm is the one object file
 * linked beside this one (worker_algorithm, see worker.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "line_reader.h"
#include "protocol/message.h"
#include "protocol/puzzle_stream.h"
#include "worker.h"

#define ALGO worker_algorithm

enum stop_reason { STOP_NONE, STOP_CANCEL, STOP_TIMEOUT, STOP_QUIT };

struct worker_ctx {
	atomic_int stop;
	uint64_t start_ns, deadline_ns; /* deadline 0: none */
	uint64_t progress_ns, next_progress_ns; /* interval 0: no progress */
	long count_limit;
	uint64_t seed;
	const char *id;    /* protocol mode: the request id */
	const char *where; /* filter mode: "line 7" */
};

static struct {
	bool protocol;
	bool pretty;
	bool progress;
	long count_limit; /* 1: first solution only */
	double time_limit; /* seconds, 0: none */
	uint64_t seed;
	long progress_ms;
	int batch;
	bool timing;
} opt = {.count_limit = 1, .progress_ms = 250};

static const char *program;
static struct worker_init device = {.device = "cpu"};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- the algorithm's side of worker.h --- */

/* Answers waiting in the protocol mode's buffer (see send_answer). */
static atomic_bool answers_waiting;
static void flush_answers(void);

bool worker_should_stop(struct worker_ctx *ctx)
{
	/* a search long enough to poll: the answers before it go out now, so
	 * that the racer's clock of this puzzle starts when it does */
	if (atomic_load_explicit(&answers_waiting, memory_order_relaxed))
		flush_answers();
	if (atomic_load_explicit(&ctx->stop, memory_order_relaxed))
		return true;
	if (ctx->deadline_ns && now_ns() >= ctx->deadline_ns) {
		int none = STOP_NONE;
		atomic_compare_exchange_strong(&ctx->stop, &none, STOP_TIMEOUT);
		return true;
	}
	return false;
}

bool worker_progress_wanted(struct worker_ctx *ctx)
{
	return ctx->progress_ns && now_ns() >= ctx->next_progress_ns;
}

long worker_count_limit(const struct worker_ctx *ctx)
{
	return ctx->count_limit;
}

uint64_t worker_seed(const struct worker_ctx *ctx)
{
	return ctx->seed;
}

double worker_elapsed_ms(const struct worker_ctx *ctx)
{
	return (double)(now_ns() - ctx->start_ns) / 1e6;
}

static void ctx_start(struct worker_ctx *ctx, double limit_s, long progress_ms, long count,
		      uint64_t seed)
{
	atomic_init(&ctx->stop, STOP_NONE);
	ctx->start_ns = now_ns();
	ctx->deadline_ns = limit_s > 0 ? ctx->start_ns + (uint64_t)(limit_s * 1e9) : 0;
	ctx->progress_ns = progress_ms > 0 ? (uint64_t)progress_ms * 1000000u : 0;
	ctx->next_progress_ns = ctx->start_ns + ctx->progress_ns;
	ctx->count_limit = count;
	ctx->seed = seed;
}

/* --- output --- */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* Protocol mode: whole lines to standard output, never split between two
 * writers. Final answers may wait in a buffer while more puzzles are queued
 * (one write, and one wake-up of the racer, for a run of easy puzzles); it
 * is written out before the solver waits for work, when it grows large, and
 * before any other line (progress, cancel acknowledgements, pong). */
static char answers[32768];
static size_t answers_len;

static void write_all(const char *buf, size_t n)
{
	while (n) {
		ssize_t k = write(STDOUT_FILENO, buf, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			/* the racer is gone: nobody wants our answers */
			_exit(0);
		}
		buf += k;
		n -= (size_t)k;
	}
}

/* Called with out_lock held. */
static void flush_answers_locked(void)
{
	if (answers_len)
		write_all(answers, answers_len);
	answers_len = 0;
	atomic_store_explicit(&answers_waiting, false, memory_order_relaxed);
}

static void flush_answers(void)
{
	pthread_mutex_lock(&out_lock);
	flush_answers_locked();
	pthread_mutex_unlock(&out_lock);
}

static void send_buf(const char *buf, size_t n, bool later)
{
	pthread_mutex_lock(&out_lock);
	if (later && n <= sizeof answers) {
		if (answers_len + n > sizeof answers)
			flush_answers_locked();
		memcpy(answers + answers_len, buf, n);
		answers_len += n;
		atomic_store_explicit(&answers_waiting, true, memory_order_relaxed);
	} else {
		flush_answers_locked();
		write_all(buf, n);
	}
	pthread_mutex_unlock(&out_lock);
}

static void send_vline(bool later, const char *fmt, va_list ap)
{
	char buf[PROTO_LINE_MAX];
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	send_buf(buf, (size_t)n, later);
}

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	send_vline(false, fmt, ap);
	va_end(ap);
}

/* A final answer: may wait in the buffer (see above). */
static void send_answer(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_answer(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	send_vline(true, fmt, ap);
	va_end(ap);
}

void worker_progress(struct worker_ctx *ctx, const char *fmt, ...)
{
	char fields[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fields, sizeof fields, fmt, ap);
	va_end(ap);
	uint64_t now = now_ns();
	ctx->next_progress_ns = now + ctx->progress_ns;
	if (opt.protocol) {
		send_line("progress %s %s", ctx->id, fields);
	} else {
		pthread_mutex_lock(&out_lock);
		fprintf(stderr, "%s: %s: %s (%.1f s)\n", program, ctx->where, fields,
			(double)(now - ctx->start_ns) / 1e9);
		pthread_mutex_unlock(&out_lock);
	}
}

void worker_notice(struct worker_ctx *ctx, const char *fmt, ...)
{
	if (opt.protocol)
		return;
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&out_lock);
	fprintf(stderr, "%s: %s: %s\n", program, ctx->where, text);
	pthread_mutex_unlock(&out_lock);
}

/* --- stages' busy times (--timing) --- */

#define MAX_STAGES 16

static struct {
	const char *name;
	double ms;
	bool algorithm; /* the algorithm's, inside "solve" */
} stages[MAX_STAGES];
static int nstages;
static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;

bool worker_timing_wanted(void)
{
	return opt.timing;
}

static void stage_add(const char *stage, double ms, bool algorithm)
{
	pthread_mutex_lock(&stage_lock);
	int i = 0;
	while (i < nstages && strcmp(stages[i].name, stage) != 0)
		i++;
	if (i == nstages && i < MAX_STAGES) {
		stages[i].name = stage;
		stages[i].ms = 0;
		stages[i].algorithm = algorithm;
		nstages++;
	}
	if (i < nstages)
		stages[i].ms += ms;
	pthread_mutex_unlock(&stage_lock);
}

void worker_stage_time(const char *stage, double ms)
{
	stage_add(stage, ms, true);
}

static double ms_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e6;
}

/* --- options --- */

enum {
	OPT_PROTOCOL = 256,
	OPT_PRETTY,
	OPT_PROGRESS_MS,
	OPT_BATCH,
	OPT_TIMING,
	OPT_ALGO_BASE = 1000, /* algorithm option i is OPT_ALGO_BASE + 2i (+1: --no-) */
};

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", program);
	exit(2);
}

static void format_option_default(const struct worker_option *o, char *buf, size_t bufsz)
{
	buf[0] = '\0';
	switch (o->type) {
	case OPT_INT:
		snprintf(buf, bufsz, "(default %d)", *(int *)o->value);
		break;
	case OPT_DOUBLE:
		snprintf(buf, bufsz, "(default %g)", *(double *)o->value);
		break;
	case OPT_FLAG:
		snprintf(buf, bufsz, "(default %s)", *(bool *)o->value ? "on" : "off");
		break;
	case OPT_CHOICE: {
		int idx = *(int *)o->value;
		const char *p = o->choices;
		for (int i = 0; i < idx && p; i++) {
			p = strchr(p, '|');
			if (p)
				p++;
		}
		if (p)
			snprintf(buf, bufsz, "(default %.*s)",
				 (int)(strchr(p, '|') ? strchr(p, '|') - p : (long)strlen(p)), p);
		break;
	}
	}
}

/* Help fits a terminal of HELP_COLUMNS columns. */
#define HELP_COLUMNS 80
/* where an option's help starts: after "  --name=VALUE" in 22 and a space */
#define OPTION_COLUMN 25

static int display_width(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80; /* UTF-8: count lead bytes */
	return w;
}

/* Prints a line of text, broken at spaces where it would pass the last
 * column: the first line goes on at indent; a line after a '\n' starts at
 * indent plus the spaces that begin it, and goes on hang more deeply. */
static void print_wrapped(const char *text, int indent, int hang)
{
	int col = 0;
	int wrap_at = indent; /* where a wrapped rest of this line starts */
	for (const char *p = text; *p;) {
		if (*p == '\n') {
			p++;
			int lead = indent + (int)strspn(p, " ");
			p += strspn(p, " ");
			printf("\n%*s", lead, "");
			col = lead;
			wrap_at = lead + hang;
			continue;
		}
		size_t spaces = strspn(p, " ");
		size_t word = strcspn(p + spaces, " \n");
		int w = display_width(p + spaces, word);
		if (col > wrap_at && col + (int)spaces + w > HELP_COLUMNS) {
			printf("\n%*s", wrap_at, "");
			col = wrap_at;
		} else {
			printf("%.*s", (int)spaces, p);
			col += (int)spaces;
		}
		printf("%.*s", (int)word, p + spaces);
		col += w;
		p += spaces + word;
	}
	putchar('\n');
}

static void print_help(void)
{
	const bool complete = ALGO.kind == WORKER_COMPLETE;
	printf("Usage: %s [OPTION]... [FILE]...\n", program);
	print_wrapped(ALGO.summary, 0, 0);
	char source[512];
	snprintf(source, sizeof source, "Follows %s.", ALGO.source);
	print_wrapped(source, 2, 0);
	printf("\nReads puzzles from the FILEs (or standard input, also for '-') and writes\n"
	       "one line per puzzle, in order: the solution in the puzzle's own notation, or a\n"
	       "line starting with '#' that says why there is none (# invalid: ..., # unsat,\n"
	       "# timeout after ..., # gave up ..., # multiple solutions). Grids of box size\n"
	       "%d to %d (%dx%d to %dx%d).\n\n",
	       ALGO.min_box, ALGO.max_box, ALGO.min_box * ALGO.min_box, ALGO.min_box * ALGO.min_box,
	       ALGO.max_box * ALGO.max_box, ALGO.max_box * ALGO.max_box);
	printf("Options:\n");
	if (complete)
		printf("  -c, --count[=K]        count solutions up to K (default 2): a unique one is\n"
		       "                         printed, else '# unsat' or '# multiple solutions: ...'\n");
	printf("  -t, --time-limit=SECS  give up on a puzzle after SECS seconds (default: none)\n"
	       "  -s, --seed=N           seed of the random numbers: the same seed, the same run\n"
	       "  -p, --progress         report the search's progress on standard error\n"
	       "      --progress-ms=MS   at most one progress report every MS ms (default %ld)\n"
	       "      --pretty           print solutions as boxed grids\n"
	       "      --protocol         speak the racer's line protocol on stdin/stdout\n"
	       "                         (see PROTOCOL.md) instead of filtering\n",
	       opt.progress_ms);
	if (ALGO.solve_batch)
		printf("      --batch=N          solve up to N puzzles at once (default %d)\n"
		       "      --timing           report each launch, and at the end each stage's\n"
		       "                         share of the wall time, on standard error\n",
		       ALGO.batch_max);
	printf("  -h, --help             show this help and exit\n"
	       "  -V, --version          show the version and exit\n");
	if (ALGO.options && ALGO.options[0].name) {
		printf("\n%s options:\n", ALGO.name);
		for (const struct worker_option *o = ALGO.options; o->name; o++) {
			char left[64];
			switch (o->type) {
			case OPT_FLAG:
				snprintf(left, sizeof left, "--[no-]%s", o->name);
				break;
			case OPT_CHOICE:
				snprintf(left, sizeof left, "--%s=%s", o->name, o->choices);
				break;
			case OPT_INT:
				snprintf(left, sizeof left, "--%s=N", o->name);
				break;
			case OPT_DOUBLE:
				snprintf(left, sizeof left, "--%s=X", o->name);
				break;
			}
			/* the default after the help, or on a line of its own
			 * when the help ends with one (a list) */
			char text[1024], dflt[128];
			format_option_default(o, dflt, sizeof dflt);
			size_t n = strlen(o->help);
			snprintf(text, sizeof text, "  %-22s %s%s%s", left, o->help,
				 n && o->help[n - 1] == '\n' ? "" : " ", dflt);
			print_wrapped(text, OPTION_COLUMN, 2);
		}
	}
	printf("\nExit status: 0 when every puzzle was solved, 1 when any was not, 2 for usage\n"
	       "or system errors.\n");
}

static double parse_number(const char *name, const char *s, double min, double max)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || isnan(v))
		usage_error("--%s: '%s' is not a number", name, s);
	if (v < min || v > max)
		usage_error("--%s: %s is out of range (%g to %g)", name, s, min, max);
	return v;
}

static void set_algo_option(const struct worker_option *o, const char *arg, bool negate)
{
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->value = !negate;
		break;
	case OPT_INT: {
		double v = parse_number(o->name, arg, o->min, o->max);
		if (v != floor(v))
			usage_error("--%s: '%s' is not a whole number", o->name, arg);
		*(int *)o->value = (int)v;
		break;
	}
	case OPT_DOUBLE:
		*(double *)o->value = parse_number(o->name, arg, o->min, o->max);
		break;
	case OPT_CHOICE: {
		const char *p = o->choices;
		size_t n = strlen(arg);
		for (int i = 0; p; i++) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			if (len == n && strncmp(p, arg, n) == 0) {
				*(int *)o->value = i;
				return;
			}
			p = bar ? bar + 1 : NULL;
		}
		usage_error("--%s: '%s' is not one of %s", o->name, arg, o->choices);
	}
	}
}

static int parse_options(int argc, char **argv)
{
	static const struct option common[] = {
		{"count", optional_argument, NULL, 'c'},
		{"time-limit", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 's'},
		{"progress", no_argument, NULL, 'p'},
		{"progress-ms", required_argument, NULL, OPT_PROGRESS_MS},
		{"pretty", no_argument, NULL, OPT_PRETTY},
		{"protocol", no_argument, NULL, OPT_PROTOCOL},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"timing", no_argument, NULL, OPT_TIMING},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
	};
	const size_t ncommon = sizeof common / sizeof common[0];
	size_t nalgo = 0;
	while (ALGO.options && ALGO.options[nalgo].name)
		nalgo++;
	/* static: --help, --version and usage errors exit inside the loop, and
	 * memory still reachable at exit is not reported as a leak */
	static struct option *longopts;
	static char (*negated)[64];
	longopts = calloc(ncommon + 2 * nalgo + 1, sizeof *longopts);
	negated = calloc(nalgo + 1, sizeof *negated);
	if (!longopts || !negated) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	memcpy(longopts, common, sizeof common);
	size_t k = ncommon;
	for (size_t i = 0; i < nalgo; i++) {
		const struct worker_option *o = &ALGO.options[i];
		longopts[k++] = (struct option){o->name, o->type == OPT_FLAG ? no_argument : required_argument,
						NULL, OPT_ALGO_BASE + 2 * (int)i};
		if (o->type == OPT_FLAG) {
			snprintf(negated[i], sizeof negated[i], "no-%s", o->name);
			longopts[k++] = (struct option){negated[i], no_argument, NULL,
							OPT_ALGO_BASE + 2 * (int)i + 1};
		}
	}
	bool count_set = false;
	int c;
	opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	opt.batch = ALGO.batch_max > 0 ? ALGO.batch_max : 1;
	while ((c = getopt_long(argc, argv, "c::t:s:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			count_set = true;
			opt.count_limit = optarg ? (long)parse_number("count", optarg, 2, 1e15) : 2;
			break;
		case 't':
			opt.time_limit = parse_number("time-limit", optarg, 0, 1e9);
			break;
		case 's': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				usage_error("--seed: '%s' is not a number from 0 to 2^64-1", optarg);
			opt.seed = v;
			break;
		}
		case 'p':
			opt.progress = true;
			break;
		case OPT_PROGRESS_MS:
			opt.progress_ms = (long)parse_number("progress-ms", optarg, 10, 3600000);
			break;
		case OPT_PRETTY:
			opt.pretty = true;
			break;
		case OPT_PROTOCOL:
			opt.protocol = true;
			break;
		case OPT_BATCH:
			opt.batch = (int)parse_number("batch", optarg, 1, 1 << 20);
			break;
		case OPT_TIMING:
			if (!ALGO.solve_batch)
				usage_error("--timing is for workers that solve batches");
			opt.timing = true;
			break;
		case 'h':
			print_help();
			exit(0);
		case 'V':
			printf("%s (sudoku-race) %s\n%s\n", program, PACKAGE_VERSION, VERSION_NOTICE);
			exit(0);
		case '?':
			fprintf(stderr, "Try '%s --help' for more information.\n", program);
			exit(2);
		default: {
			int i = (c - OPT_ALGO_BASE) / 2;
			set_algo_option(&ALGO.options[i], optarg, (c - OPT_ALGO_BASE) % 2);
		}
		}
	}
	free(longopts);
	free(negated);
	longopts = NULL;
	negated = NULL;
	if (count_set && ALGO.kind != WORKER_COMPLETE)
		usage_error("--count needs a complete worker; %s is stochastic", ALGO.name);
	if (opt.protocol && optind < argc)
		usage_error("--protocol reads standard input: no FILE arguments");
	return optind;
}

/* --- answers --- */

static const char *kind_word(void)
{
	return ALGO.kind == WORKER_COMPLETE ? "complete" : "stochastic";
}

static bool size_supported(int box)
{
	return box >= ALGO.min_box && box <= ALGO.max_box && box <= device.max_box;
}

/* --- protocol mode --- */

enum job_kind { JOB_SOLVE, JOB_ERROR, JOB_CLASH };

struct job {
	struct job *next;
	enum job_kind kind;
	char id[PROTO_ID_MAX];
	char text[GRID_ERR_MAX + 64]; /* JOB_ERROR, JOB_CLASH: the message */
	uint64_t seed;
	long limit_ms, count, progress_ms;
	atomic_bool cancelled;
	bool acked; /* its cancel was acknowledged while its batch ran on */
	struct grid grid;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_wake = PTHREAD_COND_INITIALIZER;
static struct job *queue_head, *queue_tail;
static bool input_done, quitting;

/* Jobs answered, kept for reuse (under queue_lock): a malloc in the reading
 * thread and a free in a solving thread for every puzzle cost more than an
 * easy puzzle's search (arena locks, and the heap trimmed and faulted back
 * in page by page). */
static struct job *spare_jobs;

/* Called with queue_lock held. */
static void spare_job(struct job *j)
{
	j->next = spare_jobs;
	spare_jobs = j;
}

/* The batches being solved: one at a time, or for an algorithm with
 * solve_batch two (the GPU's expansion of one beside the other's
 * launches), each taken by a solving thread of its own; answers go out in
 * the order the requests came (turns, by a batch's place in the queue). */
#define PROTO_SOLVERS 2
struct slot {
	struct job **jobs; /* opt.batch at most */
	int n;
	struct worker_ctx *ctx;
	bool waiting; /* solved, waiting for its turn to answer */
};
static struct slot slots[PROTO_SOLVERS];
static int nslots;
static long turns_taken, turn_now;
static pthread_cond_t turn_wake = PTHREAD_COND_INITIALIZER;

/* The job of a batch being solved with this id, and its slot. */
static struct job *running_job(const char *id, struct slot **in)
{
	for (int k = 0; k < nslots; k++)
		for (int i = 0; i < slots[k].n; i++)
			if (strcmp(slots[k].jobs[i]->id, id) == 0) {
				*in = &slots[k];
				return slots[k].jobs[i];
			}
	return NULL;
}

static bool id_in_flight(const char *id)
{
	for (struct job *j = queue_head; j; j = j->next)
		if (strcmp(j->id, id) == 0)
			return true;
	struct slot *sl;
	return running_job(id, &sl) != NULL;
}

static long field_number(const struct msg *m, const char *key, long dflt, long min, long max,
			 bool *bad)
{
	const char *v = msg_field(m, key);
	if (!v)
		return dflt;
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max) {
		*bad = true;
		return dflt;
	}
	return (long)x;
}

/* Turns a solve message into a job (one that may already be answered). */
static struct job *make_job(const struct msg *m, struct job **spares)
{
	/* not calloc: the grid's 4 kB are written by grid_parse, as far as the
	 * puzzle's size needs, and zeroing them was a tenth of a job's cost */
	struct job *j = *spares;
	if (j)
		*spares = j->next;
	else if (!(j = malloc(sizeof *j))) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	j->next = NULL;
	j->acked = false;
	j->text[0] = '\0';
	grid_init(&j->grid, GRID_MIN_BOX);
	char err[GRID_ERR_MAX];
	struct notation nt;
	bool bad = false;
	snprintf(j->id, sizeof j->id, "%s", m->id);
	atomic_init(&j->cancelled, false);
	j->kind = JOB_SOLVE;
	j->limit_ms = field_number(m, "limit_ms", (long)(opt.time_limit * 1000), 0, 1L << 40, &bad);
	j->count = field_number(m, "count", 1, 1, 1L << 50, &bad);
	j->progress_ms = field_number(m, "progress_ms", 0, 0, 1L << 40, &bad);
	if (j->progress_ms > 0 && j->progress_ms < 10)
		j->progress_ms = 10;
	const char *seed = msg_field(m, "seed");
	j->seed = opt.seed;
	if (seed) {
		char *end;
		errno = 0;
		j->seed = strtoull(seed, &end, 10);
		bad |= errno || end == seed || *end;
	}
	if (bad) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "bad field value");
	} else if (grid_parse(m->argv[0], strlen(m->argv[0]), &j->grid, &nt, err, sizeof err) < 0) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "invalid puzzle: %s", err);
	} else if (!size_supported(j->grid.box)) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "size %dx%d not supported (box sizes %d-%d)",
			 j->grid.side, j->grid.side, ALGO.min_box,
			 device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box);
	} else if (j->count > 1 && ALGO.kind != WORKER_COMPLETE) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "counting needs a complete worker");
	} else if (grid_check_givens(&j->grid, err, sizeof err) < 0) {
		j->kind = JOB_CLASH;
		snprintf(j->text, sizeof j->text, "%s", err);
	}
	return j;
}

static void handle_cancel(const char *id)
{
	pthread_mutex_lock(&queue_lock);
	struct slot *sl;
	struct job *j = running_job(id, &sl);
	if (j) {
		atomic_store(&j->cancelled, true);
		bool all = true;
		for (int k = 0; k < sl->n; k++)
			all &= atomic_load(&sl->jobs[k]->cancelled);
		if (all && sl->ctx) {
			int none = STOP_NONE;
			atomic_compare_exchange_strong(&sl->ctx->stop, &none, STOP_CANCEL);
		}
		/* a batch that goes on for the others, or one that waits for
		 * the batch before it, must not hold this acknowledgement back
		 * (PROTOCOL.md 8): send it now, and nothing when it answers */
		bool ack_now = (!all || sl->waiting) && !j->acked;
		if (ack_now)
			j->acked = true;
		pthread_mutex_unlock(&queue_lock);
		if (ack_now)
			send_line("cancelled %s", id);
		return;
	}
	struct job **pp = &queue_head, *prev = NULL;
	while (*pp && strcmp((*pp)->id, id) != 0) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	j = *pp;
	char id_copy[PROTO_ID_MAX];
	if (j) {
		*pp = j->next;
		if (queue_tail == j)
			queue_tail = prev;
		snprintf(id_copy, sizeof id_copy, "%s", j->id);
		spare_job(j);
	}
	pthread_mutex_unlock(&queue_lock);
	if (j)
		send_line("cancelled %s", id_copy);
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;
		free(j);
		j = next;
	}
}

static void *reader_main(void *arg)
{
	(void)arg;
	struct line_reader lr;
	if (line_reader_init(&lr, STDIN_FILENO, PROTO_LINE_MAX - 1) < 0) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	/* the reader's own stock of spare jobs, refilled from spare_jobs while
	 * it holds the lock anyway; and the solves queued since the solving
	 * threads were last woken: they are woken once for a run of lines read
	 * at once, not once a line */
	struct job *spares = NULL;
	int unsignalled = 0;
	for (;;) {
		char *line;
		size_t len;
		if (unsignalled && !line_reader_buffered(&lr)) {
			pthread_mutex_lock(&queue_lock);
			pthread_cond_signal(&queue_wake);
			pthread_mutex_unlock(&queue_lock);
			unsignalled = 0;
		}
		enum line_status st = line_reader_next(&lr, &line, &len);
		if (st == LINE_EOF || st == LINE_ERROR)
			break;
		if (st == LINE_OVERLONG) {
			send_line("error - line %ld is longer than %d bytes", lr.lineno, PROTO_LINE_MAX);
			continue;
		}
		struct msg m;
		char err[128];
		if (msg_parse(line, len, &m, err, sizeof err) < 0) {
			send_line("error - line %ld: %s", lr.lineno, err);
			continue;
		}
		switch (m.type) {
		case MSG_SOLVE: {
			struct job *j = make_job(&m, &spares);
			pthread_mutex_lock(&queue_lock);
			if (id_in_flight(j->id)) {
				j->kind = JOB_ERROR;
				snprintf(j->text, sizeof j->text, "duplicate id");
			}
			j->next = NULL;
			if (queue_tail)
				queue_tail->next = j;
			else
				queue_head = j;
			queue_tail = j;
			if (!spares) {
				spares = spare_jobs;
				spare_jobs = NULL;
			}
			if (++unsignalled >= 16) {
				pthread_cond_signal(&queue_wake);
				unsignalled = 0;
			}
			pthread_mutex_unlock(&queue_lock);
			break;
		}
		case MSG_CANCEL:
			handle_cancel(m.id);
			break;
		case MSG_PING:
			send_line("pong %s", m.argv[0]);
			break;
		case MSG_QUIT:
			pthread_mutex_lock(&queue_lock);
			quitting = true;
			for (int k = 0; k < nslots; k++)
				if (slots[k].ctx)
					atomic_store(&slots[k].ctx->stop, STOP_QUIT);
			pthread_cond_broadcast(&queue_wake);
			pthread_cond_broadcast(&turn_wake);
			pthread_mutex_unlock(&queue_lock);
			free_jobs(spares);
			line_reader_free(&lr);
			return NULL;
		default:
			break; /* unknown or not for a worker: ignored (PROTOCOL.md 9) */
		}
	}
	free_jobs(spares);
	line_reader_free(&lr);
	pthread_mutex_lock(&queue_lock);
	input_done = true;
	pthread_cond_broadcast(&queue_wake);
	pthread_mutex_unlock(&queue_lock);
	return NULL;
}

static char *put_text(char *at, const char *s, size_t n)
{
	memcpy(at, s, n);
	return at + n;
}

static char *put_u64(char *at, uint64_t x)
{
	char digits[24], *d = digits + sizeof digits;
	do
		*--d = (char)('0' + x % 10);
	while ((x /= 10));
	return put_text(at, d, (size_t)(digits + sizeof digits - d));
}

/* "solution ID GRID nodes=N ms=M", the answer to nearly every puzzle, put
 * together by hand: vsnprintf's %.3f was a tenth of an easy puzzle's cost */
static void send_solution(const char *id, const struct grid *solution, uint64_t nodes, double ms)
{
	char line[PROTO_ID_MAX + GRID_MAX_CELLS * 3 + 96];
	char *at = put_text(line, "solution ", 9);
	at = put_text(at, id, strlen(id));
	*at++ = ' ';
	at += msg_format_grid(solution, at, (size_t)(line + sizeof line - at));
	at = put_u64(put_text(at, " nodes=", 7), nodes);
	uint64_t us = ms > 0 ? (uint64_t)(ms * 1000 + 0.5) : 0;
	at = put_u64(put_text(at, " ms=", 4), us / 1000);
	*at++ = '.';
	*at++ = (char)('0' + us / 100 % 10);
	*at++ = (char)('0' + us / 10 % 10);
	*at++ = (char)('0' + us % 10);
	*at++ = '\n';
	send_buf(line, (size_t)(at - line), true);
}

static void send_final(const struct job *j, enum solve_status st, const struct solve_result *res,
		       enum stop_reason why, double ms)
{
	char grid[GRID_MAX_CELLS * 3 + 1];
	if (j->acked)
		return;
	if (atomic_load(&j->cancelled)) {
		send_answer("cancelled %s", j->id);
		return;
	}
	switch (st) {
	case SOLVE_SOLVED:
		if (!grid_verify(&j->grid, &res->solution, NULL, 0)) {
			/* never pass on a wrong answer, even our own */
			send_answer("error %s internal error: %s found a wrong answer", j->id, ALGO.name);
			return;
		}
		if (j->count <= 1) {
			send_solution(j->id, &res->solution, res->nodes, ms);
			break;
		}
		msg_format_grid(&res->solution, grid, sizeof grid);
		if (j->count > 1)
			send_answer("count %s %ld %s nodes=%" PRIu64 " ms=%.3f", j->id, res->count, grid,
				  res->nodes, ms);
		else
			send_answer("solution %s %s nodes=%" PRIu64 " ms=%.3f", j->id, grid, res->nodes, ms);
		break;
	case SOLVE_UNSAT:
		if (j->count > 1)
			send_answer("count %s 0 nodes=%" PRIu64 " ms=%.3f", j->id, res->nodes, ms);
		else
			send_answer("unsat %s nodes=%" PRIu64 " ms=%.3f", j->id, res->nodes, ms);
		break;
	case SOLVE_GAVEUP:
		send_answer("gaveup %s %s ms=%.3f", j->id, res->reason[0] ? res->reason : "unknown", ms);
		break;
	case SOLVE_STOPPED:
		if (why == STOP_CANCEL)
			send_answer("cancelled %s", j->id);
		else
			send_answer("gaveup %s timeout ms=%.3f", j->id, ms);
		break;
	}
}

/* Waits for this batch's turn to answer (its place in the queue). */
static void wait_turn(long turn)
{
	pthread_mutex_lock(&queue_lock);
	while (turn_now != turn)
		pthread_cond_wait(&turn_wake, &queue_lock);
	pthread_mutex_unlock(&queue_lock);
}

static void end_turn(void)
{
	pthread_mutex_lock(&queue_lock);
	turn_now++;
	pthread_cond_broadcast(&turn_wake);
	pthread_mutex_unlock(&queue_lock);
}

/* Solves the batch in slot sl and answers it in its turn. */
static void solve_jobs(struct slot *sl, struct job **jobs, int n, long turn)
{
	struct worker_ctx ctx = {.id = jobs[0]->id};
	/* one puzzle at a time with one solving thread (all but the GPU): its
	 * result is kept, and only the fields an algorithm may leave alone are
	 * cleared (the solution is written whole when there is one) */
	static struct solve_result one_res;
	static enum solve_status one_st;
	struct solve_result *res = &one_res;
	enum solve_status *st = &one_st;
	bool own = n > 1 || nslots > 1;
	if (own) {
		res = calloc((size_t)n, sizeof *res);
		st = calloc((size_t)n, sizeof *st);
		if (!res || !st) {
			fprintf(stderr, "%s: out of memory\n", program);
			exit(2);
		}
	} else {
		one_res.count = 0;
		one_res.nodes = 0;
		one_res.reason[0] = '\0';
		grid_init(&one_res.solution, GRID_MIN_BOX);
	}
	long limit = 0;
	for (int i = 0; i < n; i++)
		limit = jobs[i]->limit_ms > limit ? jobs[i]->limit_ms : limit;
	ctx_start(&ctx, (double)limit / 1000.0, jobs[0]->progress_ms, jobs[0]->count, jobs[0]->seed);
	pthread_mutex_lock(&queue_lock);
	sl->ctx = &ctx;
	if (quitting)
		atomic_store(&ctx.stop, STOP_QUIT);
	pthread_mutex_unlock(&queue_lock);
	if (n == 1) {
		st[0] = ALGO.solve(&jobs[0]->grid, &res[0], &ctx);
	} else {
		const struct grid **grids = calloc((size_t)n, sizeof *grids);
		struct solve_result **out = calloc((size_t)n, sizeof *out);
		if (!grids || !out)
			exit(2);
		for (int i = 0; i < n; i++) {
			grids[i] = &jobs[i]->grid;
			out[i] = &res[i];
		}
		ALGO.solve_batch(grids, n, out, st, &ctx);
		free(grids);
		free(out);
	}
	double ms = worker_elapsed_ms(&ctx);
	/* still in the slot while it waits for its turn, so that a cancel
	 * finds its jobs; those cancelled already are acknowledged now */
	bool *ack = calloc((size_t)n, sizeof *ack);
	if (!ack) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	pthread_mutex_lock(&queue_lock);
	sl->waiting = true;
	for (int i = 0; i < n; i++)
		if (atomic_load(&jobs[i]->cancelled) && !jobs[i]->acked)
			ack[i] = jobs[i]->acked = true;
	pthread_mutex_unlock(&queue_lock);
	for (int i = 0; i < n; i++)
		if (ack[i])
			send_line("cancelled %s", jobs[i]->id);
	free(ack);
	wait_turn(turn);
	pthread_mutex_lock(&queue_lock);
	sl->ctx = NULL;
	sl->n = 0;
	sl->waiting = false;
	bool quit = quitting;
	pthread_mutex_unlock(&queue_lock);
	if (!quit)
		for (int i = 0; i < n; i++)
			send_final(jobs[i], st[i], &res[i], (enum stop_reason)atomic_load(&ctx.stop), ms);
	end_turn();
	if (own) {
		free(res);
		free(st);
	}
}

/* A solving thread: takes the next batch from the queue into its slot. */
static void *solver_main(void *arg)
{
	struct slot *sl = arg;
	struct job **copy = malloc((size_t)opt.batch * sizeof *copy);
	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	struct job *answered = NULL; /* for spare_jobs, when the lock is next held */
	for (;;) {
		int n = 0;
		pthread_mutex_lock(&queue_lock);
		while (answered) {
			struct job *next = answered->next;
			spare_job(answered);
			answered = next;
		}
		if (!queue_head) {
			/* nothing to do: the answers so far go out before the wait */
			pthread_mutex_unlock(&queue_lock);
			flush_answers();
			pthread_mutex_lock(&queue_lock);
		}
		while (!queue_head && !input_done && !quitting)
			pthread_cond_wait(&queue_wake, &queue_lock);
		if (quitting || !queue_head) {
			pthread_mutex_unlock(&queue_lock);
			flush_answers();
			break;
		}
		const long turn = turns_taken++;
		struct job *head = queue_head;
		if (head->kind != JOB_SOLVE) {
			/* already answered: keep its place in the order */
			queue_head = head->next;
			if (!queue_head)
				queue_tail = NULL;
			pthread_mutex_unlock(&queue_lock);
			wait_turn(turn);
			if (head->kind == JOB_CLASH) {
				if (ALGO.kind == WORKER_COMPLETE)
					send_answer(head->count > 1 ? "count %s 0 reason=clash" : "unsat %s reason=clash",
						    head->id);
				else
					send_answer("gaveup %s unsat", head->id);
			} else {
				send_answer("error %s %s", head->id, head->text);
			}
			end_turn();
			head->next = answered;
			answered = head;
			continue;
		}
		/* a batch: solve jobs from the head with the same count */
		while (queue_head && queue_head->kind == JOB_SOLVE && n < opt.batch &&
		       queue_head->count == head->count && (n == 0 || ALGO.solve_batch)) {
			sl->jobs[n++] = queue_head;
			queue_head = queue_head->next;
		}
		if (!queue_head)
			queue_tail = NULL;
		sl->n = n;
		pthread_mutex_unlock(&queue_lock);
		memcpy(copy, sl->jobs, (size_t)n * sizeof *copy);
		solve_jobs(sl, copy, n, turn);
		for (int i = 0; i < n; i++) {
			copy[i]->next = answered;
			answered = copy[i];
		}
	}
	free_jobs(answered);
	free(copy);
	return NULL;
}

static int protocol_main(void)
{
	pthread_t reader, solver[PROTO_SOLVERS];
	signal(SIGPIPE, SIG_IGN);
	nslots = ALGO.solve_batch ? PROTO_SOLVERS : 1;
	for (int k = 0; k < nslots; k++) {
		slots[k].jobs = calloc((size_t)opt.batch, sizeof *slots[k].jobs);
		if (!slots[k].jobs)
			return 2;
	}
	char detail[sizeof device.detail + 16] = "";
	if (device.detail[0]) {
		char d[sizeof device.detail];
		snprintf(d, sizeof d, "%s", device.detail);
		for (char *p = d; *p; p++)
			if (*p == ' ' || *p < 0x20 || *p == 0x7f)
				*p = '_';
		snprintf(detail, sizeof detail, " detail=%s", d);
	}
	int max_box = device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box;
	send_line("hello %s %s proto=%d kind=%s sizes=%d-%d device=%s%s batch=%d", ALGO.name,
		  PACKAGE_VERSION, PROTO_VERSION, kind_word(), ALGO.min_box, max_box, device.device,
		  detail, opt.batch);
	if (pthread_create(&reader, NULL, reader_main, NULL) != 0) {
		fprintf(stderr, "%s: cannot start the reader thread\n", program);
		return 2;
	}
	pthread_detach(reader);
	for (int k = 1; k < nslots; k++)
		if (pthread_create(&solver[k], NULL, solver_main, &slots[k]) != 0) {
			fprintf(stderr, "%s: cannot start a solving thread\n", program);
			return 2;
		}
	solver_main(&slots[0]);
	for (int k = 1; k < nslots; k++)
		pthread_join(solver[k], NULL);
	return 0;
}

/* --- filter mode --- */

struct pending {
	struct stream_item item;
	bool solve;     /* still to be solved */
	char text[GRID_ERR_MAX + 96]; /* the answer when it is a '#' line */
	bool failed;    /* counts towards exit status 1 */
	enum solve_status st;
	struct solve_result res;
};

static struct pending *pending;
static int npending, nsolve;
static int exit_status;
static const char *input_name; /* NULL for standard input */

/* Text built up in memory: a batch's answers, formatted by several threads
 * at once and written in order. */
struct out_buf {
	char *p;
	size_t len, cap;
};

static char *out_room(struct out_buf *o, size_t more)
{
	if (o->len + more + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + more + 1)
			cap *= 2;
		char *p = realloc(o->p, cap);
		if (!p) {
			fprintf(stderr, "%s: out of memory\n", program);
			exit(2);
		}
		o->p = p;
		o->cap = cap;
	}
	return o->p + o->len;
}

static void out_printf(struct out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out_buf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	char *at = out_room(o, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(at, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

/* The answer to a puzzle that was searched, appended to o: the solution
 * (verified first) or a '#' line. Sets *failed when it is not a solution. */
static void format_verdict(struct out_buf *o, const struct grid *puzzle, const struct notation *nt,
			   enum solve_status st, long count, const struct grid *solution, const char *reason,
			   bool *failed)
{
	switch (st) {
	case SOLVE_SOLVED: {
		char why[GRID_ERR_MAX];
		if (!grid_verify(puzzle, solution, why, sizeof why)) {
			out_printf(o, "# error: %s gave a wrong answer (%s)\n", ALGO.name, why);
			*failed = true;
		} else if (opt.count_limit > 1 && count > 1) {
			if (count >= opt.count_limit)
				out_printf(o, "# multiple solutions: at least %ld\n", count);
			else
				out_printf(o, "# multiple solutions: %ld\n", count);
			*failed = true;
		} else {
			size_t sz = opt.pretty ? grid_format_pretty_max(puzzle->side) : grid_format_max(puzzle->side);
			char *at = out_room(o, sz + 1);
			int n = opt.pretty ? grid_format_pretty(solution, nt, at, sz) : grid_format(solution, nt, at, sz);
			if (n < 0)
				n = 0;
			o->len += (size_t)n;
			if (!opt.pretty)
				o->p[o->len++] = '\n';
		}
		break;
	}
	case SOLVE_UNSAT:
		out_printf(o, "# unsat\n");
		*failed = true;
		break;
	case SOLVE_GAVEUP:
		out_printf(o, "# gave up: %s\n", reason[0] ? reason : "no solution found");
		*failed = true;
		break;
	case SOLVE_STOPPED:
		if (ALGO.kind == WORKER_COMPLETE)
			out_printf(o, "# timeout after %g s\n", opt.time_limit);
		else
			out_printf(o, "# gave up after %g s\n", opt.time_limit);
		*failed = true;
		break;
	}
}

/* A pending puzzle's answer line (or boxed grid), appended to o. */
static void format_pending(struct pending *p, struct out_buf *o)
{
	if (!p->solve) {
		out_printf(o, "%s\n", p->text);
		return;
	}
	format_verdict(o, &p->item.grid, &p->item.notation, p->st, p->res.count, &p->res.solution,
		       p->res.reason, &p->failed);
}

static void print_pending(struct pending *p)
{
	struct out_buf o = {NULL, 0, 0};
	format_pending(p, &o);
	fwrite(o.p, 1, o.len, stdout);
	free(o.p);
}

/* Solves what is pending, then prints every pending answer in order. */
static void flush_pending(void)
{
	int first = 0;
	while (first < npending) {
		/* the puzzles of one call: a run of up to opt.batch to solve */
		/* on the heap: a batch of 8192 results would be tens of MB of stack */
		struct pending **run = malloc((size_t)npending * sizeof *run);
		if (!run) {
			fprintf(stderr, "%s: out of memory\n", program);
			exit(2);
		}
		int n = 0;
		for (int i = first; i < npending && n < opt.batch; i++)
			if (pending[i].solve)
				run[n++] = &pending[i];
		if (n == 0) {
			free(run);
			break;
		}
		struct worker_ctx ctx;
		/* only progress reports name the line: formatting it for every
		 * puzzle cost a tenth of sudoku-cp's time on easy 9x9 sets */
		char where[128] = "";
		if (opt.progress && input_name)
			snprintf(where, sizeof where, "%s: line %ld", input_name, run[0]->item.line);
		else if (opt.progress)
			snprintf(where, sizeof where, "line %ld", run[0]->item.line);
		ctx.where = where;
		ctx.id = NULL;
		ctx_start(&ctx, opt.time_limit, opt.progress ? opt.progress_ms : 0, opt.count_limit, opt.seed);
		/* one puzzle at a time: an algorithm with solve_batch goes through
		 * the pipeline (pipeline_main) */
		for (int i = 0; i < n; i++) {
			if (i) {
				if (opt.progress && input_name)
					snprintf(where, sizeof where, "%s: line %ld", input_name, run[i]->item.line);
				else if (opt.progress)
					snprintf(where, sizeof where, "line %ld", run[i]->item.line);
				ctx_start(&ctx, opt.time_limit, opt.progress ? opt.progress_ms : 0, opt.count_limit,
					  opt.seed);
			}
			run[i]->st = ALGO.solve(&run[i]->item.grid, &run[i]->res, &ctx);
		}
		/* the answered part ends just after the last puzzle of the run */
		int last = (int)(run[n - 1] - pending);
		free(run);
		for (int i = first; i <= last; i++) {
			print_pending(&pending[i]);
			if (pending[i].failed)
				exit_status = 1;
		}
		first = last + 1;
	}
	for (int i = first; i < npending; i++) {
		print_pending(&pending[i]);
		if (pending[i].failed)
			exit_status = 1;
	}
	npending = nsolve = 0;
}

/* file: the input's name, or NULL. */
static void describe_unsupported(char *buf, size_t bufsz, const char *file, long line, int side)
{
	snprintf(buf, bufsz, "# unsupported: %s%sline %ld: %s takes box sizes %d to %d, not %dx%d",
		 file ? file : "", file ? ": " : "", line, ALGO.name, ALGO.min_box, device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box,
		 side, side);
}

static void take_item(enum stream_event ev, struct stream_item *item)
{
	struct pending *p = &pending[npending++];
	/* error lines name the file, when there is one */
	const char *prefix = input_name ? input_name : "", *colon = input_name ? ": " : "";
	char err[GRID_ERR_MAX];
	p->solve = false;
	p->failed = true;
	memset(&p->res, 0, sizeof p->res);
	if (ev == STREAM_INVALID) {
		snprintf(p->text, sizeof p->text, "# invalid: %s%s%s", prefix, colon, item->error);
	} else if (!size_supported(item->grid.box)) {
		describe_unsupported(p->text, sizeof p->text, input_name, item->line, item->grid.side);
	} else if (grid_check_givens(&item->grid, err, sizeof err) < 0) {
		snprintf(p->text, sizeof p->text, "# unsat: %s%sline %ld: %s", prefix, colon, item->line,
			 err);
	} else {
		p->item = *item;
		p->solve = true;
		p->failed = false;
		nsolve++;
	}
	if (!p->solve)
		p->item.line = item->line;
}

static int filter_input(int fd)
{
	struct line_reader lr;
	struct puzzle_stream ps;
	struct stream_item *item = malloc(sizeof *item);
	if (!item || line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	puzzle_stream_init(&ps);
	int rc = 0;
	for (;;) {
		if (!line_reader_buffered(&lr)) {
			/* about to wait for input: answer what we have, so that a
			 * slow producer in a pipeline sees answers as they come */
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			if (npending && poll(&pfd, 1, 0) == 0)
				flush_pending();
			if (poll(&pfd, 1, 0) == 0)
				fflush(stdout);
		}
		char *line;
		size_t len;
		bool again;
		enum stream_event ev;
		enum line_status st = line_reader_next(&lr, &line, &len);
		if (st == LINE_ERROR) {
			fprintf(stderr, "%s: %s: %s\n", program, input_name ? input_name : "standard input",
				strerror(errno));
			rc = -1;
			break;
		}
		if (st == LINE_EOF) {
			ev = puzzle_stream_finish(&ps, item);
			if (ev != STREAM_NONE)
				take_item(ev, item);
			break;
		}
		if (st == LINE_OVERLONG) {
			ev = puzzle_stream_overlong(&ps, lr.lineno, item, &again);
			if (ev != STREAM_NONE)
				take_item(ev, item);
		} else {
			do {
				ev = puzzle_stream_feed(&ps, line, len, lr.lineno, item, &again);
				if (ev != STREAM_NONE)
					take_item(ev, item);
			} while (again);
		}
		if (nsolve >= opt.batch || npending >= 2 * opt.batch + 1)
			flush_pending();
	}
	flush_pending();
	free(item);
	line_reader_free(&lr);
	return rc;
}

/* --- filter mode for batch algorithms: a pipeline --- */

/* Batches of input lines pass through stages in input order, each stage in
 * threads of its own, so that the algorithm (the GPU) never waits for one
 * CPU thread: reading (this thread copies lines into a batch), parsing (the
 * batch's lines cut into parts, parsed at once by several threads),
 * solving (two threads, a batch each: one's expansion on the CPU overlaps
 * the other's launches), formatting (the parts again) and writing. The
 * algorithm's init (CUDA's start) runs in a thread beside the first reads.
 * Answers come out as the one-batch-at-a-time path writes them. */

/* batches in flight: deep enough that the whole of a million puzzles can
 * be read and parsed while CUDA starts (0.3 s); a batch of 32768 takes
 * about 12 MB here */
#define PIPE_BATCHES 16
#define PIPE_SOLVERS 2
#define PIPE_MAX_PARTS 16
#define PART_MIN_LINES 512 /* a part of fewer lines is not worth a thread */

struct line_ref {
	size_t off; /* into the batch's text */
	long len;   /* -1: a line over PUZZLE_LINE_MAX, skipped */
	long lineno;
};

/* A puzzle or a '#' line of the output. Small, with its grids apart and
 * short: a batch's records are written afresh by each batch, and records
 * of a whole struct grid (4 KB) cost more in page faults than the GPU's
 * launches did. */
struct record {
	long line;
	struct notation notation;
	bool puzzle;  /* parsed as a puzzle: its size is checked before solving */
	bool solve;   /* searched: st and count hold the verdict */
	bool failed;  /* counts towards exit status 1 */
	enum solve_status st;
	long count;
	size_t note;     /* a '#' line, or the reason of a SOLVE_GAVEUP: in notes */
	size_t grid;     /* the puzzle's short grid in the arena; the answer's follows it */
};

/* A short grid: the header and the cells used of a struct grid, all that
 * solve_batch and the verdict read of a puzzle (see worker.h). */
static size_t short_grid_size(int cells)
{
	size_t n = offsetof(struct grid, cell) + (size_t)cells;
	return (n + 7) & ~(size_t)7;
}

/* A slice of a batch's lines: parsed by one thread, formatted by one. */
struct part {
	int first, nlines;
	struct record *rec; /* its puzzles and '#' lines, in order */
	int nrec, cap;
	struct out_buf arena; /* the records' short grids */
	struct out_buf notes; /* the records' '#' lines and reasons, each NUL-terminated */
	struct stream_item *item; /* the parser's (4 KB: kept) */
	struct puzzle_stream *ps; /* the stream after its lines */
	struct out_buf out;
	bool failed;
	double ms; /* the thread's busy time */
};

enum batch_state { BATCH_FREE, BATCH_READ, BATCH_PARSED, BATCH_SOLVING, BATCH_SOLVED };

struct batch {
	enum batch_state state;
	const char *input_name;
	bool input_end; /* its input's last lines: an unfinished grid ends with them */
	char *text;
	size_t text_len, text_cap;
	struct line_ref *lines;
	int nlines, lines_cap;
	struct part part[PIPE_MAX_PARTS];
	int nparts;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct batch ring[PIPE_BATCHES];
	long nread; /* batches handed on by the reader */
	bool reading_done;
	long next_solve;
	struct puzzle_stream carried; /* the stream between batches */
	int max_parts;
	long puzzles;
	struct solve_result *results[PIPE_SOLVERS]; /* each solving thread's, batch after batch */
	int results_cap[PIPE_SOLVERS];
	pthread_t init_thread;
	int init_rc;
	char init_msg[256];
	double init_ms;
} pl = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void *pl_alloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	return p;
}

/* --- the algorithm's start, in its own thread --- */

static void *pl_init_main(void *arg)
{
	(void)arg;
	uint64_t t0 = now_ns();
	pl.init_rc = ALGO.init(&device, pl.init_msg, sizeof pl.init_msg);
	pl.init_ms = ms_since(t0);
	return NULL;
}

static pthread_once_t pl_init_once = PTHREAD_ONCE_INIT;

/* Waits for the init thread, then what main() does after init: a usage
 * error or no device ends the program before any answer is written. */
static void pl_init_joined(void)
{
	if (ALGO.init) {
		pthread_join(pl.init_thread, NULL);
		stage_add("start", pl.init_ms, false);
		if (pl.init_rc < 0)
			usage_error("%s", pl.init_msg);
	}
	if (strcmp(device.device, "none") == 0) {
		fprintf(stderr, "%s: no usable device%s%s\n", program, device.detail[0] ? ": " : "",
			device.detail);
		exit(2);
	}
}

/* --- handing batches on --- */

/* Waits until batch seq is in state st; NULL when the input has no batch
 * seq. */
static struct batch *pl_wait(long seq, enum batch_state st)
{
	struct batch *b = &pl.ring[seq % PIPE_BATCHES];
	pthread_mutex_lock(&pl.lock);
	while (!(seq < pl.nread && b->state == st)) {
		if (pl.reading_done && seq >= pl.nread) {
			b = NULL;
			break;
		}
		pthread_cond_wait(&pl.wake, &pl.lock);
	}
	pthread_mutex_unlock(&pl.lock);
	return b;
}

static void pl_hand_on(struct batch *b, enum batch_state st)
{
	pthread_mutex_lock(&pl.lock);
	b->state = st;
	pthread_cond_broadcast(&pl.wake);
	pthread_mutex_unlock(&pl.lock);
}

/* Runs fn on each part of b, the first in this thread, the others in
 * threads of their own. */
struct part_task {
	struct batch *b;
	struct part *pt;
};

static void pl_run_parts(struct batch *b, void *(*fn)(void *))
{
	struct part_task task[PIPE_MAX_PARTS];
	pthread_t thread[PIPE_MAX_PARTS];
	bool started[PIPE_MAX_PARTS] = {false};
	for (int k = 0; k < b->nparts; k++)
		task[k] = (struct part_task){b, &b->part[k]};
	for (int k = 1; k < b->nparts; k++)
		started[k] = pthread_create(&thread[k], NULL, fn, &task[k]) == 0;
	fn(&task[0]);
	for (int k = 1; k < b->nparts; k++) {
		if (started[k])
			pthread_join(thread[k], NULL);
		else
			fn(&task[k]); /* no thread to be had: here, then */
	}
}

/* --- reading --- */

static void pl_add_line(struct batch *b, const char *line, long len, long lineno)
{
	if (b->nlines == b->lines_cap) {
		b->lines_cap = b->lines_cap ? 2 * b->lines_cap : 1024;
		b->lines = pl_alloc(b->lines, (size_t)b->lines_cap * sizeof *b->lines);
	}
	size_t n = len > 0 ? (size_t)len : 0;
	if (b->text_len + n + 1 > b->text_cap) {
		while (b->text_len + n + 1 > b->text_cap)
			b->text_cap = b->text_cap ? 2 * b->text_cap : 65536;
		b->text = pl_alloc(b->text, b->text_cap);
	}
	if (n)
		memcpy(b->text + b->text_len, line, n);
	b->text[b->text_len + n] = '\0';
	b->lines[b->nlines++] = (struct line_ref){b->text_len, len, lineno};
	b->text_len += n + 1;
}

static struct batch *pl_next_free(const char *input_name)
{
	struct batch *b = &pl.ring[pl.nread % PIPE_BATCHES];
	pthread_mutex_lock(&pl.lock);
	while (b->state != BATCH_FREE)
		pthread_cond_wait(&pl.wake, &pl.lock);
	pthread_mutex_unlock(&pl.lock);
	b->input_name = input_name;
	b->input_end = false;
	b->text_len = 0;
	b->nlines = 0;
	return b;
}

static void pl_submit(struct batch *b)
{
	pthread_mutex_lock(&pl.lock);
	b->state = BATCH_READ;
	pl.nread++;
	pthread_cond_broadcast(&pl.wake);
	pthread_mutex_unlock(&pl.lock);
}

/* Reads one input into batches of up to opt.batch lines; a batch goes on
 * early when the input has nothing more for now (a slow producer sees its
 * answers). Returns 0, or -1 on a read error. */
static int pl_read_input(int fd, const char *input_name)
{
	struct line_reader lr;
	if (line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	int rc = 0;
	double busy = 0;
	struct batch *b = NULL;
	for (;;) {
		if (!b)
			b = pl_next_free(input_name);
		if (b->nlines && !line_reader_buffered(&lr)) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			if (poll(&pfd, 1, 0) == 0) {
				pl_submit(b);
				b = NULL;
				continue;
			}
		}
		uint64_t t0 = now_ns();
		char *line;
		size_t len;
		enum line_status st = line_reader_next(&lr, &line, &len);
		if (st == LINE_ERROR) {
			fprintf(stderr, "%s: %s: %s\n", program, input_name ? input_name : "standard input",
				strerror(errno));
			rc = -1;
			st = LINE_EOF;
		}
		if (st == LINE_EOF) {
			b->input_end = true;
			pl_submit(b);
			busy += ms_since(t0);
			break;
		}
		pl_add_line(b, line, st == LINE_OVERLONG ? -1 : (long)len, lr.lineno);
		busy += ms_since(t0);
		if (b->nlines >= opt.batch) {
			pl_submit(b);
			b = NULL;
		}
	}
	line_reader_free(&lr);
	stage_add("read", busy, false);
	return rc;
}

/* --- parsing --- */

static struct record *part_record(struct part *pt)
{
	if (pt->nrec == pt->cap) {
		pt->cap = pt->cap ? 2 * pt->cap : pt->nlines + 2;
		pt->rec = pl_alloc(pt->rec, (size_t)pt->cap * sizeof *pt->rec);
	}
	return &pt->rec[pt->nrec++];
}

static size_t part_note(struct part *pt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t part_note(struct part *pt, const char *fmt, ...)
{
	char text[GRID_ERR_MAX + 320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	size_t at = pt->notes.len, n = strlen(text) + 1;
	memcpy(out_room(&pt->notes, n), text, n);
	pt->notes.len += n;
	return at;
}

/* take_item's verdicts but the size's, which needs the device (the
 * solving stage's, once init is done) */
static void pl_take(struct part *pt, enum stream_event ev, const struct stream_item *item,
		    const char *input_name)
{
	char err[GRID_ERR_MAX];
	const char *in = input_name ? input_name : "", *sep = input_name ? ": " : "";
	struct record *r = part_record(pt);
	r->line = item->line;
	r->puzzle = false;
	r->solve = false;
	r->failed = true;
	if (ev == STREAM_INVALID) {
		r->note = part_note(pt, "# invalid: %s%s%s", in, sep, item->error);
		return;
	}
	r->puzzle = true;
	r->notation = item->notation;
	/* the puzzle, and room for its answer */
	const size_t size = short_grid_size(item->grid.cells);
	r->grid = pt->arena.len;
	memcpy(out_room(&pt->arena, 2 * size), &item->grid, offsetof(struct grid, cell) + (size_t)item->grid.cells);
	pt->arena.len += 2 * size;
	if (grid_check_givens(&item->grid, err, sizeof err) < 0) {
		r->note = part_note(pt, "# unsat: %s%sline %ld: %s", in, sep, item->line, err);
	} else {
		r->solve = true;
		r->failed = false;
	}
}

/* Feeds the part's lines to its stream, from the state it holds. */
static void pl_parse_lines(struct batch *b, struct part *pt)
{
	pt->nrec = 0;
	pt->arena.len = 0;
	pt->notes.len = 0;
	if (!pt->item)
		pt->item = pl_alloc(NULL, sizeof *pt->item);
	for (int k = pt->first; k < pt->first + pt->nlines; k++) {
		const struct line_ref *l = &b->lines[k];
		bool again;
		do {
			enum stream_event ev =
				l->len < 0 ? puzzle_stream_overlong(pt->ps, l->lineno, pt->item, &again)
					   : puzzle_stream_feed(pt->ps, b->text + l->off, (size_t)l->len,
								l->lineno, pt->item, &again);
			if (ev != STREAM_NONE)
				pl_take(pt, ev, pt->item, b->input_name);
		} while (again);
	}
}

static void *pl_parse_part(void *arg)
{
	struct part_task *t = arg;
	uint64_t t0 = now_ns();
	pl_parse_lines(t->b, t->pt);
	t->pt->ms = ms_since(t0);
	return NULL;
}

/* Parses a batch's parts at once, each from a fresh stream but the first
 * (the one the last batch left). A part is right when the part before it
 * ended between puzzles, which a fresh stream is; one that began inside a
 * multi-line grid is parsed again from the stream before it, in order. */
static void pl_parse(struct batch *b)
{
	int nparts = b->nlines / PART_MIN_LINES;
	if (nparts > pl.max_parts)
		nparts = pl.max_parts;
	if (nparts < 1)
		nparts = 1;
	b->nparts = nparts;
	for (int k = 0; k < nparts; k++) {
		struct part *pt = &b->part[k];
		pt->first = (int)((long)b->nlines * k / nparts);
		pt->nlines = (int)((long)b->nlines * (k + 1) / nparts) - pt->first;
		if (!pt->ps)
			pt->ps = pl_alloc(NULL, sizeof *pt->ps);
		if (k == 0)
			*pt->ps = pl.carried;
		else
			puzzle_stream_init(pt->ps);
	}
	pl_run_parts(b, pl_parse_part);
	double ms = 0;
	for (int k = 0; k < nparts; k++)
		ms += b->part[k].ms;
	uint64_t t0 = now_ns();
	for (int k = 1; k < nparts; k++) {
		if (b->part[k - 1].ps->kind != GRID_NONE) {
			*b->part[k].ps = *b->part[k - 1].ps;
			pl_parse_lines(b, &b->part[k]);
		}
	}
	struct part *last = &b->part[nparts - 1];
	pl.carried = *last->ps;
	if (b->input_end) {
		if (!last->item)
			last->item = pl_alloc(NULL, sizeof *last->item);
		enum stream_event ev = puzzle_stream_finish(&pl.carried, last->item);
		if (ev != STREAM_NONE)
			pl_take(last, ev, last->item, b->input_name);
		puzzle_stream_init(&pl.carried);
	}
	stage_add("parse", ms + ms_since(t0), false);
}

static void *pl_parse_main(void *arg)
{
	(void)arg;
	for (long seq = 0;; seq++) {
		struct batch *b = pl_wait(seq, BATCH_READ);
		if (!b)
			break;
		pl_parse(b);
		pl_hand_on(b, BATCH_PARSED);
	}
	return NULL;
}

/* --- solving --- */

static struct grid *record_grid(struct part *pt, const struct record *r)
{
	return (struct grid *)(void *)(pt->arena.p + r->grid);
}

static struct grid *record_answer(struct part *pt, const struct record *r, const struct grid *puzzle)
{
	return (struct grid *)(void *)(pt->arena.p + r->grid + short_grid_size(puzzle->cells));
}

/* Solves a batch's puzzles in one call, with results of the solving
 * thread's own (full size, kept from batch to batch), copied into the
 * records' room afterwards. */
static void pl_solve(struct batch *b, int solver)
{
	int n = 0;
	for (int k = 0; k < b->nparts; k++)
		n += b->part[k].nrec;
	const struct grid **grids = pl_alloc(NULL, ((size_t)n + 1) * sizeof *grids);
	struct solve_result **res = pl_alloc(NULL, ((size_t)n + 1) * sizeof *res);
	enum solve_status *st = pl_alloc(NULL, ((size_t)n + 1) * sizeof *st);
	struct record **rec = pl_alloc(NULL, ((size_t)n + 1) * sizeof *rec);
	struct part **rec_part = pl_alloc(NULL, ((size_t)n + 1) * sizeof *rec_part);
	if (n > pl.results_cap[solver]) {
		free(pl.results[solver]);
		pl.results[solver] = pl_alloc(NULL, (size_t)n * sizeof *pl.results[solver]);
		pl.results_cap[solver] = n;
	}
	char prefix[128] = "";
	if (b->input_name)
		snprintf(prefix, sizeof prefix, "%s: ", b->input_name);
	n = 0;
	for (int k = 0; k < b->nparts; k++) {
		struct part *pt = &b->part[k];
		for (int i = 0; i < pt->nrec; i++) {
			struct record *r = &pt->rec[i];
			const struct grid *g = r->puzzle ? record_grid(pt, r) : NULL;
			if (g && !size_supported(g->box)) {
				char text[GRID_ERR_MAX + 96];
				describe_unsupported(text, sizeof text, b->input_name, r->line, g->side);
				r->note = part_note(pt, "%s", text);
				r->solve = false;
				r->failed = true;
			}
			if (!r->solve)
				continue;
			rec[n] = r;
			rec_part[n] = pt;
			grids[n] = g;
			res[n] = &pl.results[solver][n];
			n++;
		}
	}
	if (n) {
		struct worker_ctx ctx;
		char where[sizeof prefix + 32];
		snprintf(where, sizeof where, "%sline %ld", prefix, rec[0]->line);
		ctx.where = where;
		ctx.id = NULL;
		ctx_start(&ctx, opt.time_limit, opt.progress ? opt.progress_ms : 0, opt.count_limit, opt.seed);
		uint64_t t0 = now_ns();
		ALGO.solve_batch(grids, n, res, st, &ctx);
		stage_add("solve", ms_since(t0), false);
		for (int i = 0; i < n; i++) {
			struct record *r = rec[i];
			struct part *pt = rec_part[i];
			r->st = st[i];
			r->count = res[i]->count;
			if (st[i] == SOLVE_GAVEUP)
				r->note = part_note(pt, "%s", res[i]->reason);
			if (st[i] == SOLVE_SOLVED) {
				/* the header and the cells used */
				const struct grid *g = record_grid(pt, r);
				struct grid *a = record_answer(pt, r, g);
				a->box = res[i]->solution.box;
				a->side = res[i]->solution.side;
				a->cells = res[i]->solution.cells;
				memcpy(a->cell, res[i]->solution.cell,
				       (size_t)(a->cells > 0 && a->cells <= g->cells ? a->cells : 0));
			}
		}
		pthread_mutex_lock(&pl.lock);
		pl.puzzles += n;
		pthread_mutex_unlock(&pl.lock);
	}
	free(grids);
	free(res);
	free(st);
	free(rec);
	free(rec_part);
}

static void *pl_solve_main(void *arg)
{
	const int solver = (int)(intptr_t)arg;
	for (;;) {
		pthread_mutex_lock(&pl.lock);
		long seq = pl.next_solve++;
		pthread_mutex_unlock(&pl.lock);
		struct batch *b = pl_wait(seq, BATCH_PARSED);
		if (!b)
			break;
		pl_hand_on(b, BATCH_SOLVING);
		pthread_once(&pl_init_once, pl_init_joined);
		pl_solve(b, solver);
		pl_hand_on(b, BATCH_SOLVED);
	}
	return NULL;
}

/* --- formatting and writing --- */

static void *pl_format_part(void *arg)
{
	struct part_task *t = arg;
	struct part *pt = t->pt;
	uint64_t t0 = now_ns();
	pt->out.len = 0;
	pt->failed = false;
	for (int i = 0; i < pt->nrec; i++) {
		struct record *r = &pt->rec[i];
		if (!r->solve) {
			out_printf(&pt->out, "%s\n", pt->notes.p + r->note);
		} else {
			const struct grid *g = record_grid(pt, r);
			format_verdict(&pt->out, g, &r->notation, r->st, r->count, record_answer(pt, r, g),
				       r->st == SOLVE_GAVEUP ? pt->notes.p + r->note : "", &r->failed);
		}
		pt->failed |= r->failed;
	}
	pt->ms = ms_since(t0);
	return NULL;
}

static void *pl_format_main(void *arg)
{
	(void)arg;
	for (long seq = 0;; seq++) {
		struct batch *b = pl_wait(seq, BATCH_SOLVED);
		if (!b)
			break;
		pl_run_parts(b, pl_format_part);
		uint64_t t0 = now_ns();
		double ms = 0;
		for (int k = 0; k < b->nparts; k++) {
			struct part *pt = &b->part[k];
			if (pt->out.len)
				fwrite(pt->out.p, 1, pt->out.len, stdout);
			if (pt->failed)
				exit_status = 1;
			ms += pt->ms;
		}
		fflush(stdout);
		stage_add("format", ms + ms_since(t0), false);
		pl_hand_on(b, BATCH_FREE);
	}
	return NULL;
}

static void pl_report_timing(double wall_ms)
{
	fprintf(stderr,
		"%s: timing: %.3f s wall, %ld puzzles solved; each stage's busy time (summed over its "
		"threads; stages overlap) and its share of the wall:\n",
		program, wall_ms / 1e3, pl.puzzles);
	for (int i = 0; i < nstages; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s%s", stages[i].algorithm ? "solve: " : "", stages[i].name);
		fprintf(stderr, "%s: timing: %-18s %9.3f s %6.1f%%\n", program, name, stages[i].ms / 1e3,
			100.0 * stages[i].ms / wall_ms);
	}
}

/* Filter mode for an algorithm with solve_batch; init runs beside it. */
static int pipeline_main(int argc, char **argv, int first, uint64_t start_ns)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pl.max_parts = cpus < 1 ? 1 : cpus > PIPE_MAX_PARTS ? PIPE_MAX_PARTS : (int)cpus;
	puzzle_stream_init(&pl.carried);
	/* the driver's stages first, in the order a puzzle meets them */
	stage_add("start", 0, false);
	stage_add("read", 0, false);
	stage_add("parse", 0, false);
	stage_add("solve", 0, false);
	stage_add("format", 0, false);
	if (ALGO.init && pthread_create(&pl.init_thread, NULL, pl_init_main, NULL) != 0) {
		fprintf(stderr, "%s: cannot start a thread\n", program);
		return 2;
	}
	pthread_t parser, solver[PIPE_SOLVERS], formatter;
	bool ok = pthread_create(&parser, NULL, pl_parse_main, NULL) == 0 &&
		  pthread_create(&formatter, NULL, pl_format_main, NULL) == 0;
	for (int i = 0; ok && i < PIPE_SOLVERS; i++)
		ok = pthread_create(&solver[i], NULL, pl_solve_main, (void *)(intptr_t)i) == 0;
	if (!ok) {
		fprintf(stderr, "%s: cannot start a thread\n", program);
		return 2;
	}
	int status = 0;
	if (first >= argc && pl_read_input(STDIN_FILENO, NULL) < 0)
		status = 2;
	for (int i = first; i < argc; i++) {
		int fd = STDIN_FILENO;
		const char *name = NULL;
		if (strcmp(argv[i], "-") != 0) {
			fd = open(argv[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				fprintf(stderr, "%s: %s: %s\n", program, argv[i], strerror(errno));
				status = 2;
				continue;
			}
			name = argv[i];
		}
		if (pl_read_input(fd, name) < 0)
			status = 2;
		if (fd != STDIN_FILENO)
			close(fd);
	}
	pthread_mutex_lock(&pl.lock);
	pl.reading_done = true;
	pthread_cond_broadcast(&pl.wake);
	pthread_mutex_unlock(&pl.lock);
	pthread_join(parser, NULL);
	for (int i = 0; i < PIPE_SOLVERS; i++)
		pthread_join(solver[i], NULL);
	pthread_join(formatter, NULL);
	/* no batch at all (no input could be opened): the device still decides */
	pthread_once(&pl_init_once, pl_init_joined);
	for (int i = 0; i < PIPE_BATCHES; i++) {
		struct batch *b = &pl.ring[i];
		free(b->text);
		free(b->lines);
		for (int k = 0; k < PIPE_MAX_PARTS; k++) {
			struct part *pt = &b->part[k];
			free(pt->rec);
			free(pt->arena.p);
			free(pt->notes.p);
			free(pt->item);
			free(pt->ps);
			free(pt->out.p);
		}
	}
	for (int i = 0; i < PIPE_SOLVERS; i++)
		free(pl.results[i]);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", program, strerror(errno));
		return 2;
	}
	if (opt.timing)
		pl_report_timing(ms_since(start_ns));
	return status ? status : exit_status;
}

static int filter_main(int argc, char **argv, int first)
{
	pending = calloc((size_t)(2 * opt.batch + 4), sizeof *pending);
	if (!pending) {
		fprintf(stderr, "%s: out of memory\n", program);
		return 2;
	}
	int status = 0;
	if (first >= argc) {
		input_name = NULL;
		if (filter_input(STDIN_FILENO) < 0)
			status = 2;
	}
	for (int i = first; i < argc; i++) {
		int fd;
		if (strcmp(argv[i], "-") == 0) {
			fd = STDIN_FILENO;
			input_name = NULL;
		} else {
			fd = open(argv[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				fprintf(stderr, "%s: %s: %s\n", program, argv[i], strerror(errno));
				status = 2;
				continue;
			}
			input_name = argv[i];
		}
		if (filter_input(fd) < 0)
			status = 2;
		if (fd != STDIN_FILENO)
			close(fd);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", program, strerror(errno));
		return 2;
	}
	free(pending);
	return status ? status : exit_status;
}

int main(int argc, char **argv)
{
	static char name[64];
	snprintf(name, sizeof name, "sudoku-%s", ALGO.name);
	program = name;
	uint64_t start_ns = now_ns();
	int first = parse_options(argc, argv);
	device.max_box = ALGO.max_box;
	if (!opt.protocol && ALGO.solve_batch)
		return pipeline_main(argc, argv, first, start_ns);
	if (ALGO.init) {
		char msg[256] = "";
		if (ALGO.init(&device, msg, sizeof msg) < 0)
			usage_error("%s", msg);
	}
	if (!opt.protocol && strcmp(device.device, "none") == 0) {
		fprintf(stderr, "%s: no usable device%s%s\n", program, device.detail[0] ? ": " : "",
			device.detail);
		return 2;
	}
	if (opt.protocol)
		return protocol_main();
	return filter_main(argc, argv, first);
}
