/* One worker process, as an explicit state machine (racer.h lists the
 * states; tmux's job.c is the model): spawn (fork/exec, no shell, signals
 * blocked around the fork, the child in a process group of its own), the
 * pipes (bufferevents), hello, the requests in flight, cancel with a grace
 * period, and the end: SIGTERM to the group, SIGKILL after the grace. What
 * happens next (respawn, strikes, leaving an entry out) is pool.c's
 * policy; what the answers mean is race.c's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "racer.h"

/* Requests a process may have in flight before it is passed over: a worker
 * that stopped reading would otherwise make its queue grow without end. A
 * batch worker (hello's batch=) may have two batches in flight. */
#define INFLIGHT_CAP 1024
/* The niceness of the processes of entries that presolve no size. */
#define NICE_OTHERS 10
/* A worker's answers read at once, at most (a pipe holds 64 kB). */
#define FROM_CHUNK 65536

const char *proc_state_name(enum proc_state s)
{
	static const char *const names[] = {
		[PROC_NEW] = "not started", [PROC_STARTING] = "starting", [PROC_IDLE] = "idle",
		[PROC_BUSY] = "busy",       [PROC_CANCELLING] = "cancelling", [PROC_WCLOSED] = "input closed",
		[PROC_STOPPING] = "stopping", [PROC_DEAD] = "dead",
	};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static void timer_in(struct proc *p, double ms)
{
	struct timeval tv = ms_tv(ms);
	evtimer_add(p->timer, &tv);
}

void proc_after(struct proc *p, double ms)
{
	if (p->timer)
		timer_in(p, ms);
}

bool proc_ready(const struct proc *p)
{
	return p->state == PROC_IDLE || p->state == PROC_BUSY || p->state == PROC_CANCELLING;
}

bool proc_can_send(const struct proc *p)
{
	int cap = p->spec->batch > 1 ? 2 * p->spec->batch : INFLIGHT_CAP;
	return proc_ready(p) && p->ninflight < cap;
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

/* --- requests --- */

static int find_request(struct proc *p, uint64_t seq)
{
	/* answers come in order, the head first; a take-back cancels the
	 * requests behind the head in order, each found just after the last
	 * (from the head, each of 255 cancels was a scan) */
	int n = p->ninflight;
	if (n && p->inflight[0].seq == seq)
		return 0;
	int start = p->found < n ? p->found : 0;
	for (int k = 0, i = start; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (p->inflight[i].seq == seq)
			return p->found = i;
	return -1;
}

/* When the oldest cancel not acknowledged yet runs out of grace (0: none
 * is pending). */
static uint64_t cancel_deadline_ns(const struct proc *p)
{
	uint64_t oldest = 0;
	for (int i = 0; i < p->ninflight; i++)
		if (p->inflight[i].cancel_sent && (!oldest || p->inflight[i].cancel_ns < oldest))
			oldest = p->inflight[i].cancel_ns;
	return oldest ? oldest + (uint64_t)(opt.grace_s * 1e9) : 0;
}

/* The timer for the oldest cancel not acknowledged yet. */
static void arm_cancel_timer(struct proc *p)
{
	timer_in(p, (double)((int64_t)cancel_deadline_ns(p) - (int64_t)now_ns()) / 1e6);
}

/* The state after the set of requests in flight changed. */
static void settle_state(struct proc *p)
{
	if (!proc_ready(p))
		return;
	if (p->ncancels) {
		/* the timer is set for the oldest cancel when the first is sent,
		 * and again when it fires with none overdue (timer_cb); the
		 * acknowledgements in between leave it (a scan of the requests
		 * at each was quadratic in the cancels of a take-back) */
		if (p->state != PROC_CANCELLING) {
			p->state = PROC_CANCELLING;
			arm_cancel_timer(p);
		}
		return;
	}
	if (p->state == PROC_CANCELLING)
		evtimer_del(p->timer);
	p->state = p->ninflight ? PROC_BUSY : PROC_IDLE;
}

/* When the answers being handled were read: the next request became the
 * head then (one clock read for a run of answers; the clock was 3% of the
 * racer's time at one read per answer). */
static uint64_t read_ns;

static void forget_requests(struct proc *p)
{
	p->ninflight = p->inflight_head = p->ncancels = 0;
	p->inflight = p->inflight_buf;
}

static void remove_request(struct proc *p, int idx)
{
	if (p->inflight[idx].cancel_sent)
		p->ncancels--;
	if (idx == 0) {
		p->inflight++;
		p->inflight_head++;
	} else {
		memmove(&p->inflight[idx], &p->inflight[idx + 1],
			(size_t)(p->ninflight - idx - 1) * sizeof *p->inflight);
	}
	if (!--p->ninflight)
		forget_requests(p);
	settle_state(p);
	if (idx == 0 && p->ninflight) {
		p->head_ns = read_ns;
		if (!pool_probing())
			race_head_started(p);
	}
}

void proc_send_solve(struct proc *p, uint64_t seq, const char *line, size_t len)
{
	if (!p->to || !proc_ready(p))
		return;
	if (p->inflight_head + p->ninflight == p->capinflight) {
		if (p->inflight_head > p->capinflight / 2) {
			memmove(p->inflight_buf, p->inflight, (size_t)p->ninflight * sizeof *p->inflight);
		} else {
			p->capinflight = p->capinflight ? 2 * p->capinflight : 16;
			struct request *b = realloc(p->inflight_buf, (size_t)p->capinflight * sizeof *b);
			if (!b)
				die("out of memory");
			memmove(b, b + p->inflight_head, (size_t)p->ninflight * sizeof *b);
			p->inflight_buf = b;
		}
		p->inflight = p->inflight_buf;
		p->inflight_head = 0;
	}
	p->inflight[p->ninflight++] = (struct request){.seq = seq};
	bufferevent_write(p->to, line, len);
	if (!len || line[len - 1] != '\n')
		bufferevent_write(p->to, "\n", 1);
	if (p->state == PROC_IDLE)
		p->state = PROC_BUSY;
	if (p->ninflight == 1) {
		p->head_ns = now_ns();
		if (!pool_probing())
			race_head_started(p);
	}
}

void proc_send_cancel(struct proc *p, uint64_t seq)
{
	int idx;
	if (!proc_ready(p) || !p->to || (idx = find_request(p, seq)) < 0 || p->inflight[idx].cancel_sent)
		return;
	struct request *r = &p->inflight[idx];
	r->cancel_sent = true;
	p->ncancels++;
	r->cancel_ns = now_ns();
	char id[24], line[48];
	snprintf(id, sizeof id, "%llu", (unsigned long long)seq);
	int n = msg_write_cancel(line, sizeof line, id);
	if (n > 0)
		bufferevent_write(p->to, line, (size_t)n);
	if (p->state != PROC_CANCELLING)
		settle_state(p);
}

/* --- the end --- */

static void check_finished(struct proc *p);

/* The way into STOPPING, from any live state. */
static void enter_stopping(struct proc *p, enum outcome why, bool strike)
{
	p->was_starting = p->state == PROC_STARTING;
	p->state = PROC_STOPPING;
	p->why = why;
	p->strike = strike;
	evtimer_del(p->timer);
	if (p->stage_timer)
		evtimer_del(p->stage_timer);
}

void proc_stop(struct proc *p, enum outcome why, bool strike)
{
	if (p->state == PROC_STOPPING || proc_finished(p))
		return;
	enter_stopping(p, why, strike);
	if (p->to) {
		bufferevent_free(p->to);
		p->to = NULL;
	}
	signal_group(p, SIGTERM);
	/* what it had in flight is lost; the races go on without it */
	int n = p->ninflight;
	struct request *was = p->inflight;
	forget_requests(p);
	if (n && !pool_probing()) {
		struct request *lost = xmalloc((size_t)n * sizeof *lost);
		memcpy(lost, was, (size_t)n * sizeof *lost);
		for (int i = 0; i < n; i++)
			race_lost(p, lost[i].seq, why);
		free(lost);
	}
	timer_in(p, opt.grace_s * 1000);
	check_finished(p);
}

/* DEAD once it was waited for and its output ended. */
static void check_finished(struct proc *p)
{
	if (p->state != PROC_STOPPING || !p->reaped || !p->eof)
		return;
	p->state = PROC_DEAD;
	evtimer_del(p->timer);
	free_pipes(p);
	pool_proc_finished(p);
}

void proc_reaped(struct proc *p, int wstatus)
{
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
	/* quit is out: end of input says the same to a worker that missed it */
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
		/* nothing to lose: no need to wait for a slow start, nor for
		 * the end of one killed in it (a GPU worker killed while its
		 * CUDA context is set up takes tens of ms to go) */
		proc_stop(p, OUT_KILLED, false);
		signal_group(p, SIGKILL);
		p->abandoned = true;
		return;
	}
	char line[16];
	int n = msg_write_quit(line, sizeof line);
	if (n > 0)
		bufferevent_write(p->to, line, (size_t)n);
	bufferevent_setcb(p->to, NULL, quit_drained_cb, to_event_cb, p);
	/* its requests are the race's no more (race_stop came first) */
	forget_requests(p);
	enter_stopping(p, OUT_KILLED, false);
	timer_in(p, opt.grace_s * 1000);
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
	proc_stop(p, OUT_MALFORMED, true);
	signal_group(p, SIGKILL);
}

/* --- hello --- */

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
		pool_spec_out(s, SPEC_UNAVAILABLE, s->explicit, "its first line is not hello");
		return;
	}
	const char *proto = msg_field(&m, "proto"), *kind = msg_field(&m, "kind");
	const char *sizes = msg_field(&m, "sizes"), *device = msg_field(&m, "device");
	const char *detail = msg_field(&m, "detail"), *batch = msg_field(&m, "batch");
	int lo, hi;
	if (!proto || atoi(proto) < 1 || atoi(proto) > PROTO_VERSION) {
		pool_spec_out(s, SPEC_UNAVAILABLE, s->explicit, "speaks protocol %s, not %d",
			      proto ? proto : "(none)", PROTO_VERSION);
		return;
	}
	if (!kind || (strcmp(kind, "complete") != 0 && strcmp(kind, "stochastic") != 0) || !sizes ||
	    !parse_sizes(sizes, &lo, &hi)) {
		pool_spec_out(s, SPEC_UNAVAILABLE, s->explicit, "a hello without a valid kind and sizes");
		return;
	}
	s->hello_seen = true;
	s->complete = strcmp(kind, "complete") == 0;
	s->min_box = lo;
	s->max_box = hi;
	snprintf(s->version, sizeof s->version, "%s", m.argv[1]);
	snprintf(s->device, sizeof s->device, "%s", device ? device : "cpu");
	if (snprintf(s->detail, sizeof s->detail, "%s", detail ? detail : "") >= (int)sizeof s->detail) {
		/* too long: cut after a word, not in one */
		char *cut = strrchr(s->detail, '_');
		snprintf(cut ? cut : s->detail + sizeof s->detail - 4, 4, "...");
	}
	for (char *c = s->detail; *c; c++)
		if (*c == '_')
			*c = ' '; /* PROTOCOL.md 5: spaces travel as '_' */
	s->batch = batch && atoi(batch) > 0 ? atoi(batch) : 1;
	if (device && strcmp(device, "none") == 0) {
		/* a GPU worker without a GPU: left out, quietly unless asked for */
		pool_spec_out(s, SPEC_UNAVAILABLE, s->explicit, "no device%s%s", s->detail[0] ? ": " : "",
			      s->detail);
		return;
	}
	p->state = PROC_IDLE;
	evtimer_del(p->timer);
	pool_proc_ready(p);
}

