/* Worker processes: spawn (fork/exec, no shell), the pipes (bufferevents),
 * hello, requests in flight, cancel with a grace period, kill, respawn with
 * backoff, disable after repeated deaths, shutdown.
 *
 * A process goes STARTING -> IDLE <-> BUSY <-> CANCELLING, and to DEAD from
 * any of them (it exited, closed its output, broke the protocol, or did not
 * acknowledge a cancel in time). A DEAD process is finished once both its
 * output has ended and it was waited for; then it is started again after a
 * backoff, unless its entry was disabled or the pool is shutting down. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "racer.h"

/* Deaths in a row (without a well-formed answer between) before an entry is
 * left out; the first restarts wait 25, 100, 400 ms. */
#define MAX_STRIKES 4
#define BACKOFF_FIRST_MS 25
/* Requests a process may have in flight before it is skipped: a worker
 * that stopped reading would otherwise make its queue grow without end. */
#define INFLIGHT_CAP 256

struct proc *procs;
int nsets;

static bool probe_mode, started, shutting_down;
static void (*shutdown_done)(void);
static struct event *shutdown_timer;
static pid_t racer_pid;

static void proc_spawn(struct proc *p);
static void proc_dead(struct proc *p, enum outcome why, bool strike);

const char *proc_state_name(enum proc_state s)
{
	switch (s) {
	case PROC_STARTING:
		return "starting";
	case PROC_IDLE:
		return "idle";
	case PROC_BUSY:
		return "busy";
	case PROC_CANCELLING:
		return "cancelling";
	case PROC_DEAD:
		return "dead";
	}
	return "?";
}

static struct timeval ms_tv(double ms)
{
	if (ms < 0)
		ms = 0;
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((long)(ms * 1000) % 1000000)};
	return tv;
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

bool proc_may_join(const struct proc *p)
{
	if (p->spec->status != SPEC_OK || shutting_down)
		return false;
	return p->state == PROC_STARTING || p->state == PROC_DEAD;
}

bool pool_started(void)
{
	return started;
}

static void all_procs_of(struct worker_spec *s, void (*fn)(struct proc *))
{
	for (int set = 0; set < nsets; set++)
		fn(proc_of(set, s->index));
}

static void stop_proc(struct proc *p)
{
	if (p->state != PROC_DEAD) {
		if (p->pid > 0 && !p->reaped)
			kill(p->pid, SIGKILL);
		proc_dead(p, OUT_OUT, false);
	}
}

/* The entry is out of the portfolio for good. */
static void spec_out(struct worker_spec *s, enum spec_status status, bool say, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void spec_out(struct worker_spec *s, enum spec_status status, bool say, const char *fmt, ...)
{
	if (s->status != SPEC_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof s->why, fmt, ap);
	va_end(ap);
	s->status = status;
	if (say)
		warn("worker %s: %s; left out from now on", s->label, s->why);
	all_procs_of(s, stop_proc);
	if (!probe_mode)
		race_pool_changed();
}

/* --- the pipes --- */

static struct request *find_request(struct proc *p, uint64_t seq, int *idx)
{
	for (int i = 0; i < p->ninflight; i++)
		if (p->inflight[i].seq == seq) {
			*idx = i;
			return &p->inflight[i];
		}
	return NULL;
}

/* The state after the set of requests in flight changed. */
static void settle_state(struct proc *p)
{
	if (p->state == PROC_DEAD || p->state == PROC_STARTING)
		return;
	uint64_t oldest = 0;
	for (int i = 0; i < p->ninflight; i++)
		if (p->inflight[i].cancel_sent && (!oldest || p->inflight[i].cancel_ns < oldest))
			oldest = p->inflight[i].cancel_ns;
	if (oldest) {
		p->state = PROC_CANCELLING;
		int64_t left = (int64_t)(oldest + (uint64_t)(opt.grace_s * 1e9)) - (int64_t)now_ns();
		timer_in(p, (double)left / 1e6);
	} else {
		evtimer_del(p->timer);
		p->state = p->ninflight ? PROC_BUSY : PROC_IDLE;
	}
}

static void remove_request(struct proc *p, int idx)
{
	memmove(&p->inflight[idx], &p->inflight[idx + 1],
		(size_t)(p->ninflight - idx - 1) * sizeof *p->inflight);
	p->ninflight--;
	if (idx == 0)
		p->head_ns = now_ns();
	settle_state(p);
}

void pool_send_solve(struct proc *p, uint64_t seq, const char *line, size_t len)
{
	if (p->ninflight == p->capinflight) {
		p->capinflight = p->capinflight ? 2 * p->capinflight : 16;
		p->inflight = realloc(p->inflight, (size_t)p->capinflight * sizeof *p->inflight);
		if (!p->inflight)
			die("out of memory");
	}
	uint64_t now = now_ns();
	if (p->ninflight == 0)
		p->head_ns = now;
	p->inflight[p->ninflight++] = (struct request){.seq = seq, .sent_ns = now};
	bufferevent_write(p->to, line, len);
	if (!len || line[len - 1] != '\n')
		bufferevent_write(p->to, "\n", 1);
	if (p->state == PROC_IDLE)
		p->state = PROC_BUSY;
}

bool pool_can_send(const struct proc *p)
{
	return proc_ready(p) && p->ninflight < INFLIGHT_CAP;
}

void pool_send_cancel(struct proc *p, uint64_t seq)
{
	int idx;
	struct request *r;
	if (p->state == PROC_DEAD || !(r = find_request(p, seq, &idx)) || r->cancel_sent)
		return;
	r->cancel_sent = true;
	r->cancel_ns = now_ns();
	char line[48];
	int n = snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)seq);
	bufferevent_write(p->to, line, (size_t)n);
	if (p->state != PROC_CANCELLING)
		settle_state(p);
}

