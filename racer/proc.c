/* One worker process (proc.h): its states, pipes, hello, the attempts in
 * flight, cancels and the end. Every state change goes through set_state,
 * which refuses a transition the diagram in proc.h does not have. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "lib/number.h"
#include "racer/attempt.h"
#include "racer/cut.h"
#include "racer/frame.h"
#include "racer/options.h"
#include "racer/proc.h"
#include "racer/spawn.h"
#include "racer/stats.h"
#include "racer/util.h"
#include "racer/workers.h"

/* Attempts a process may have in flight before it is passed over: a worker
 * that stopped reading would otherwise make its queue grow without end. A
 * batch worker (hello's batch=) may have two batches in flight. */
#define INFLIGHT_CAP 1024
/* A worker's answers read at once, at most (a pipe holds 64 kB). */
#define FROM_CHUNK 65536
/* The cancel grace follows how the process answers: at least --grace, and
 * GRACE_FACTOR times the slowest acknowledgement it gave lately (a loaded
 * machine may leave it without a core for a while), at most GRACE_MOST
 * times --grace. The slowest fades by ACK_FADE at each acknowledgement. */
#define GRACE_FACTOR 4
#define GRACE_MOST 25
#define ACK_FADE 0.98

#define BIT(s) (1u << (s))
static const unsigned allowed[] = {
	[PROC_NEW] = BIT(PROC_STARTING),
	[PROC_STARTING] = BIT(PROC_IDLE) | BIT(PROC_STOPPING),
	[PROC_IDLE] = BIT(PROC_BUSY) | BIT(PROC_STOPPING),
	[PROC_BUSY] = BIT(PROC_IDLE) | BIT(PROC_CANCELLING) | BIT(PROC_STOPPING),
	[PROC_CANCELLING] = BIT(PROC_IDLE) | BIT(PROC_BUSY) | BIT(PROC_STOPPING),
	[PROC_STOPPING] = BIT(PROC_DEAD),
	[PROC_DEAD] = BIT(PROC_STARTING),
};

static void set_state(struct proc *p, enum proc_state to)
{
	if (p->state == to)
		return;
	if (!(allowed[p->state] & BIT(to)))
		die("internal error: worker %s went from state %d to %d", p->spec->label, (int)p->state, (int)to);
	p->state = to;
}

static void timer_in(struct proc *p, double ms)
{
	struct timeval tv = ms_tv(ms);
	evtimer_add(p->timer, &tv);
}

bool proc_ready(const struct proc *p)
{
	return p->state == PROC_IDLE || p->state == PROC_BUSY || p->state == PROC_CANCELLING;
}

bool proc_can_send(const struct proc *p)
{
	int cap = p->spec->batch > 1 ? 2 * p->spec->batch : INFLIGHT_CAP;
	return proc_ready(p) && p->n < cap;
}

bool proc_finished(const struct proc *p)
{
	return p->state == PROC_NEW || p->state == PROC_DEAD;
}

/* Signals the process's group (the worker and anything it started). */
static void signal_group(struct proc *p, int sig)
{
	if (p->pid > 0 && !p->reaped)
		kill(-p->pid, sig);
}

void proc_kill(struct proc *p)
{
	signal_group(p, SIGKILL);
}

static void free_pipes(struct proc *p)
{
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
	if (p->from) {
		evutil_socket_t fd = event_get_fd(p->from);
		event_free(p->from);
		close(fd);
		evbuffer_free(p->from_buf);
		p->from = NULL;
		p->from_buf = NULL;
	}
}

/* --- the attempts in flight --- */