/* --- what it says --- */

static bool parse_seq(const char *id, uint64_t *seq)
{
	if (!id || !(*id >= '0' && *id <= '9'))
		return false;
	uint64_t v = 0;
	for (; *id >= '0' && *id <= '9'; id++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*id - '0');
	}
	if (*id)
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
		if (parse_seq(m.id, &seq) && find_request(p, seq) >= 0)
			race_progress(p, seq, &m);
		return;
	case MSG_ERROR:
		if (strcmp(m.id, "-") == 0) {
			/* the worker could not read one of our lines: no request lost */
			p->spec->st.refused++;
			return;
		}
		/* fall through */
	case MSG_SOLUTION:
	case MSG_UNSAT:
	case MSG_COUNT:
	case MSG_GAVEUP:
	case MSG_CANCELLED:
		if (!parse_seq(m.id, &seq) || (idx = find_request(p, seq)) < 0) {
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

static void from_ended(struct proc *p);

static void from_read_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	struct proc *p = arg;
	struct evbuffer *in = p->from_buf;
	ssize_t n = read_into(in, fd, FROM_CHUNK);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		from_ended(p);
		return;
	}
	read_ns = now_ns();
	for (;;) {
		size_t avail = evbuffer_get_length(in);
		if (p->state == PROC_STOPPING || p->state == PROC_DEAD) {
			/* the last words of a process we gave up on */
			evbuffer_drain(in, avail);
			return;
		}
		if (!avail)
			return;
		/* the whole lines of the first chunk in place, drained at once
		 * (a search, a pull-up and a drain a line were 5% of the racer's
		 * time on easy puzzles); a line across chunks is pulled up into
		 * the first one, and read from there */
		struct evbuffer_iovec chunk;
		if (evbuffer_peek(in, -1, NULL, &chunk, 1) < 1)
			return;
		char *start = chunk.iov_base, *nl;
		size_t used = 0;
		while ((nl = memchr(start + used, '\n', chunk.iov_len - used)) != NULL &&
		       (size_t)(nl - start) - used + 1 <= PROTO_LINE_MAX) {
			size_t len = (size_t)(nl - start) - used;
			handle_line(p, start + used, len);
			/* handle_line may have ended the process and freed its pipes */
			if (!p->from)
				return;
			used += len + 1;
			if (p->state == PROC_STOPPING || p->state == PROC_DEAD)
				break;
		}
		if (used) {
			evbuffer_drain(in, used);
			continue;
		}
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0 && avail < PROTO_LINE_MAX)
			return; /* the rest of the line is still to come */
		if (eol.pos < 0 || (size_t)eol.pos + 1 > PROTO_LINE_MAX) {
			protocol_failure(p, "a line longer than %d bytes", PROTO_LINE_MAX);
			continue;
		}
		if (!evbuffer_pullup(in, (ev_ssize_t)eol.pos + 1))
			die("out of memory");
	}
}

