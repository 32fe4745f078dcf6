/* Filter mode, one puzzle at a time: files or standard input to one answer
 * line per puzzle, in order; and the verdicts' lines, which the pipeline
 * (driver_pipeline.c) writes too. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "lib/puzzle_stream.h"
#include "driver.h"

/* --- filter mode --- */

struct pending {
	struct stream_item item;
	bool solve;     /* still to be solved */
	enum answer_kind kind;
	char text[GRID_ERR_MAX + 96]; /* not searched: why */
	bool failed;    /* counts towards exit status 1 */
	enum solve_status st;
	struct solve_result res;
	double ms;
};

static struct pending *pending;
static int npending, nsolve;
/* the puzzles of one call, pointers into pending: as many, kept (a malloc
 * and free a call was one per puzzle for sudoku-cp) */
static struct pending **run;
int exit_status;
static const char *input_name; /* NULL for standard input */

char *out_room(struct out_buf *o, size_t more)
{
	if (o->len + more + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + more + 1)
			cap *= 2;
		o->p = xrealloc(o->p, cap);
		o->cap = cap;
	}
	return o->p + o->len;
}

void out_printf(struct out_buf *o, const char *fmt, ...)
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

/* A JSON string of s. */
static void json_string(struct out_buf *o, const char *s)
{
	out_printf(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			out_printf(o, "\\%c", c);
		else if (c < 0x20)
			out_printf(o, "\\u%04x", c);
		else
			out_printf(o, "%c", c);
	}
	out_printf(o, "\"");
}

/* --json: the racer's keys (racer/json.c), for one worker. */
static void format_json(struct out_buf *o, const struct answer *a, const char *status,
			const struct grid *solution, const char *reason, const char *unique, bool decided)
{
	out_printf(o, "{\"line\":%ld", a->line);
	if (a->file) {
		out_printf(o, ",\"file\":");
		json_string(o, a->file);
	}
	if (a->puzzle) {
		size_t sz = grid_format_max(a->puzzle->side);
		char *text = malloc(sz + 1);
		if (text && grid_format(a->puzzle, a->nt, text, sz + 1) >= 0) {
			out_printf(o, ",\"puzzle\":");
			json_string(o, text);
		}
		if (solution && text && grid_format(solution, a->nt, text, sz + 1) >= 0) {
			out_printf(o, ",\"status\":\"%s\",\"solution\":", status);
			json_string(o, text);
		} else {
			out_printf(o, ",\"status\":\"%s\",\"solution\":null", status);
		}
		free(text);
	} else {
		out_printf(o, ",\"status\":\"%s\",\"solution\":null", status);
	}
	out_printf(o, ",\"reason\":");
	if (reason)
		json_string(o, reason);
	else
		out_printf(o, "null");
	if (unique)
		out_printf(o, ",\"unique\":%s", unique);
	out_printf(o, ",\"winner\":");
	if (decided)
		json_string(o, ALGO.name);
	else
		out_printf(o, "null");
	out_printf(o, ",\"worker_ms\":%.3f,\"ms\":%.3f}\n", a->ms, a->ms);
}

void format_answer(struct out_buf *o, const struct answer *a, bool *failed)
{
	char text[GRID_ERR_MAX + 128];
	const char *status = NULL, *reason = NULL, *unique = NULL;
	const struct grid *solution = NULL;
	bool decided = false;
	*failed = true;
	switch (a->kind) {
	case ANSWER_INVALID:
	case ANSWER_UNSUPPORTED:
	case ANSWER_CLASH: {
		/* error lines name the file, when there is one */
		const char *word = a->kind == ANSWER_INVALID ? "invalid" : a->kind == ANSWER_CLASH ? "unsat" : "unsupported";
		if (!opt.json) {
			out_printf(o, "# %s: %s%s%s\n", word, a->file ? a->file : "", a->file ? ": " : "", a->note);
			return;
		}
		format_json(o, a, word, NULL, a->note, NULL, a->kind == ANSWER_CLASH);
		return;
	}
	case ANSWER_SEARCHED:
		break;
	}
	switch (a->st) {
	case SOLVE_SOLVED: {
		char why[GRID_ERR_MAX];
		if (!grid_verify(a->puzzle, a->solution, why, sizeof why)) {
			snprintf(text, sizeof text, "error: %s gave a wrong answer (%s)", ALGO.name, why);
			status = "unsolved";
			reason = text;
		} else if (opt.count_limit > 1 && a->count > 1) {
			snprintf(text, sizeof text, "multiple solutions: %s%ld",
				 a->count >= opt.count_limit ? "at least " : "", a->count);
			status = "multiple";
			reason = text;
			solution = a->solution;
			unique = "false";
			decided = true;
		} else {
			status = "solved";
			solution = a->solution;
			unique = opt.count_limit > 1 ? "true" : "null";
			decided = true;
			*failed = false;
		}
		break;
	}
	case SOLVE_UNSAT:
		status = reason = "unsat";
		decided = true;
		break;
	case SOLVE_GAVEUP:
		status = "unsolved";
		snprintf(text, sizeof text, "gave up: %s", a->note && a->note[0] ? a->note : "no solution found");
		reason = text;
		break;
	case SOLVE_STOPPED:
		status = "timeout";
		snprintf(text, sizeof text, "%s after %g s", ALGO.kind == WORKER_COMPLETE ? "timeout" : "gave up",
			 opt.time_limit);
		reason = text;
		break;
	}
	if (opt.json) {
		format_json(o, a, status, solution, reason, unique, decided);
	} else if (*failed) {
		out_printf(o, "# %s\n", reason);
	} else {
		size_t sz = opt.pretty ? grid_format_pretty_max(a->puzzle->side) : grid_format_max(a->puzzle->side);
		char *at = out_room(o, sz + 1);
		int n = opt.pretty ? grid_format_pretty(solution, a->nt, at, sz) : grid_format(solution, a->nt, at, sz);
		if (n < 0)
			n = 0;
		o->len += (size_t)n;
		if (!opt.pretty)
			o->p[o->len++] = '\n';
	}
}