/* A malformed line, a final message for a request not in flight: the
 * worker's stream can no longer be trusted; it loses what it was racing
 * and is started again (PROTOCOL.md 9). */
static void protocol_failure(struct proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void protocol_failure(struct proc *p, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	p->spec->st.malformed++;
	if (p->spec->st.malformed == 1)
		warn("worker %s broke the protocol (%s); it is restarted", p->spec->label, why);
	if (p->pid > 0 && !p->reaped)
		kill(p->pid, SIGKILL);
	proc_dead(p, OUT_MALFORMED, true);
}

static bool parse_sizes(const char *v, int *lo, int *hi)
{
	char *end;
	long a = strtol(v, &end, 10);
	if (end == v || *end != '-')
		return false;
	const char *b = end + 1;
	long c = strtol(b, &end, 10);
	if (end == b || *end || a < GRID_MIN_BOX || c > GRID_MAX_BOX || a > c)
		return false;
	*lo = (int)a;
	*hi = (int)c;
	return true;
}

static void handle_hello(struct proc *p, char *line, size_t len)
{
	struct worker_spec *s = p->spec;
	struct msg m;
	char err[128];
	if (msg_parse(line, len, &m, err, sizeof err) < 0 || m.type != MSG_HELLO) {
		s->st.hello_failures++;
		spec_out(s, SPEC_UNAVAILABLE, s->explicit, "its first line is not hello");
		return;
	}
	const char *proto = msg_field(&m, "proto"), *kind = msg_field(&m, "kind");
	const char *sizes = msg_field(&m, "sizes"), *device = msg_field(&m, "device");
	const char *detail = msg_field(&m, "detail"), *batch = msg_field(&m, "batch");
	int lo, hi;
	if (!proto || atoi(proto) < 1 || atoi(proto) > PROTO_VERSION) {
		spec_out(s, SPEC_UNAVAILABLE, s->explicit, "speaks protocol %s, not %d", proto ? proto : "(none)",
			 PROTO_VERSION);
		return;
	}
	if (!kind || (strcmp(kind, "complete") != 0 && strcmp(kind, "stochastic") != 0) || !sizes ||
	    !parse_sizes(sizes, &lo, &hi)) {
		spec_out(s, SPEC_UNAVAILABLE, s->explicit, "a hello without a valid kind and sizes");
		return;
	}
	s->hello_seen = true;
	s->complete = strcmp(kind, "complete") == 0;
	s->min_box = lo;
	s->max_box = hi;
	snprintf(s->version, sizeof s->version, "%s", m.argv[1]);
	snprintf(s->device, sizeof s->device, "%s", device ? device : "cpu");
	snprintf(s->detail, sizeof s->detail, "%s", detail ? detail : "");
	for (char *c = s->detail; *c; c++)
		if (*c == '_')
			*c = ' '; /* PROTOCOL.md 5: spaces travel as '_' */
	s->batch = batch && atoi(batch) > 0 ? atoi(batch) : 1;
	if (device && strcmp(device, "none") == 0) {
		/* a GPU worker without a GPU: left out, quietly unless asked for */
		spec_out(s, SPEC_UNAVAILABLE, s->explicit, "no device%s%s", s->detail[0] ? ": " : "",
			 s->detail);
		return;
	}
	p->state = PROC_IDLE;
	evtimer_del(p->timer);
	if (!probe_mode)
		race_worker_ready(p);
}

static bool parse_seq(const char *id, uint64_t *seq)
{
	char *end;
	if (!id || !(*id >= '0' && *id <= '9'))
		return false;
	errno = 0;
	unsigned long long v = strtoull(id, &end, 10);
	if (errno || *end)
		return false;
	*seq = v;
	return true;
}

static void handle_line(struct proc *p, char *line, size_t len)
{
	if (p->state == PROC_STARTING) {
		handle_hello(p, line, len);
		return;
	}
	struct msg m;
	char err[128];
	if (msg_parse(line, len, &m, err, sizeof err) < 0) {
		protocol_failure(p, "a malformed line: %s", err);
		return;
	}
	uint64_t seq;
	int idx;
	switch (m.type) {
	case MSG_PROGRESS:
		/* progress about a request no longer in flight is stale: dropped */
		if (parse_seq(m.id, &seq) && find_request(p, seq, &idx))
			race_progress(p, seq, &m);
		return;
	case MSG_ERROR:
		if (strcmp(m.id, "-") == 0) {
			/* the worker could not read one of our lines: no request lost */
			p->spec->st.errors++;
			return;
		}
		/* fall through */
	case MSG_SOLUTION:
	case MSG_UNSAT:
	case MSG_COUNT:
	case MSG_GAVEUP:
	case MSG_CANCELLED:
		if (!parse_seq(m.id, &seq) || !find_request(p, seq, &idx)) {
			protocol_failure(p, "'%s' for %s, which is not in flight", m.word, m.id);
			return;
		}
		remove_request(p, idx);
		/* a well-formed answer: the worker is healthy again */
		p->spec->strikes = 0;
		race_message(p, seq, &m);
		return;
	default:
		return; /* pong, unknown types: ignored (PROTOCOL.md 9) */
	}
}

static void from_read_cb(struct bufferevent *bev, void *arg)
{
	struct proc *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	for (;;) {
		size_t avail = evbuffer_get_length(in);
		if (p->state == PROC_DEAD) {
			/* the last words of a process we gave up on */
			evbuffer_drain(in, avail);
			return;
		}
		if (!avail)
			return;
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			if (avail >= PROTO_LINE_MAX)
				protocol_failure(p, "a line longer than %d bytes", PROTO_LINE_MAX);
			return;
		}
		size_t len = (size_t)eol.pos;
		if (len + 1 > PROTO_LINE_MAX) {
			protocol_failure(p, "a line longer than %d bytes", PROTO_LINE_MAX);
			continue;
		}
		char *line = (char *)evbuffer_pullup(in, (ev_ssize_t)len + 1);
		handle_line(p, line, len);
		evbuffer_drain(in, len + 1);
	}
}

