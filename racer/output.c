/* Answers in input order (output.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "racer/options.h"
#include "racer/output.h"
#include "racer/puzzle.h"
#include "racer/util.h"

static const struct output_hooks *hooks;
static struct evbuffer *out;
static struct event *flush_ev, *write_ev;
static bool flush_pending, closed, stdout_tty;
static int saved_flags = -1; /* standard output's flags before O_NONBLOCK */
static uint64_t emitted, written; /* bytes */
/* Where the '#' lines end, in bytes emitted: one that was written makes the
 * exit status 1 (what was never written because the reader left does not). */
static uint64_t *fail_ends;
static size_t fail_head, fail_tail, fail_cap;
static int status;
static char *fmt;
static size_t fmtsz;
static struct grid solution;

static void try_write(void);

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	flush_pending = false;
	try_write();
}

static void writable_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	try_write();
}

void output_init(struct event_base *base, const struct output_hooks *h)
{
	hooks = h;
	out = evbuffer_new();
	flush_ev = event_new(base, -1, 0, flush_cb, NULL);
	if (!out || !flush_ev)
		die("out of memory");
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		int fl = fcntl(STDOUT_FILENO, F_GETFL);
		if (fl >= 0 && fcntl(STDOUT_FILENO, F_SETFL, fl | O_NONBLOCK) == 0) {
			saved_flags = fl;
			write_ev = event_new(base, STDOUT_FILENO, EV_WRITE, writable_cb, NULL);
			if (!write_ev)
				die("out of memory");
		}
	}
	stdout_tty = isatty(STDOUT_FILENO);
	fmtsz = grid_format_pretty_max(GRID_MAX_SIDE) + 2;
	fmt = xmalloc(fmtsz);
}

static void restore_flags(void)
{
	if (saved_flags >= 0) {
		fcntl(STDOUT_FILENO, F_SETFL, saved_flags);
		saved_flags = -1;
	}
}

static void note_written(size_t n)
{
	written += n;
	while (fail_head < fail_tail && fail_ends[fail_head % fail_cap] <= written) {
		status = 1;
		fail_head++;
	}
}

static void try_write(void)
{
	if (closed)
		return;
	if (stdout_tty)
		hooks->before_write();
	while (evbuffer_get_length(out) > 0) {
		int n = evbuffer_write(out, STDOUT_FILENO);
		if (n >= 0) {
			note_written((size_t)n);
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && write_ev) {
			event_add(write_ev, NULL);
			return;
		}
		closed = true;
		evbuffer_drain(out, evbuffer_get_length(out));
		if (errno == EPIPE) {
			/* the reader has what it wanted */
			hooks->closed(false);
		} else {
			warn("write error: %s", strerror(errno));
			hooks->closed(true);
		}
		return;
	}
	hooks->drained();
}

static void note_failure(void)
{
	if (fail_tail - fail_head == fail_cap) {
		size_t ncap = fail_cap ? 2 * fail_cap : 64;
		uint64_t *n = xmalloc(ncap * sizeof *n);
		for (size_t i = fail_head; i < fail_tail; i++)
			n[i - fail_head] = fail_ends[i % fail_cap];
		fail_tail -= fail_head;
		fail_head = 0;
		free(fail_ends);
		fail_ends = n;
		fail_cap = ncap;
	}
	fail_ends[fail_tail++ % fail_cap] = emitted;
}

static const char *prefix_of(const struct puzzle *pz, char *buf, size_t size)
{
	if (!pz->input_name)
		return "";
	snprintf(buf, size, "%s: ", pz->input_name);
	return buf;
}

void output_puzzle(const struct puzzle *pz)
{
	if (closed)
		return;
	size_t before = evbuffer_get_length(out);
	const struct grid *sol = NULL;
	if (pz->solution) {
		solution.box = pz->item.grid.box;
		solution.side = pz->item.grid.side;
		solution.cells = pz->item.grid.cells;
		memcpy(solution.cell, pz->solution, (size_t)solution.cells);
		sol = &solution;
	}
	char pre[4200];
	if (opt.json) {
		json_puzzle(out, pz, sol);
	} else {
		switch (pz->verdict) {
		case V_SOLVED: {
			int n = opt.pretty ? grid_format_pretty(sol, &pz->item.notation, fmt, fmtsz)
					   : grid_format(sol, &pz->item.notation, fmt, fmtsz - 1);
			if (n < 0)
				die("internal error: an answer does not fit its buffer");
			if (!opt.pretty)
				fmt[n++] = '\n';
			evbuffer_add(out, fmt, (size_t)n);
			break;
		}
		case V_UNSAT:
			evbuffer_add(out, "# unsat\n", 8);
			break;
		case V_CLASH:
			evbuffer_add_printf(out, "# unsat: %s%s\n", prefix_of(pz, pre, sizeof pre), pz->text);
			break;
		case V_MULTIPLE:
			/* as the workers' filter mode says it (--count=K) */
			evbuffer_add_printf(out, "# multiple solutions: %s%ld\n", pz->count >= opt.count ? "at least " : "",
					    pz->count);
			break;
		case V_UNSOLVED:
			evbuffer_add_printf(out, "# unsolved\n");
			break;
		case V_TIMEOUT:
			evbuffer_add_printf(out, "# timeout after %g s\n", opt.timeout_s);
			break;
		case V_INVALID:
			evbuffer_add_printf(out, "# invalid: %s%s\n", prefix_of(pz, pre, sizeof pre),
					    pz->item.error);
			break;
		case V_UNSUPPORTED:
			evbuffer_add_printf(out, "# unsupported: %s%s\n", prefix_of(pz, pre, sizeof pre),
					    pz->text);
			break;
		case V_PENDING:
			break;
		}
	}
	emitted += evbuffer_get_length(out) - before;
	if (pz->verdict != V_SOLVED)
		note_failure();
	if (!flush_pending) {
		flush_pending = true;
		event_active(flush_ev, EV_TIMEOUT, 0);
	}
}

void output_flush_all(void)
{
	restore_flags();
	if (write_ev)
		event_del(write_ev);
	try_write();
}

size_t output_backlog(void)
{
	return out ? evbuffer_get_length(out) : 0;
}

int output_status(void)
{
	return status;
}

void output_free(void)
{
	restore_flags();
	if (write_ev)
		event_free(write_ev);
	if (flush_ev)
		event_free(flush_ev);
	if (out)
		evbuffer_free(out);
	free(fail_ends);
	free(fmt);
	write_ev = flush_ev = NULL;
	out = NULL;
}