static int find(struct proc *p, uint64_t seq)
{
	/* answers come in order, the head first; a take-back cancels the
	 * attempts behind the head in order, each found just after the last */
	int n = p->n;
	if (n && proc_at(p, 0)->seq == seq)
		return 0;
	int start = p->found < n ? p->found : 0;
	for (int k = 0, i = start; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (proc_at(p, i)->seq == seq)
			return p->found = i;
	return -1;
}

/* The time it has to acknowledge a cancel, ns. */
static uint64_t grace_ns(const struct proc *p)
{
	double ms = opt.grace_s * 1000, seen = GRACE_FACTOR * p->slowest_ack_ms;
	if (seen > ms)
		ms = seen < GRACE_MOST * ms ? seen : GRACE_MOST * ms;
	return (uint64_t)(ms * 1e6);
}

/* When the oldest cancel not acknowledged yet runs out of grace (0: none). */
static uint64_t cancel_deadline_ns(const struct proc *p)
{
	uint64_t oldest = 0;
	for (int i = 0; i < p->n; i++) {
		uint64_t c = proc_at(p, i)->cancel_ns;
		if (c && (!oldest || c < oldest))
			oldest = c;
	}
	return oldest ? oldest + grace_ns(p) : 0;
}

/* The state after the attempts in flight changed. The grace timer is set
 * for the oldest cancel when the first is sent, and again when it fires
 * with none overdue; acknowledgements in between leave it. */
static void settle(struct proc *p)
{
	if (!proc_ready(p))
		return;
	if (p->ncancels) {
		if (p->state != PROC_CANCELLING) {
			set_state(p, PROC_CANCELLING);
			timer_in(p, (double)((int64_t)cancel_deadline_ns(p) - (int64_t)now_ns()) / 1e6);
		}
		return;
	}
	if (p->state == PROC_CANCELLING)
		evtimer_del(p->timer);
	set_state(p, p->n ? PROC_BUSY : PROC_IDLE);
}

static void forget_all(struct proc *p)
{
	p->n = p->head = p->ncancels = 0;
}

/* Takes attempt i out of the queue; now: when the next became the head. */
static struct attempt *take(struct proc *p, int i, uint64_t now)
{
	struct attempt *a = proc_at(p, i);
	if (a->cancel_ns) {
		double ms = now > a->cancel_ns ? (double)(now - a->cancel_ns) / 1e6 : 0;
		p->slowest_ack_ms = ms > p->slowest_ack_ms * ACK_FADE ? ms : p->slowest_ack_ms * ACK_FADE;
		p->ncancels--;
	}
	if (i == 0) {
		p->head++;
		p->head_ns = now;
	} else {
		memmove(&p->queue[p->head + i], &p->queue[p->head + i + 1], (size_t)(p->n - i - 1) * sizeof *p->queue);
	}
	if (!--p->n)
		p->head = 0;
	settle(p);
	return a;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct proc *p = arg;
	frame_flush(&p->frame, p->to);
}

/* a in flight on p, last. */
static void enqueue(struct proc *p, struct attempt *a)
{
	if (p->head + p->n == p->cap) {
		/* at the buffer's end: moved down, or grown when half of it is
		 * in flight (an answer at the head moves nothing) */
		if (p->head <= p->cap / 2) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->queue = xrealloc(p->queue, (size_t)p->cap * sizeof *p->queue);
		}
		memmove(p->queue, p->queue + p->head, (size_t)p->n * sizeof *p->queue);
		p->head = 0;
	}
	p->queue[p->head + p->n++] = a;
	a->proc = (int16_t)p->index;
	if (p->n == 1)
		p->head_ns = now_ns();
}

void proc_send_solve(struct proc *p, struct attempt *a, const struct msg_solve_record *rec, bool with_seed)
{
	if (!p->to || !proc_ready(p))
		return;
	enqueue(p, a);
	struct msg_span part[2];
	int n = msg_solve_emit(rec, with_seed, part);
	frame_flush(&p->frame, p->to); /* in the order sent */
	for (int i = 0; i < n; i++)
		bufferevent_write(p->to, part[i].p, part[i].len);
	settle(p);
}

void proc_send_framed(struct proc *p, struct attempt *a, const struct grid *g, const struct msg_solve_fields *f)
{
	if (!p->to || !proc_ready(p))
		return;
	enqueue(p, a);
	if (frame_add(&p->frame, a->seq, g, f, p->to))
		event_active(p->flush_ev, 0, 0); /* at the loop turn's end */
	settle(p);
}

void proc_send_cancel(struct proc *p, struct attempt *a)
{
	if (!proc_ready(p) || !p->to || a->cancel_ns || a->proc != p->index)
		return;
	a->cancel_ns = now_ns();
	p->ncancels++;
	frame_flush(&p->frame, p->to); /* after the solve it cancels */
	char id[U64_DECIMAL_SIZE], line[48];
	int n = msg_write_cancel(line, sizeof line, u64_decimal(a->seq, id));
	if (n > 0)
		bufferevent_write(p->to, line, (size_t)n);
	settle(p);
}

/* --- the end --- */

static void check_finished(struct proc *p)
{
	if (p->state != PROC_STOPPING || !p->reaped || !p->eof)
		return;
	set_state(p, PROC_DEAD);
	evtimer_del(p->timer);
	free_pipes(p);
	p->ev->ended(p->owner, p);
}