/* Its output's end of file, or a read error: a line cut short is dropped. */
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
	if (p->state == PROC_STOPPING || proc_finished(p))
		return;
	p->state = PROC_WCLOSED;
	proc_stop(p, OUT_DIED, true);
}

/* --- timers --- */

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
		uint64_t deadline = cancel_deadline_ns(p);
		if (!deadline) {
			settle_state(p);
		} else if (deadline <= now_ns()) {
			proc_stop(p, OUT_KILLED, true);
			signal_group(p, SIGKILL);
		} else {
			timer_in(p, (double)(deadline - now_ns()) / 1e6);
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
	case PROC_DEAD:
	case PROC_NEW:
		pool_proc_respawn(p); /* the policy's timer */
		break;
	default:
		break;
	}
}

/* --- birth --- */

static void child_exec(struct proc *p, int in_fd, int out_fd, pid_t racer) __attribute__((noreturn));
static void child_exec(struct proc *p, int in_fd, int out_fd, pid_t racer)
{
	/* a group of its own: the racer's terminal signals are the racer's to
	 * pass on, and a stop reaches whatever the worker started */
	setpgid(0, 0);
	/* the entries that are nobody's presolver join races already under
	 * way: they take the cores the presolvers leave, not the presolvers'
	 * share of them */
	if (!p->spec->presolver)
		setpriority(PRIO_PROCESS, 0, NICE_OTHERS);
	/* die with the racer, even if it is SIGKILLed */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != racer)
		_exit(127);
	if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	/* what the racer set up is not the worker's: signals back to default,
	 * then unblocked (they were blocked around the fork) */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(p->spec->path, p->spec->argv);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", PROGRAM, p->spec->path, strerror(errno));
	_exit(127);
}