/* A pending puzzle's answer line (or boxed grid), appended to o. */
static void format_pending(struct pending *p, struct out_buf *o)
{
	const struct answer a = {
		.file = input_name,
		.line = p->item.line,
		.kind = p->kind,
		.note = p->solve ? p->res.reason : p->text,
		.puzzle = p->kind == ANSWER_INVALID ? NULL : &p->item.grid,
		.nt = &p->item.notation,
		.st = p->st,
		.count = p->res.count,
		.solution = &p->res.solution,
		.ms = p->ms,
	};
	format_answer(o, &a, &p->failed);
}

static void print_pending(struct pending *p)
{
	static struct out_buf o; /* kept: a malloc and free per answer showed in profiles */
	o.len = 0;
	format_pending(p, &o);
	fwrite(o.p, 1, o.len, stdout);
}

/* Solves what is pending, then prints every pending answer in order. */
static void flush_pending(void)
{
	int first = 0;
	while (first < npending) {
		/* the puzzles of one call: a run of up to opt.batch to solve */
		int n = 0;
		for (int i = first; i < npending && n < opt.batch; i++)
			if (pending[i].solve)
				run[n++] = &pending[i];
		if (n == 0)
			break;
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
			run[i]->ms = worker_elapsed_ms(&ctx);
		}
		/* the answered part ends just after the last puzzle of the run */
		int last = (int)(run[n - 1] - pending);
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

void describe_unsupported(char *buf, size_t bufsz, long line, int side)
{
	snprintf(buf, bufsz, "line %ld: %s takes box sizes %d to %d, not %dx%d", line, ALGO.name, ALGO.min_box,
		 device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box, side, side);
}

static void take_item(enum stream_event ev, struct stream_item *item)
{
	struct pending *p = &pending[npending++];
	char err[GRID_ERR_MAX];
	p->solve = false;
	p->failed = true;
	p->ms = 0;
	/* not the 4 KB of cells: a solver that solves writes the solution */
	p->res.count = 0;
	p->res.nodes = 0;
	p->res.reason[0] = '\0';
	grid_init(&p->res.solution, 0);
	if (ev == STREAM_INVALID) {
		p->kind = ANSWER_INVALID;
		snprintf(p->text, sizeof p->text, "%s", item->error);
		p->item.line = item->line;
		return;
	}
	/* --json shows the puzzle of a '#' line too; the used cells only (a
	 * whole item is 4 KB) */
	p->item.line = item->line;
	p->item.notation = item->notation;
	memcpy(&p->item.grid, &item->grid, offsetof(struct grid, cell) + (size_t)item->grid.cells);
	if (!size_supported(item->grid.box)) {
		p->kind = ANSWER_UNSUPPORTED;
		describe_unsupported(p->text, sizeof p->text, item->line, item->grid.side);
	} else if (grid_check_givens(&item->grid, err, sizeof err) < 0) {
		p->kind = ANSWER_CLASH;
		snprintf(p->text, sizeof p->text, "line %ld: %s", item->line, err);
	} else {
		p->kind = ANSWER_SEARCHED;
		p->solve = true;
		p->failed = false;
		nsolve++;
	}
}

static int filter_input(int fd)
{
	struct line_reader lr;
	struct puzzle_stream ps;
	struct stream_item *item = xrealloc(NULL, sizeof *item);
	if (line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0) {
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

int filter_main(int argc, char **argv, int first)
{
	pending = calloc((size_t)(2 * opt.batch + 4), sizeof *pending);
	if (!pending) {
		fprintf(stderr, "%s: out of memory\n", program);
		return 2;
	}
	run = xrealloc(NULL, (size_t)opt.batch * sizeof *run); /* a call's: opt.batch at most */
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
	free(run);
	return status ? status : exit_status;
}

