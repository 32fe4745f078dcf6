/* Filter mode, one puzzle at a time: files or standard input to one answer
 * line per puzzle, in order; and the verdicts' lines, which the pipeline
 * (driver_pipeline.c) writes too. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "lib/files.h"
#include "lib/puzzle_stream.h"
#include "driver.h"

/* --- filter mode --- */

struct pending {
	struct stream_item item;
	bool solve;     /* still to be solved */
	enum filter_kind kind;
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

char *out_room(struct answer_buf *o, size_t more)
{
	char *at = answer_buf_room(o, more);
	if (!at) {
		die("out of memory");
	}
	return at;
}

/* The codec's answer of a filter-mode verdict: the solution is verified
 * here, never passed on wrong, even our own. */
void format_answer(struct answer_buf *o, const struct filter_answer *a, bool *failed)
{
	char text[GRID_ERR_MAX + 128];
	struct answer ans = {
		.file = a->file,
		.line = a->line,
		.puzzle = a->puzzle,
		.nt = a->nt,
		.note = a->note,
		.count_limit = opt.count_limit,
		.worker_ms = a->ms,
		.ms = a->ms,
	};
	switch (a->kind) {
	case FILTER_INVALID:
		ans.kind = ANSWER_INVALID;
		break;
	case FILTER_UNSUPPORTED:
		ans.kind = ANSWER_UNSUPPORTED;
		break;
	case FILTER_CLASH:
		ans.kind = ANSWER_CLASH;
		ans.winner = ALGO.name; /* it decided */
		break;
	case FILTER_SEARCHED:
		switch (a->st) {
		case SOLVE_SOLVED: {
			char why[GRID_ERR_MAX];
			if (!grid_verify(a->puzzle, a->solution, why, sizeof why)) {
				snprintf(text, sizeof text, "%s gave a wrong answer (%s)", ALGO.name, why);
				ans.kind = ANSWER_WRONG;
				ans.note = text;
				break;
			}
			ans.solution = a->solution;
			ans.winner = ALGO.name;
			ans.count = a->count;
			if (opt.count_limit > 1 && a->count > 1) {
				ans.kind = ANSWER_MULTIPLE;
				ans.unique = ANSWER_UNIQUE_NO;
			} else {
				ans.kind = ANSWER_SOLVED;
				ans.unique = opt.count_limit > 1 ? ANSWER_UNIQUE_YES : ANSWER_UNIQUE_UNKNOWN;
			}
			break;
		}
		case SOLVE_UNSAT:
			ans.kind = ANSWER_UNSAT;
			ans.winner = ALGO.name;
			break;
		case SOLVE_GAVEUP:
			ans.kind = ANSWER_GAVEUP;
			break;
		case SOLVE_STOPPED:
			ans.kind = ALGO.kind == WORKER_COMPLETE ? ANSWER_TIMEOUT : ANSWER_GAVEUP_AFTER;
			ans.seconds = opt.time_limit;
			break;
		}
		break;
	}
	*failed = answer_failed(&ans);
	if ((opt.json ? answer_write_json(o, &ans) : answer_write_text(o, &ans, opt.pretty)) < 0)
		die("out of memory");
}

/* A pending puzzle's answer line (or boxed grid), appended to o. */
static void format_pending(struct pending *p, struct answer_buf *o)
{
	const struct filter_answer a = {
		.file = input_name,
		.line = p->item.line,
		.kind = p->kind,
		.note = p->solve ? p->res.reason : p->text,
		.puzzle = p->kind == FILTER_INVALID ? NULL : &p->item.grid,
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
	static struct answer_buf o; /* kept: a malloc and free per answer showed in profiles */
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
		ctx.where = where;
		ctx.id = NULL;
		/* one puzzle at a time, each timed from the end of the one before
		 * (nothing is written between them): an algorithm with solve_batch
		 * goes through the pipeline (pipeline_main) */
		uint64_t t = now_ns();
		for (int i = 0; i < n; i++) {
			if (opt.progress && input_name)
				snprintf(where, sizeof where, "%s: line %ld", input_name, run[i]->item.line);
			else if (opt.progress)
				snprintf(where, sizeof where, "line %ld", run[i]->item.line);
			ctx_start_at(&ctx, t, opt.time_limit, opt.progress ? opt.progress_ms : 0, opt.count_limit,
				     opt.seed);
			run[i]->st = ALGO.solve(&run[i]->item.grid, &run[i]->res, &ctx);
			t = now_ns();
			run[i]->ms = ctx_ms_to(&ctx, t);
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
		p->kind = FILTER_INVALID;
		snprintf(p->text, sizeof p->text, "%s", item->error);
		p->item.line = item->line;
		return;
	}
	/* --json shows the puzzle of a '#' line too */
	p->item.line = item->line;
	p->item.notation = item->notation;
	grid_copy(&p->item.grid, &item->grid);
	if (!size_supported(item->grid.box)) {
		p->kind = FILTER_UNSUPPORTED;
		describe_unsupported(p->text, sizeof p->text, item->line, item->grid.side);
	} else if (grid_check_givens(&item->grid, err, sizeof err) < 0) {
		p->kind = FILTER_CLASH;
		snprintf(p->text, sizeof p->text, "line %ld: %s", item->line, err);
	} else {
		p->kind = FILTER_SEARCHED;
		p->solve = true;
		p->failed = false;
		nsolve++;
	}
}

/* Answers the puzzles of one input (name NULL: standard input); -1 on a
 * read error. */
static int filter_input(int fd, const char *name)
{
	input_name = name;
	struct line_reader lr;
	struct puzzle_stream ps;
	struct stream_item *item = xmalloc(sizeof *item);
	if (line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0)
		die("out of memory");
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
	run = xmalloc((size_t)opt.batch * sizeof *run); /* a call's: opt.batch at most */
	int status = files_read_each(argc, argv, first, filter_input);
	if (files_finish_stdout() != 0)
		status = 2;
	free(pending);
	free(run);
	return status ? status : exit_status;
}