static void enter_stopping(struct proc *p, enum outcome why, bool strike)
{
	p->was_starting = p->state == PROC_STARTING;
	set_state(p, PROC_STOPPING);
	p->why = why;
	p->strike = strike;
	evtimer_del(p->timer);
}

void proc_stop(struct proc *p, enum outcome why, bool strike)
{
	if (p->state == PROC_STOPPING || proc_finished(p))
		return;
	enter_stopping(p, why, strike);
	frame_flush(&p->frame, NULL); /* its attempts are lost below */
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
	signal_group(p, SIGTERM);
	timer_in(p, opt.grace_s * 1000);
	/* what it had in flight is lost; the races go on without it (taken
	 * out first: the owner may send elsewhere from its callback) */
	while (p->n) {
		struct attempt *a = proc_at(p, 0);
		p->head++;
		p->n--;
		a->proc = -1;
		p->ev->lost(p->owner, p, a, why);
	}
	forget_all(p);
	check_finished(p);
}

static void on_exit_status(void *owner, int wstatus)
{
	struct proc *p = owner;
	p->reaped = true;
	p->wstatus = wstatus;
	if (p->state != PROC_STOPPING)
		proc_stop(p, OUT_DIED, true); /* it ended by itself */
	check_finished(p);
}

static void quit_drained_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	struct proc *p = arg;
	/* quit is out: the end of its input says the same to a worker that
	 * missed it */
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
}

static void to_event_cb(struct bufferevent *bev, short what, void *arg);

void proc_quit(struct proc *p)
{
	if (p->state == PROC_STOPPING || proc_finished(p))
		return;
	if (p->state == PROC_STARTING || !p->to) {
		/* nothing to lose: no need to wait for a slow start, nor for the
		 * end of one killed in it (a GPU worker killed while its CUDA
		 * context is set up takes tens of ms to go) */
		proc_stop(p, OUT_KILLED, false);
		signal_group(p, SIGKILL);
		p->abandoned = true;
		return;
	}
	frame_flush(&p->frame, NULL); /* forgotten below */
	char line[16];
	int n = msg_write_quit(line, sizeof line);
	if (n > 0)
		bufferevent_write(p->to, line, (size_t)n);
	bufferevent_setcb(p->to, NULL, quit_drained_cb, to_event_cb, p);
	forget_all(p);
	enter_stopping(p, OUT_KILLED, false);
	timer_in(p, opt.grace_s * 1000);
}

/* A malformed line, a final message for nothing in flight: the worker's
 * stream can no longer be trusted; it loses what it was racing and is
 * started again (PROTOCOL.md 9). */