static void maybe_finished(struct proc *p);

static void from_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	struct proc *p = arg;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	p->eof = true;
	bufferevent_disable(p->from, EV_READ);
	if (p->state != PROC_DEAD) {
		/* a worker that closed its output is of no more use, even alive */
		if (p->pid > 0 && !p->reaped)
			kill(p->pid, SIGKILL);
		proc_dead(p, OUT_DIED, true);
	}
	maybe_finished(p);
}

static void to_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	struct proc *p = arg;
	/* EPIPE: the worker is gone; its output's end or SIGCHLD tells the rest */
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
}

/* --- life and death --- */

static double backoff_ms(int strikes)
{
	double ms = BACKOFF_FIRST_MS;
	for (int i = 1; i < strikes; i++)
		ms *= 4;
	return ms;
}

static void proc_dead(struct proc *p, enum outcome why, bool strike)
{
	if (p->state == PROC_DEAD)
		return;
	enum proc_state was = p->state;
	struct worker_spec *s = p->spec;
	p->state = PROC_DEAD;
	evtimer_del(p->timer);
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
	if (shutting_down || s->status != SPEC_OK)
		strike = false;
	if (strike) {
		s->strikes++;
		if (why == OUT_KILLED)
			s->st.killed++;
		else if (why == OUT_DIED)
			s->st.died++;
		if (was == PROC_STARTING)
			s->st.hello_failures++;
	}
	/* what it had in flight is lost; the races go on without it */
	int n = p->ninflight;
	p->ninflight = 0;
	if (n && !probe_mode) {
		struct request *lost = xmalloc((size_t)n * sizeof *lost);
		memcpy(lost, p->inflight, (size_t)n * sizeof *lost);
		for (int i = 0; i < n; i++)
			race_lost(p, lost[i].seq, why);
		free(lost);
	}
	if (strike && s->strikes >= MAX_STRIKES) {
		if (probe_mode)
			spec_out(s, SPEC_UNAVAILABLE, false, "%s", was == PROC_STARTING ? "no hello" : "died");
		else
			spec_out(s, SPEC_DISABLED, true, "%s %d times in a row",
				 was == PROC_STARTING ? "failed to start" : "died or hung", s->strikes);
	} else if (probe_mode && s->status == SPEC_OK && !s->hello_seen) {
		spec_out(s, SPEC_UNAVAILABLE, false, "%s",
			 was == PROC_STARTING && why == OUT_KILLED ? "no hello in time (--hello-timeout)" : "exited before hello");
	}
	maybe_finished(p);
}