void proc_spawn(struct proc *p)
{
	if (!p->timer) {
		p->timer = evtimer_new(base, timer_cb, p);
		if (!p->timer)
			die("cannot create a timer");
	}
	p->eof = p->reaped = p->abandoned = false;
	p->held = p->filling = false;
	forget_requests(p);
	p->progress[0] = '\0';
	p->spawned_ns = now_ns();
	p->pid = 0;
	p->state = PROC_STARTING;
	int to[2] = {-1, -1}, from[2] = {-1, -1};
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		warn("worker %s: cannot make its pipes: %s", p->spec->label, strerror(errno));
		goto failed;
	}
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t racer = getpid();
	/* vfork: the racer's page tables are not copied, nor its pages faulted
	 * back in, for a child that only execs (one puzzle's cold start: 2.86
	 * ms with fork, 2.62 with vfork). child_exec makes system calls only
	 * (its signal handlers are its own), and with every signal blocked no
	 * handler of ours runs in it. */
	pid_t pid = vfork();
	if (pid == 0)
		child_exec(p, to[0], from[1], racer);
	int fork_errno = errno;
	/* the child's setpgid came first: the racer runs again only once it
	 * has exec'd or exited */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		warn("worker %s: cannot start it: %s", p->spec->label, strerror(fork_errno));
		goto failed;
	}
	close(to[0]);
	close(from[1]);
	evutil_make_socket_nonblocking(to[1]);
	evutil_make_socket_nonblocking(from[0]);
	p->pid = pid;
	p->from = event_new(base, from[0], EV_READ | EV_PERSIST, from_read_cb, p);
	p->from_buf = evbuffer_new();
	p->to = bufferevent_socket_new(base, to[1], BEV_OPT_CLOSE_ON_FREE);
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
	/* a strike, like a death: the policy decides on a retry */
	p->reaped = p->eof = true;
	p->was_starting = true;
	p->why = OUT_DIED;
	p->strike = true;
	p->state = PROC_STOPPING;
	check_finished(p);
}

void proc_free(struct proc *p)
{
	if (p->pid > 0 && !p->reaped) {
		/* not waited for yet (an abnormal end, or abandoned): make sure
		 * it is gone; an abandoned one was SIGKILLed already, and init
		 * reaps it */
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		if (!p->abandoned)
			waitpid(p->pid, NULL, 0);
	}
	free_pipes(p);
	if (p->timer)
		event_free(p->timer);
	if (p->stage_timer)
		event_free(p->stage_timer);
	free(p->inflight_buf);
}