static void protocol_failure(struct proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void protocol_failure(struct proc *p, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (stats_spec_add(p->spec->index, SC_MALFORMED, 1) == 1)
		warn("worker %s broke the protocol (%s); it is restarted", p->spec->label, why);
	proc_stop(p, OUT_MALFORMED, true);
	signal_group(p, SIGKILL);
}

/* --- hello --- */

static void handle_hello(struct proc *p, char *line, size_t len)
{
	struct msg m;
	struct msg_hello h;
	char err[128], why[160];
	const char *bad = NULL;
	if (msg_parse(line, len, &m, err, sizeof err) < 0 || m.type != MSG_HELLO) {
		bad = "its first line is not hello";
		stats_spec_add(p->spec->index, SC_HELLO_FAILURES, 1);
	} else if (msg_read_hello(&m, &h, err, sizeof err) < 0 || h.proto != PROTO_VERSION) {
		/* the codec reads any version; this racer speaks its own */
		const char *proto = msg_field(&m, "proto");
		if (h.proto != PROTO_VERSION)
			snprintf(why, sizeof why, "speaks protocol %.40s, not %d", proto ? proto : "(none)", PROTO_VERSION);
		else
			snprintf(why, sizeof why, "a bad hello: %s", err);
		bad = why;
	}
	if (!p->ev->hello(p->owner, p, bad ? NULL : &h, bad)) {
		proc_stop(p, OUT_OUT, false);
		proc_kill(p);
		return;
	}
	p->bulk = h.bulk && !opt.no_bulk;
	set_state(p, PROC_IDLE);
	evtimer_del(p->timer);
}

/* --- what it says --- */

/* A final answer for attempt i (-1: none in flight with its id, which
 * breaks the protocol): taken out and handed up. False when the process is
 * stopping. */
static bool hand_on(struct proc *p, int i, const struct msg_reply *r, const char *what, uint64_t now)
{
	if (i < 0) {
		protocol_failure(p, "'%s' for %" PRIu64 ", which is not in flight", what, r->id);
		return false;
	}
	struct attempt *a = take(p, i, now);
	a->proc = -1;
	p->ev->answer(p->owner, p, a, r);
	return p->state != PROC_STOPPING;
}

static void handle_line(struct proc *p, char *line, size_t len, uint64_t now)
{
	if (p->state == PROC_STARTING) {
		handle_hello(p, line, len);
		return;
	}
	struct msg m;
	struct msg_reply r;
	char err[128];
	const char *why[1] = {err};
	if (msg_parse(line, len, &m, err, sizeof err) < 0) {
		protocol_failure(p, "a malformed line: %s", err);
		return;
	}
	switch (msg_read_reply(&m, &r, err, sizeof err)) {
	case MSG_READ_OTHER:
		return; /* pong, unknown types: ignored (PROTOCOL.md 9) */
	case MSG_READ_BAD_ID:
		if (m.type != MSG_PROGRESS)
			protocol_failure(p, "'%s' for %s, which is not in flight", m.word, m.id);
		return;
	case MSG_READ_BAD_FIELD:
		/* an answer, but not a readable one: named as its error */
		r.type = MSG_ERROR;
		r.words = why;
		r.nwords = 1;
		break;
	case MSG_READ_OK:
		break;
	}
	if (r.type == MSG_ERROR && !r.has_id) {
		/* the worker could not read one of our lines: nothing lost */
		stats_spec_add(p->spec->index, SC_REFUSED, 1);
		return;
	}
	int i = find(p, r.id);
	if (m.type == MSG_PROGRESS) {
		/* progress about an attempt no longer in flight is stale */
		if (i >= 0)
			p->ev->progress(p->owner, p, proc_at(p, i), &m);
		return;
	}
	hand_on(p, i, &r, m.word, now);
}

/* A read event's messages (cut_messages), with one clock read for the run
 * of answers read at once. */
struct reading {
	struct proc *p;
	uint64_t now;
};

static bool reading_wanted(void *arg)
{
	const struct proc *p = ((struct reading *)arg)->p;
	return p->state != PROC_STOPPING && p->state != PROC_DEAD;
}

static void reading_line(void *arg, char *line, size_t len)
{
	const struct reading *rd = arg;
	handle_line(rd->p, line, len, rd->now);
}

static bool reading_is_frame(void *arg, const char *line, size_t len)
{
	return ((struct reading *)arg)->p->state != PROC_STARTING && frame_is_solutions(line, len);
}

/* A solutions frame's record (frame_read_solutions' each), answered as a
 * solution line is. */
static bool frame_answer(void *arg, const struct msg_reply *r)
{
	const struct reading *rd = arg;
	return hand_on(rd->p, find(rd->p, r->id), r, "a solution in a frame", rd->now);
}

static size_t reading_frame(void *arg, const char *line, size_t len, size_t rest_len, size_t *wait)
{
	struct proc *p = ((struct reading *)arg)->p;
	size_t took = 0;
	char why[160];
	enum frame_read rd = frame_read_solutions(line, len, (const uint8_t *)line + len + 1, rest_len, p->n, p->bulk,
						  frame_answer, arg, &took, why, sizeof why);
	if (rd == FRAME_BROKEN)
		protocol_failure(p, "%s", why);
	if (rd != FRAME_WAIT)
		return took;
	*wait = took;
	return 0;
}

static void reading_overlong(void *arg)
{
	protocol_failure(((struct reading *)arg)->p, "a line longer than %d bytes", PROTO_LINE_MAX);
}

static const struct cut_events reading_events = {
	reading_wanted, reading_line, reading_is_frame, reading_frame, reading_overlong,
};

static void from_ended(struct proc *p);

static void from_read_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	struct proc *p = arg;
	ssize_t n = read_pipe(p->from_buf, fd, FROM_CHUNK);
	if (n < 0)
		return;
	if (n == 0) {
		from_ended(p);
		return;
	}
	struct reading rd = {p, now_ns()};
	cut_messages(p->from_buf, &reading_events, &rd);
}

/* Its output's end, or a read error: a line cut short is dropped. */
static void from_ended(struct proc *p)
{
	p->eof = true;
	event_del(p->from);
	/* a worker that closed its output is of no more use, even alive */
	if (p->state != PROC_STOPPING && !proc_finished(p))
		proc_stop(p, OUT_DIED, true);
	check_finished(p);
}

