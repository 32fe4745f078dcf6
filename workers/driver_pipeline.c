/* Batches of input lines pass through stages in input order, each stage in
 * threads of its own, so that the algorithm (the GPU) never waits for one
 * CPU thread: reading (this thread copies lines into a batch), parsing (the
 * batch's lines cut into parts, parsed at once by several threads),
 * solving (init's wi->batches threads, two for the GPU, a batch each: one's
 * expansion on the CPU overlaps the others' launches), formatting (the
 * parts again) and writing. The algorithm's init (CUDA's start) runs in a
 * thread beside the first reads. Answers come out as the
 * one-batch-at-a-time path writes them. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "lib/files.h"
#include "lib/puzzle_stream.h"
#include "driver.h"

/* batches in flight: deep enough that the whole of a million puzzles can
 * be read and parsed while CUDA starts (0.3 s); a batch of 32768 takes
 * about 12 MB here */
#define PIPE_BATCHES 16
#define PIPE_SOLVERS_MAX 8 /* init's wi->batches, at most */
#define PIPE_MAX_PARTS 16
#define PART_MIN_LINES 512 /* a part of fewer lines is not worth a thread */

struct line_ref {
	size_t off; /* into the batch's text */
	long len;   /* -1: a line over PUZZLE_LINE_MAX, skipped */
	long lineno;
};

/* A puzzle or a '#' line of the output. Small, with its grids apart in
 * the arena at their size: a batch's records are written afresh by each
 * batch. */
struct record {
	long line;
	struct notation notation;
	bool puzzle;  /* parsed as a puzzle: its size is checked before solving */
	bool solve;   /* searched: st and count hold the verdict */
	bool failed;  /* counts towards exit status 1 */
	enum filter_kind kind;
	enum solve_status st;
	long count;
	double ms;
	size_t note;     /* why it was not searched, or the reason of a SOLVE_GAVEUP: in notes */
	size_t grid;     /* the puzzle's grid in the arena; the answer's follows it */
};

/* A grid's place in the arena: its size, rounded up so that the next one
 * is aligned. */
static size_t arena_grid_size(int box)
{
	return (grid_size(box) + 7) & ~(size_t)7;
}