static void check_shutdown_done(void)
{
	if (!shutting_down || !shutdown_done)
		return;
	for (int i = 0; i < nsets * nspecs; i++)
		if (procs[i].pid > 0 && !procs[i].finished)
			return;
	void (*done)(void) = shutdown_done;
	shutdown_done = NULL;
	if (shutdown_timer)
		evtimer_del(shutdown_timer);
	done();
}

static void maybe_finished(struct proc *p)
{
	if (p->state != PROC_DEAD || p->finished || !p->reaped)
		return;
	if (!p->eof) {
		/* exited, but something still holds its output open: wait a little */
		timer_in(p, opt.grace_s * 1000 + 50);
		return;
	}
	p->finished = true;
	if (p->from) {
		bufferevent_free(p->from);
		p->from = NULL;
	}
	evtimer_del(p->timer);
	if (shutting_down) {
		check_shutdown_done();
		return;
	}
	if (p->spec->status == SPEC_OK && !probe_mode)
		timer_in(p, backoff_ms(p->spec->strikes));
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct proc *p = arg;
	switch (p->state) {
	case PROC_STARTING:
		/* no hello in time */
		if (p->pid > 0 && !p->reaped)
			kill(p->pid, SIGKILL);
		proc_dead(p, OUT_KILLED, true);
		break;
	case PROC_CANCELLING: {
		uint64_t now = now_ns(), grace = (uint64_t)(opt.grace_s * 1e9);
		for (int i = 0; i < p->ninflight; i++)
			if (p->inflight[i].cancel_sent && p->inflight[i].cancel_ns + grace <= now) {
				if (p->pid > 0 && !p->reaped)
					kill(p->pid, SIGKILL);
				proc_dead(p, OUT_KILLED, true);
				return;
			}
		settle_state(p);
		break;
	}
	case PROC_DEAD:
		if (!p->finished && p->reaped) {
			p->eof = true;
			maybe_finished(p);
		} else if (p->finished && !shutting_down && p->spec->status == SPEC_OK) {
			p->spec->st.respawns++;
			proc_spawn(p);
		}
		break;
	default:
		break;
	}
}

static void child_exec(struct proc *p, int in_fd, int out_fd) __attribute__((noreturn));
static void child_exec(struct proc *p, int in_fd, int out_fd)
{
	/* die with the racer, even if it is SIGKILLed */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != racer_pid)
		_exit(127);
	if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	/* what the racer set up is not the worker's: signals back to default */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(p->spec->path, p->spec->argv);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", PROGRAM, p->spec->path, strerror(errno));
	_exit(127);
}

