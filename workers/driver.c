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

/* --- options --- */

enum {
	OPT_PROTOCOL = 256,
	OPT_PRETTY,
	OPT_PROGRESS_MS,
	OPT_BATCH,
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
		printf("      --batch=N          solve up to N puzzles at once (default %d)\n", ALGO.batch_max);
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
		case 'h':
			print_help();
			exit(0);
		case 'V':
			printf("%s (sudoku-race) %s\n", program, PACKAGE_VERSION);
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
static struct job **running; /* the jobs being solved, opt.batch at most */
static int nrunning;
static struct worker_ctx *running_ctx;
static bool input_done, quitting;

static bool id_in_flight(const char *id)
{
	for (struct job *j = queue_head; j; j = j->next)
		if (strcmp(j->id, id) == 0)
			return true;
	for (int i = 0; i < nrunning; i++)
		if (strcmp(running[i]->id, id) == 0)
			return true;
	return false;
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
static struct job *make_job(const struct msg *m)
{
	/* not calloc: the grid's 4 kB are written by grid_parse, as far as the
	 * puzzle's size needs, and zeroing them was a tenth of a job's cost */
	struct job *j = malloc(sizeof *j);
	if (!j) {
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
	for (int i = 0; i < nrunning; i++) {
		if (strcmp(running[i]->id, id) == 0) {
			struct job *j = running[i];
			atomic_store(&j->cancelled, true);
			bool all = true;
			for (int k = 0; k < nrunning; k++)
				all &= atomic_load(&running[k]->cancelled);
			if (all && running_ctx) {
				int none = STOP_NONE;
				atomic_compare_exchange_strong(&running_ctx->stop, &none, STOP_CANCEL);
			}
			/* a batch that goes on for the others must not hold this
			 * acknowledgement back (PROTOCOL.md 8): send it now, and
			 * nothing when the batch ends */
			bool ack_now = !all && !j->acked;
			if (ack_now)
				j->acked = true;
			pthread_mutex_unlock(&queue_lock);
			if (ack_now)
				send_line("cancelled %s", id);
			return;
		}
	}
	struct job **pp = &queue_head, *prev = NULL;
	while (*pp && strcmp((*pp)->id, id) != 0) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	struct job *j = *pp;
	if (j) {
		*pp = j->next;
		if (queue_tail == j)
			queue_tail = prev;
	}
	pthread_mutex_unlock(&queue_lock);
	if (j) {
		send_line("cancelled %s", j->id);
		free(j);
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
	for (;;) {
		char *line;
		size_t len;
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
			struct job *j = make_job(&m);
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
			pthread_cond_signal(&queue_wake);
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
			if (running_ctx)
				atomic_store(&running_ctx->stop, STOP_QUIT);
			pthread_cond_signal(&queue_wake);
			pthread_mutex_unlock(&queue_lock);
			line_reader_free(&lr);
			return NULL;
		default:
			break; /* unknown or not for a worker: ignored (PROTOCOL.md 9) */
		}
	}
	line_reader_free(&lr);
	pthread_mutex_lock(&queue_lock);
	input_done = true;
	pthread_cond_signal(&queue_wake);
	pthread_mutex_unlock(&queue_lock);
	return NULL;
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

static void solve_jobs(struct job **jobs, int n)
{
	struct worker_ctx ctx = {.id = jobs[0]->id};
	/* one puzzle at a time (all but the GPU): kept, and only the fields an
	 * algorithm may leave alone are cleared (the solution is written whole
	 * when there is one) */
	static struct solve_result one_res;
	static enum solve_status one_st;
	struct solve_result *res = &one_res;
	enum solve_status *st = &one_st;
	if (n > 1) {
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
	running_ctx = &ctx;
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
	pthread_mutex_lock(&queue_lock);
	running_ctx = NULL;
	nrunning = 0;
	bool quit = quitting;
	pthread_mutex_unlock(&queue_lock);
	if (!quit)
		for (int i = 0; i < n; i++)
			send_final(jobs[i], st[i], &res[i], (enum stop_reason)atomic_load(&ctx.stop), ms);
	if (n > 1) {
		free(res);
		free(st);
	}
}

static int protocol_main(void)
{
	pthread_t reader;
	signal(SIGPIPE, SIG_IGN);
	running = calloc((size_t)opt.batch, sizeof *running);
	if (!running)
		return 2;
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
	for (;;) {
		struct job **jobs = running;
		int n = 0;
		pthread_mutex_lock(&queue_lock);
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
		struct job *head = queue_head;
		if (head->kind != JOB_SOLVE) {
			/* already answered: keep its place in the order */
			queue_head = head->next;
			if (!queue_head)
				queue_tail = NULL;
			pthread_mutex_unlock(&queue_lock);
			if (head->kind == JOB_CLASH) {
				if (ALGO.kind == WORKER_COMPLETE)
					send_answer(head->count > 1 ? "count %s 0 reason=clash" : "unsat %s reason=clash",
						    head->id);
				else
					send_answer("gaveup %s unsat", head->id);
			} else {
				send_answer("error %s %s", head->id, head->text);
			}
			free(head);
			continue;
		}
		/* a batch: solve jobs from the head with the same count */
		while (queue_head && queue_head->kind == JOB_SOLVE && n < opt.batch &&
		       queue_head->count == head->count && (n == 0 || ALGO.solve_batch)) {
			jobs[n++] = queue_head;
			queue_head = queue_head->next;
		}
		if (!queue_head)
			queue_tail = NULL;
		nrunning = n;
		pthread_mutex_unlock(&queue_lock);
		struct job **copy = malloc((size_t)n * sizeof *copy);
		if (!copy) {
			fprintf(stderr, "%s: out of memory\n", program);
			exit(2);
		}
		memcpy(copy, jobs, (size_t)n * sizeof *copy);
		solve_jobs(copy, n);
		for (int i = 0; i < n; i++)
			free(copy[i]);
		free(copy);
	}
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

static void print_pending(struct pending *p)
{
	if (!p->solve) {
		puts(p->text);
		return;
	}
	const struct grid *g = &p->item.grid;
	switch (p->st) {
	case SOLVE_SOLVED: {
		char why[GRID_ERR_MAX];
		if (!grid_verify(g, &p->res.solution, why, sizeof why)) {
			printf("# error: %s gave a wrong answer (%s)\n", ALGO.name, why);
			p->failed = true;
		} else if (opt.count_limit > 1 && p->res.count > 1) {
			if (p->res.count >= opt.count_limit)
				printf("# multiple solutions: at least %ld\n", p->res.count);
			else
				printf("# multiple solutions: %ld\n", p->res.count);
			p->failed = true;
		} else {
			size_t sz = opt.pretty ? grid_format_pretty_max(g->side) : grid_format_max(g->side);
			char *buf = malloc(sz);
			if (!buf)
				exit(2);
			if (opt.pretty)
				grid_format_pretty(&p->res.solution, &p->item.notation, buf, sz);
			else
				grid_format(&p->res.solution, &p->item.notation, buf, sz);
			fputs(buf, stdout);
			if (!opt.pretty)
				putchar('\n');
			free(buf);
		}
		break;
	}
	case SOLVE_UNSAT:
		puts("# unsat");
		p->failed = true;
		break;
	case SOLVE_GAVEUP:
		printf("# gave up: %s\n", p->res.reason[0] ? p->res.reason : "no solution found");
		p->failed = true;
		break;
	case SOLVE_STOPPED:
		if (ALGO.kind == WORKER_COMPLETE)
			printf("# timeout after %g s\n", opt.time_limit);
		else
			printf("# gave up after %g s\n", opt.time_limit);
		p->failed = true;
		break;
	}
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
		if (n == 1 || !ALGO.solve_batch) {
			for (int i = 0; i < n; i++) {
				if (i) {
					if (opt.progress && input_name)
						snprintf(where, sizeof where, "%s: line %ld", input_name, run[i]->item.line);
					else if (opt.progress)
						snprintf(where, sizeof where, "line %ld", run[i]->item.line);
					ctx_start(&ctx, opt.time_limit, opt.progress ? opt.progress_ms : 0,
						  opt.count_limit, opt.seed);
				}
				run[i]->st = ALGO.solve(&run[i]->item.grid, &run[i]->res, &ctx);
			}
		} else {
			/* the answers go straight to the pending records: a second
			 * array of results (4 KB each) cost big batches more than the
			 * GPU's launches did */
			const struct grid **grids = malloc((size_t)n * sizeof *grids);
			struct solve_result **res = malloc((size_t)n * sizeof *res);
			enum solve_status *st = malloc((size_t)n * sizeof *st);
			if (!grids || !res || !st) {
				fprintf(stderr, "%s: out of memory\n", program);
				exit(2);
			}
			for (int i = 0; i < n; i++) {
				grids[i] = &run[i]->item.grid;
				res[i] = &run[i]->res;
			}
			ALGO.solve_batch(grids, n, res, st, &ctx);
			for (int i = 0; i < n; i++)
				run[i]->st = st[i];
			free(grids);
			free(res);
			free(st);
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
		snprintf(p->text, sizeof p->text,
			 "# unsupported: %s%sline %ld: %s takes box sizes %d to %d, not %dx%d", prefix,
			 colon, item->line, ALGO.name, ALGO.min_box,
			 device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box, item->grid.side,
			 item->grid.side);
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
	int first = parse_options(argc, argv);
	device.max_box = ALGO.max_box;
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