static void to_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	struct proc *p = arg;
	/* EPIPE: it closed its standard input (or is gone). It can take nothing
	 * more, and what was written may not have reached it: it is stopped. */
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
	if (p->state != PROC_STOPPING && !proc_finished(p))
		proc_stop(p, OUT_DIED, true);
}

/* --- the timer --- */

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct proc *p = arg;
	switch (p->state) {
	case PROC_STARTING:
		/* no hello in time */
		proc_stop(p, OUT_KILLED, true);
		signal_group(p, SIGKILL);
		break;
	case PROC_CANCELLING: {
		uint64_t deadline = cancel_deadline_ns(p), now = now_ns();
		if (!deadline) {
			settle(p);
		} else if (deadline <= now) {
			proc_stop(p, OUT_KILLED, true);
			signal_group(p, SIGKILL);
		} else {
			timer_in(p, (double)(deadline - now) / 1e6);
		}
		break;
	}
	case PROC_STOPPING:
		if (!p->reaped) {
			/* the grace is over */
			signal_group(p, SIGKILL);
			timer_in(p, opt.grace_s * 1000 + 50);
		} else {
			/* it exited, but something still holds its output open */
			p->eof = true;
			check_finished(p);
		}
		break;
	default:
		break;
	}
}

/* --- birth --- */

void proc_init(struct proc *p, int index, const struct worker_spec *s, int nice,
	       const struct proc_events *ev, void *owner, struct event_base *base)
{
	*p = (struct proc){.index = index, .spec = s, .nice = nice, .ev = ev, .owner = owner, .base = base,
			   .state = PROC_NEW};
}

void proc_spawn(struct proc *p)
{
	if (!p->timer && !(p->timer = evtimer_new(p->base, timer_cb, p)))
		die("cannot create a timer");
	if (!p->flush_ev && !(p->flush_ev = event_new(p->base, -1, 0, flush_cb, p)))
		die("cannot create an event");
	frame_flush(&p->frame, NULL);
	set_state(p, PROC_STARTING);
	p->eof = p->reaped = p->abandoned = false;
	forget_all(p);
	p->spawned_ns = now_ns();
	p->pid = 0;
	int to[2] = {-1, -1}, from[2] = {-1, -1};
	p->start_error[0] = '\0';
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(p->start_error, sizeof p->start_error, "cannot make its pipes: %s", strerror(errno));
		goto failed;
	}
	struct spawn_program sp = {
		.path = p->spec->path,
		.argv = p->spec->argv,
		.stdin_fd = to[0],
		.stdout_fd = from[1],
		.nice = p->nice,
		/* a group of its own: the racer's terminal signals are the
		 * racer's to pass on, and a stop reaches whatever it started */
		.own_group = true,
		.die_with_racer = true,
	};
	pid_t pid = spawn_program(&sp, on_exit_status, p);
	if (pid < 0) {
		snprintf(p->start_error, sizeof p->start_error, "cannot start it: %s", strerror(errno));
		goto failed;
	}
	close(to[0]);
	close(from[1]);
	evutil_make_socket_nonblocking(to[1]);
	evutil_make_socket_nonblocking(from[0]);
	p->pid = pid;
	p->from = event_new(p->base, from[0], EV_READ | EV_PERSIST, from_read_cb, p);
	p->from_buf = evbuffer_new();
	p->to = bufferevent_socket_new(p->base, to[1], BEV_OPT_CLOSE_ON_FREE);
	if (!p->from || !p->from_buf || !p->to || event_add(p->from, NULL) < 0)
		die("cannot set up the pipes of a worker");
	bufferevent_setcb(p->to, NULL, NULL, to_event_cb, p);
	bufferevent_enable(p->to, EV_WRITE);
	timer_in(p, opt.hello_timeout_s * 1000);
	return;
failed:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	/* a strike, like a death: the owner's policy decides on a retry */
	p->reaped = p->eof = true;
	enter_stopping(p, OUT_DIED, true);
	check_finished(p);
}

void proc_free(struct proc *p)
{
	if (p->pid > 0 && !p->reaped) {
		/* not waited for yet (an abnormal end, or abandoned): make sure it
		 * is gone; an abandoned one was SIGKILLed already, and init reaps
		 * it */
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		if (p->abandoned)
			children_forget(p->pid);
		else
			children_wait(p->pid, NULL);
	}
	free_pipes(p);
	if (p->timer)
		event_free(p->timer);
	if (p->flush_ev)
		event_free(p->flush_ev);
	free(p->queue);
	frame_free(&p->frame);
	p->timer = p->flush_ev = NULL;
	p->queue = NULL;
}