static void proc_spawn(struct proc *p)
{
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	if (pipe2(from, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(p, to[0], from[1]);
	close(to[0]);
	close(from[1]);
	evutil_make_socket_nonblocking(to[1]);
	evutil_make_socket_nonblocking(from[0]);
	p->pid = pid;
	p->eof = p->reaped = p->finished = false;
	p->state = PROC_STARTING;
	p->ninflight = 0;
	p->spawned_ns = now_ns();
	p->progress[0] = '\0';
	p->from = bufferevent_socket_new(base, from[0], BEV_OPT_CLOSE_ON_FREE);
	p->to = bufferevent_socket_new(base, to[1], BEV_OPT_CLOSE_ON_FREE);
	if (!p->from || !p->to)
		die("cannot set up the pipes of a worker");
	bufferevent_setcb(p->from, from_read_cb, NULL, from_event_cb, p);
	bufferevent_setcb(p->to, NULL, NULL, to_event_cb, p);
	bufferevent_enable(p->from, EV_READ);
	bufferevent_enable(p->to, EV_WRITE);
	timer_in(p, opt.hello_timeout_s * 1000);
}

void pool_init(int sets, bool probe)
{
	nsets = sets;
	probe_mode = probe;
	racer_pid = getpid();
	procs = xcalloc((size_t)(nsets * nspecs), sizeof *procs);
	for (int set = 0; set < nsets; set++)
		for (int i = 0; i < nspecs; i++) {
			struct proc *p = proc_of(set, i);
			p->spec = &specs[i];
			p->set = set;
			p->state = PROC_DEAD;
			p->finished = true;
			p->timer = evtimer_new(base, timer_cb, p);
			if (!p->timer)
				die("cannot create a timer");
		}
}

void pool_start(void)
{
	if (started)
		return;
	started = true;
	for (int i = 0; i < nsets * nspecs; i++)
		if (procs[i].spec->status == SPEC_OK)
			proc_spawn(&procs[i]);
}

bool pool_all_settled(void)
{
	for (int i = 0; i < nspecs; i++)
		if (specs[i].status == SPEC_OK && !specs[i].hello_seen)
			return false;
	return true;
}

void pool_reap(void)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (int i = 0; i < nsets * nspecs; i++) {
			struct proc *p = &procs[i];
			if (p->pid != pid || p->reaped)
				continue;
			p->reaped = true;
			p->wstatus = st;
			if (p->state != PROC_DEAD)
				proc_dead(p, OUT_DIED, true);
			maybe_finished(p);
			break;
		}
	}
}

static void shutdown_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	/* the grace is over: whoever is left is killed */
	for (int i = 0; i < nsets * nspecs; i++) {
		struct proc *p = &procs[i];
		if (p->pid > 0 && !p->reaped)
			kill(p->pid, SIGKILL);
		if (p->state != PROC_DEAD)
			proc_dead(p, OUT_KILLED, false);
		if (p->reaped && !p->eof) {
			p->eof = true;
			maybe_finished(p);
		}
	}
}

static void quit_drained_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	struct proc *p = arg;
	/* quit is out: end of input says the same to a worker that missed it */
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
}

void pool_shutdown(void (*done)(void))
{
	shutting_down = true;
	shutdown_done = done;
	for (int i = 0; i < nsets * nspecs; i++) {
		struct proc *p = &procs[i];
		if (p->state == PROC_DEAD) {
			if (p->finished)
				evtimer_del(p->timer); /* no respawn */
			continue;
		}
		if (p->state == PROC_STARTING) {
			/* nothing to lose: no need to wait for a slow start */
			kill(p->pid, SIGKILL);
			proc_dead(p, OUT_KILLED, false);
			continue;
		}
		if (p->to) {
			bufferevent_write(p->to, "quit\n", 5);
			bufferevent_setcb(p->to, NULL, quit_drained_cb, to_event_cb, p);
		}
	}
	shutdown_timer = evtimer_new(base, shutdown_timer_cb, NULL);
	struct timeval tv = ms_tv(opt.grace_s * 1000);
	evtimer_add(shutdown_timer, &tv);
	check_shutdown_done();
}

void pool_free(void)
{
	for (int i = 0; i < nsets * nspecs; i++) {
		struct proc *p = &procs[i];
		if (p->pid > 0 && !p->reaped) {
			/* not waited for yet (an abnormal end): make sure it is gone */
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
		}
		if (p->from)
			bufferevent_free(p->from);
		if (p->to)
			bufferevent_free(p->to);
		event_free(p->timer);
		free(p->inflight);
	}
	free(procs);
	procs = NULL;
	if (shutdown_timer)
		event_free(shutdown_timer);
	shutdown_timer = NULL;
}
