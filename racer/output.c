/* Answers in input order (output.h), written by the answer codec
 * (lib/answer.h); answer_of() is the one reader of struct puzzle. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "lib/answer.h"
#include "racer/attempt.h"
#include "racer/options.h"
#include "racer/output.h"
#include "racer/puzzle.h"
#include "racer/util.h"
#include "racer/workers.h"

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
static struct answer_buf text; /* an answer's text, kept from answer to answer */
static union grid_room solution; /* the answer's solution, kept from answer to answer */

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
	if ((saved_flags = stdout_nonblock()) >= 0) {
		write_ev = event_new(base, STDOUT_FILENO, EV_WRITE, writable_cb, NULL);
		if (!write_ev)
			die("out of memory");
	}
	stdout_tty = isatty(STDOUT_FILENO);
}

static void restore_flags(void)
{
	stdout_restore(saved_flags);
	saved_flags = -1;
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

/* The answer codec's view of a finished puzzle (lib/answer.h): the
 * one place that reads struct puzzle for output. json: the racer's own
 * --json keys too (race, and its workers, at least MAX_SPECS of them). */
static void answer_of(const struct puzzle *pz, bool json, struct answer *a, struct answer_race *race,
		      struct answer_attempt *workers)
{
	static const enum answer_kind kinds[] = {
		[V_SOLVED] = ANSWER_SOLVED,     [V_UNSAT] = ANSWER_UNSAT,     [V_MULTIPLE] = ANSWER_MULTIPLE,
		[V_UNSOLVED] = ANSWER_UNSOLVED, [V_TIMEOUT] = ANSWER_TIMEOUT, [V_INVALID] = ANSWER_INVALID,
		[V_CLASH] = ANSWER_CLASH,       [V_UNSUPPORTED] = ANSWER_UNSUPPORTED,
	};
	if (pz->solution) {
		grid_from_cells(&solution.grid, pz->grid->box, pz->solution);
	}
	*a = (struct answer){
		.kind = kinds[pz->verdict],
		.file = pz->input_name,
		.line = pz->line,
		.puzzle = pz->verdict == V_INVALID ? NULL : pz->grid,
		.nt = &pz->notation,
		.solution = pz->solution ? &solution.grid : NULL,
		.note = pz->text,
		.count = pz->count,
		.count_limit = opt.count,
		.seconds = opt.timeout_s,
	};
	if (!json)
		return;
	a->unique = pz->uniq == UNIQ_UNIQUE ? ANSWER_UNIQUE_YES : pz->uniq == UNIQ_MULTIPLE ? ANSWER_UNIQUE_NO
											  : ANSWER_UNIQUE_UNKNOWN;
	a->winner = pz->winner >= 0 ? specs[pz->winner].label : pz->winner_name;
	a->worker_ms = pz->winner_ms;
	a->ms = pz->race_ms;
	*race = (struct answer_race){
		.counted = opt.count != 0,
		.confirmed = pz->claims.confirmed || pz->verdict == V_CLASH,
		.provers = pz->claims.provers,
		.cache = pz->cache_hit,
		.stage = pz->stage == STAGE_NONE ? "none"
			 : pz->stage == STAGE_FIRST ? "presolver"
			 : pz->escalated	    ? "escalated"
						    : "all",
		.workers = workers,
	};
	for (int i = 0; i < nspecs && pz->stage != STAGE_NONE; i++) {
		enum outcome o = puzzle_outcome(pz, i);
		if (o == OUT_NONE)
			continue;
		/* still in flight: it was sent a cancel when the race ended */
		if (o == OUT_SENT)
			o = OUT_CANCELLED;
		workers[race->nworkers++] =
			(struct answer_attempt){specs[i].label, outcome_name(o), pz->att[i] ? pz->att[i]->ms : 0};
	}
	a->race = race;
}

void output_puzzle(const struct puzzle *pz)
{
	if (closed)
		return;
	if (pz->verdict != V_PENDING) {
		struct answer a;
		struct answer_race race;
		struct answer_attempt workers[MAX_SPECS];
		answer_of(pz, opt.json, &a, &race, workers);
		text.len = 0;
		if ((opt.json ? answer_write_json(&text, &a) : answer_write_text(&text, &a, opt.pretty)) < 0)
			die("out of memory");
		evbuffer_add(out, text.p, text.len);
		emitted += text.len;
	}
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
	answer_buf_free(&text);
	write_ev = flush_ev = NULL;
	out = NULL;
}