/* A slice of a batch's lines: parsed by one thread, formatted by one. */
struct part {
	int first, nlines;
	struct record *rec; /* its puzzles and '#' lines, in order */
	int nrec, cap;
	struct answer_buf arena; /* the records' short grids */
	struct answer_buf notes; /* the records' '#' lines and reasons, each NUL-terminated */
	struct stream_item *item; /* the parser's (4 KB: kept) */
	struct puzzle_stream *ps; /* the stream after its lines */
	struct answer_buf out;
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
	pthread_t init_thread;
	int init_rc;
	char init_msg[256];
	double init_ms;
} pl = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

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
		b->lines = xrealloc(b->lines, (size_t)b->lines_cap * sizeof *b->lines);
	}
	size_t n = len > 0 ? (size_t)len : 0;
	if (b->text_len + n + 1 > b->text_cap) {
		while (b->text_len + n + 1 > b->text_cap)
			b->text_cap = b->text_cap ? 2 * b->text_cap : 65536;
		b->text = xrealloc(b->text, b->text_cap);
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
	if (line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0)
		die("out of memory");
	int rc = 0;
	double busy = 0;
	struct batch *b = NULL;
	uint64_t t0 = 0; /* the batch's start: its busy time, not a clock read a line */
	for (;;) {
		if (!b) {
			b = pl_next_free(input_name);
			t0 = now_ns();
		}
		if (b->nlines && !line_reader_buffered(&lr)) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			if (poll(&pfd, 1, 0) == 0) {
				busy += ms_since(t0);
				pl_submit(b);
				b = NULL;
				continue;
			}
		}
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
		if (b->nlines >= opt.batch) {
			busy += ms_since(t0);
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
		pt->rec = xrealloc(pt->rec, (size_t)pt->cap * sizeof *pt->rec);
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
static void pl_take(struct part *pt, enum stream_event ev, const struct stream_item *item)
{
	char err[GRID_ERR_MAX];
	struct record *r = part_record(pt);
	r->line = item->line;
	r->puzzle = false;
	r->solve = false;
	r->failed = true;
	r->ms = 0;
	if (ev == STREAM_INVALID) {
		r->kind = FILTER_INVALID;
		r->note = part_note(pt, "%s", item->error);
		return;
	}
	r->puzzle = true;
	r->notation = item->notation;
	/* the puzzle, and room for its answer */
	const size_t size = arena_grid_size(item->grid.box);
	r->grid = pt->arena.len;
	grid_copy((struct grid *)(void *)out_room(&pt->arena, 2 * size), &item->grid);
	pt->arena.len += 2 * size;
	if (grid_check_givens(&item->grid, err, sizeof err) < 0) {
		r->kind = FILTER_CLASH;
		r->note = part_note(pt, "line %ld: %s", item->line, err);
	} else {
		r->kind = FILTER_SEARCHED;
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
		pt->item = xmalloc(sizeof *pt->item);
	for (int k = pt->first; k < pt->first + pt->nlines; k++) {
		const struct line_ref *l = &b->lines[k];
		bool again;
		do {
			enum stream_event ev =
				l->len < 0 ? puzzle_stream_overlong(pt->ps, l->lineno, pt->item, &again)
					   : puzzle_stream_feed(pt->ps, b->text + l->off, (size_t)l->len,
								l->lineno, pt->item, &again);
			if (ev != STREAM_NONE)
				pl_take(pt, ev, pt->item);
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
			pt->ps = xmalloc(sizeof *pt->ps);
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
			last->item = xmalloc(sizeof *last->item);
		enum stream_event ev = puzzle_stream_finish(&pl.carried, last->item);
		if (ev != STREAM_NONE)
			pl_take(last, ev, last->item);
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
	return (struct grid *)(void *)(pt->arena.p + r->grid + arena_grid_size(puzzle->box));
}

/* A solving thread's arrays, kept from batch to batch: a batch's
 * pointers, and its results (copied into the records' room after the call,
 * since the next batch writes them while this one is formatted). */
struct solver {
	int cap;
	const struct grid **grids;
	enum solve_status *st;
	struct record **rec;
	struct part **rec_part;
	struct batch_results results;
};

static void solver_reserve(struct solver *sv, int n)
{
	if (n <= sv->cap)
		return;
	sv->cap = n;
	sv->grids = xrealloc(sv->grids, (size_t)n * sizeof *sv->grids);
	sv->st = xrealloc(sv->st, (size_t)n * sizeof *sv->st);
	sv->rec = xrealloc(sv->rec, (size_t)n * sizeof *sv->rec);
	sv->rec_part = xrealloc(sv->rec_part, (size_t)n * sizeof *sv->rec_part);
}

static void solver_free(struct solver *sv)
{
	free(sv->grids);
	free(sv->st);
	free(sv->rec);
	free(sv->rec_part);
	batch_results_free(&sv->results);
}

/* Solves a batch's puzzles in one call, with the solving thread's own
 * results, copied into the records' room afterwards. */
static void pl_solve(struct batch *b, struct solver *sv)
{
	int n = 0;
	for (int k = 0; k < b->nparts; k++)
		n += b->part[k].nrec;
	solver_reserve(sv, n + 1);
	const struct grid **grids = sv->grids;
	enum solve_status *st = sv->st;
	struct record **rec = sv->rec;
	struct part **rec_part = sv->rec_part;
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
				describe_unsupported(text, sizeof text, r->line, g->side);
				r->kind = FILTER_UNSUPPORTED;
				r->note = part_note(pt, "%s", text);
				r->solve = false;
				r->failed = true;
			}
			if (!r->solve)
				continue;
			rec[n] = r;
			rec_part[n] = pt;
			grids[n] = g;
			n++;
		}
	}
	if (n) {
		struct solve_result **res = batch_results(&sv->results, grids, n);
		struct worker_ctx ctx;
		char where[sizeof prefix + 32];
		snprintf(where, sizeof where, "%sline %ld", prefix, rec[0]->line);
		ctx.where = where;
		ctx.id = NULL;
		ctx_start(&ctx, opt.time_limit, opt.progress ? opt.progress_ms : 0, opt.count_limit, opt.seed);
		uint64_t t0 = now_ns();
		ALGO.solve_batch(grids, n, res, st, &ctx);
		const double batch_ms = ms_since(t0);
		stage_add("solve", batch_ms, false);
		for (int i = 0; i < n; i++) {
			struct record *r = rec[i];
			struct part *pt = rec_part[i];
			r->ms = batch_ms;
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
}

/* Solves batches in turn, until the input has none left. */
static void *pl_solve_loop(void *arg)
{
	(void)arg;
	struct solver sv = {0};
	for (;;) {
		pthread_mutex_lock(&pl.lock);
		long seq = pl.next_solve++;
		pthread_mutex_unlock(&pl.lock);
		struct batch *b = pl_wait(seq, BATCH_PARSED);
		if (!b)
			break;
		pl_hand_on(b, BATCH_SOLVING);
		pl_solve(b, &sv);
		pl_hand_on(b, BATCH_SOLVED);
	}
	solver_free(&sv);
	return NULL;
}

/* The first solving thread: after init (no batch is solved before), it
 * starts as many more as init's wi->batches asks for. */
static void *pl_solve_main(void *arg)
{
	(void)arg;
	pthread_once(&pl_init_once, pl_init_joined);
	pthread_t more[PIPE_SOLVERS_MAX];
	int started = 0;
	for (int n = batch_threads(PIPE_SOLVERS_MAX); started + 1 < n; started++)
		if (pthread_create(&more[started], NULL, pl_solve_loop, NULL) != 0)
			break; /* fewer at once, then */
	pl_solve_loop(NULL);
	for (int i = 0; i < started; i++)
		pthread_join(more[i], NULL);
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
		const struct grid *g = r->puzzle ? record_grid(pt, r) : NULL;
		const struct filter_answer a = {
			.file = t->b->input_name,
			.line = r->line,
			.kind = r->kind,
			.note = r->kind != FILTER_SEARCHED || r->st == SOLVE_GAVEUP ? pt->notes.p + r->note : "",
			.puzzle = g,
			.nt = &r->notation,
			.st = r->st,
			.count = r->count,
			.solution = g ? record_answer(pt, r, g) : NULL,
			.ms = r->ms,
		};
		format_answer(&pt->out, &a, &r->failed);
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

/* Filter mode for an algorithm with solve_batch; init runs beside it. */
int pipeline_main(int argc, char **argv, int first, uint64_t start_ns)
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
	pthread_t parser, solver, formatter;
	bool ok = pthread_create(&parser, NULL, pl_parse_main, NULL) == 0 &&
		  pthread_create(&formatter, NULL, pl_format_main, NULL) == 0 &&
		  pthread_create(&solver, NULL, pl_solve_main, NULL) == 0;
	if (!ok) {
		fprintf(stderr, "%s: cannot start a thread\n", program);
		return 2;
	}
	int status = files_read_each(argc, argv, first, pl_read_input);
	pthread_mutex_lock(&pl.lock);
	pl.reading_done = true;
	pthread_cond_broadcast(&pl.wake);
	pthread_mutex_unlock(&pl.lock);
	pthread_join(parser, NULL);
	pthread_join(solver, NULL);
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
	if (files_finish_stdout() != 0)
		return 2;
	if (opt.timing)
		stage_report(ms_since(start_ns), pl.puzzles);
	return status ? status : exit_status;
}

