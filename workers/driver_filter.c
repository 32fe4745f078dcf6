/* Filter mode, one puzzle at a time: files or standard input to one answer
 * line per puzzle, in order; and the verdicts' lines, which the pipeline
 * (driver_pipeline.c) writes too. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "protocol/puzzle_stream.h"
#include "driver.h"

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
int exit_status;
static const char *input_name; /* NULL for standard input */

char *out_room(struct out_buf *o, size_t more)
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

/* The answer to a puzzle that was searched, appended to o: the solution
 * (verified first) or a '#' line. Sets *failed when it is not a solution. */
void format_verdict(struct out_buf *o, const struct grid *puzzle, const struct notation *nt,
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
void describe_unsupported(char *buf, size_t bufsz, const char *file, long line, int side)
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

int filter_main(int argc, char **argv, int first)
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

