/* The processes of each entry (pool.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "racer/options.h"
#include "racer/pool.h"
#include "racer/proc.h"
#include "racer/stats.h"
#include "racer/util.h"

/* Deaths in a row (without a well-formed answer between) before an entry is
 * left out; the first restarts wait 25, 100, 400 ms. */
#define MAX_STRIKES 4
#define BACKOFF_FIRST_MS 25
/* A presolver's processes double only once those it has were kept busy
 * for this many of its starts' time (pool_may_grow). */
#define GROW_PAYBACK 2
/* The niceness of the processes of entries that presolve no size: they
 * join races under way, on the cores the presolvers leave. */
#define NICE_OTHERS 10

/* An entry's processes: procs[first .. first + n) */
struct entry {
	int first, n;
	bool started;          /* its first process was started */
	int nstarted;          /* one, then more as needed */
	int grow_allowed;      /* processes allowed now (pool_may_grow) */
	uint64_t grow_after_ns, start_cost_ns;
	int strikes;           /* deaths since the last well-formed answer */
	bool warned_start;     /* a failure to start it was said */
};

static struct proc *procs;
static struct event **respawn_ev; /* per process: the policy's timer */
static int nprocs;
static struct entry *entries;
static struct event_base *ev_base;
static const struct pool_events *up;
static void *up_owner;
static bool probe, started_any, shutting_down;
static void (*shutdown_done)(void);

static struct entry *entry_of(const struct proc *p)
{
	return &entries[p->spec->index];
}

static void changed(void)
{
	if (up)
		up->changed(up_owner);
}

/* --- what the processes say --- */

static bool on_hello(void *owner, struct proc *p, const struct msg_hello *h, const char *why)
{
	(void)owner;
	struct worker_spec *s = &specs[p->spec->index];
	if (!h) {
		pool_spec_out(s->index, SPEC_UNAVAILABLE, s->explicit, "%s", why);
		return false;
	}
	s->hello_seen = true;
	s->complete = h->complete;
	s->min_box = h->min_box;
	s->max_box = h->max_box;
	s->batch = h->batch > 0 ? h->batch : 1;
	snprintf(s->version, sizeof s->version, "%s", h->version ? h->version : "");
	snprintf(s->device, sizeof s->device, "%s", h->device ? h->device : "cpu");
	msg_hello_detail(h->detail, s->detail, sizeof s->detail);
	if (strcmp(s->device, "none") == 0) {
		/* a GPU worker without a GPU: left out, quietly unless asked for */
		pool_spec_out(s->index, SPEC_UNAVAILABLE, s->explicit, "no device%s%s", s->detail[0] ? ": " : "",
			      s->detail);
		return false;
	}
	struct entry *e = entry_of(p);
	if (!e->start_cost_ns) {
		uint64_t now = now_ns();
		e->start_cost_ns = now > p->spawned_ns ? now - p->spawned_ns : 1;
		e->grow_after_ns = now + GROW_PAYBACK * e->start_cost_ns;
	}
	changed();
	return true;
}

static void on_answer(void *owner, struct proc *p, struct attempt *a, const struct msg_reply *r)
{
	(void)owner;
	entry_of(p)->strikes = 0; /* a well-formed answer: healthy again */
	if (up)
		up->answer(up_owner, p, a, r);
}

static void on_progress(void *owner, struct proc *p, struct attempt *a, const struct msg *m)
{
	(void)owner;
	if (up)
		up->progress(up_owner, p, a, m);
}

static void on_lost(void *owner, struct proc *p, struct attempt *a, enum outcome why)
{
	(void)owner;
	if (up)
		up->lost(up_owner, p, a, why);
}

static double backoff_ms(int strikes)
{
	double ms = BACKOFF_FIRST_MS;
	for (int i = 1; i < strikes; i++)
		ms *= 4;
	return ms;
}

static void check_shutdown_done(void)
{
	if (!shutting_down || !shutdown_done)
		return;
	for (int i = 0; i < nprocs; i++)
		if (!proc_finished(&procs[i]) && !procs[i].abandoned)
			return;
	void (*done)(void) = shutdown_done;
	shutdown_done = NULL;
	done();
}

static void on_ended(void *owner, struct proc *p)
{
	(void)owner;
	struct worker_spec *s = &specs[p->spec->index];
	struct entry *e = entry_of(p);
	if (shutting_down) {
		check_shutdown_done();
		return;
	}
	if (s->status != SPEC_OK)
		return;
	if (p->strike) {
		e->strikes++;
		if (p->why == OUT_KILLED)
			stats_spec_add(s->index, SC_KILLED, 1);
		else if (p->why == OUT_DIED)
			stats_spec_add(s->index, SC_DIED, 1);
		if (p->was_starting)
			stats_spec_add(s->index, SC_HELLO_FAILURES, 1);
	}
	if (p->start_error[0] && !e->warned_start) {
		/* a system's refusal (no fd, no process): said once an entry */
		e->warned_start = true;
		warn("worker %s: %s", s->label, p->start_error);
	}
	if (e->strikes >= MAX_STRIKES) {
		if (probe)
			pool_spec_out(s->index, SPEC_UNAVAILABLE, false, "%s", p->was_starting ? "no hello" : "died");
		else
			pool_spec_out(s->index, SPEC_DISABLED, true, "%s %d times in a row%s%s",
				      p->was_starting ? "failed to start" : "died or hung", e->strikes,
				      p->start_error[0] ? ": " : "", p->start_error);
		return;
	}
	if (probe) {
		if (!s->hello_seen)
			pool_spec_out(s->index, SPEC_UNAVAILABLE, false, "%s",
				      p->was_starting && p->why == OUT_KILLED ? "no hello in time (--hello-timeout)"
									   : "exited before hello");
		return;
	}
	struct timeval tv = ms_tv(backoff_ms(e->strikes));
	evtimer_add(respawn_ev[p->index], &tv);
	changed();
}

static void respawn_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	struct proc *p = arg;
	if (shutting_down || probe || p->spec->status != SPEC_OK || p->state != PROC_DEAD)
		return;
	stats_spec_add(p->spec->index, SC_RESPAWNS, 1);
	proc_spawn(p);
}

static const struct proc_events proc_events = {
	.hello = on_hello,
	.answer = on_answer,
	.progress = on_progress,
	.lost = on_lost,
	.ended = on_ended,
};

/* --- the pool --- */

/* How many processes an entry gets: -j for a presolver (the processors by
 * default: the easy puzzles are theirs), a quarter as many for the others
 * (they race the few hard ones), one GPU worker (one CUDA context on the
 * device, fed batches). --schedule=all shares the processors among all
 * entries, as the first design's sets did. */
static int copies_of(const struct worker_spec *s, int jobs, int usable)
{
	if (probe || s->gpu)
		return 1;
	int n;
	if (opt.schedule_all)
		n = opt.jobs ? jobs : jobs / (usable ? usable : 1);
	else if (s->presolver || s->confirmer)
		n = jobs;
	else
		n = jobs / 4;
	return n < 1 ? 1 : n;
}

void pool_init(struct event_base *base, int jobs, const struct pool_events *ev, void *owner)
{
	ev_base = base;
	up = ev;
	up_owner = owner;
	probe = !ev;
	int usable = 0;
	for (int i = 0; i < nspecs; i++)
		usable += specs[i].status == SPEC_OK;
	entries = xcalloc((size_t)nspecs, sizeof *entries);
	nprocs = 0;
	for (int i = 0; i < nspecs; i++) {
		entries[i].first = nprocs;
		entries[i].n = copies_of(&specs[i], jobs, usable);
		entries[i].grow_allowed = 1;
		nprocs += entries[i].n;
	}
	procs = xcalloc((size_t)nprocs, sizeof *procs);
	respawn_ev = xcalloc((size_t)nprocs, sizeof *respawn_ev);
	for (int i = 0; i < nspecs; i++)
		for (int k = 0; k < entries[i].n; k++) {
			int at = entries[i].first + k;
			proc_init(&procs[at], at, &specs[i], specs[i].presolver || probe ? 0 : NICE_OTHERS, &proc_events,
				  NULL, base);
			if (!(respawn_ev[at] = evtimer_new(base, respawn_cb, &procs[at])))
				die("cannot create a timer");
		}
}

static struct proc *copy_of(int spec, int k)
{
	return &procs[entries[spec].first + k];
}

void pool_start_spec(int spec)
{
	struct entry *e = &entries[spec];
	if (e->started || specs[spec].status != SPEC_OK || shutting_down)
		return;
	e->started = started_any = true;
	/* --list-workers starts them all; a race starts one, and more as they
	 * are needed (pool_grow) */
	int n = probe ? e->n : 1;
	for (int k = 0; k < n && specs[spec].status == SPEC_OK; k++)
		proc_spawn(copy_of(spec, e->nstarted++));
}

void pool_start_all(void)
{
	for (int i = 0; i < nspecs; i++)
		pool_start_spec(i);
}

bool pool_spec_starting(int spec)
{
	for (int k = 0; k < entries[spec].nstarted; k++)
		if (copy_of(spec, k)->state == PROC_STARTING)
			return true;
	return false;
}

bool pool_grow(int spec)
{
	struct entry *e = &entries[spec];
	if (!e->started) {
		pool_start_spec(spec);
		return e->started;
	}
	if (e->nstarted >= e->n || specs[spec].status != SPEC_OK || shutting_down)
		return false;
	proc_spawn(copy_of(spec, e->nstarted++));
	return true;
}

/* A process costs its start (exec, its libraries, hello: a millisecond or
 * so, measured as the entry's first). The ski-rental rule: the processes
 * double only after those started were kept busy for GROW_PAYBACK starts'
 * time (the caller asks only with work queued), so starts cost at most
 * about 1/GROW_PAYBACK of the work done, and the pool reaches N processes
 * within log2(N) such periods. */
bool pool_may_grow(int spec)
{
	struct entry *e = &entries[spec];
	if (e->nstarted >= e->n)
		return false;
	if (e->nstarted < e->grow_allowed)
		return true;
	uint64_t now = now_ns();
	if (now < e->grow_after_ns)
		return false;
	e->grow_allowed = e->nstarted < e->n / 2 ? 2 * e->nstarted : e->n;
	e->grow_after_ns = now + GROW_PAYBACK * e->start_cost_ns;
	return true;
}

bool pool_spec_may_join(int spec)
{
	const struct entry *e = &entries[spec];
	if (specs[spec].status != SPEC_OK || shutting_down)
		return false;
	if (!e->started || e->nstarted < e->n)
		return true; /* started on demand */
	for (int k = 0; k < e->n; k++)
		if (!proc_ready(copy_of(spec, k)))
			return true; /* starting, or to be started again */
	return false;
}

struct proc *pool_pick(int spec, bool (*skip)(const struct proc *p))
{
	struct proc *best = NULL;
	for (int k = 0; k < entries[spec].n; k++) {
		struct proc *p = copy_of(spec, k);
		if (proc_can_send(p) && (!best || p->n < best->n) && !(skip && skip(p)))
			best = p;
	}
	return best;
}

void pool_spec_out(int spec, enum spec_status status, bool say, const char *fmt, ...)
{
	struct worker_spec *s = &specs[spec];
	if (s->status != SPEC_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof s->why, fmt, ap);
	va_end(ap);
	s->status = status;
	if (say)
		warn("worker %s: %s; left out from now on", s->label, s->why);
	for (int k = 0; k < entries[spec].n; k++) {
		struct proc *p = copy_of(spec, k);
		evtimer_del(respawn_ev[p->index]);
		if (!proc_finished(p)) {
			proc_stop(p, OUT_OUT, false);
			proc_kill(p);
		}
	}
	changed();
}

bool pool_started(void)
{
	return started_any;
}

bool pool_spec_started(int spec)
{
	return entries[spec].started;
}

int pool_spec_nstarted(int spec)
{
	return entries[spec].nstarted;
}

int pool_size(void)
{
	return nprocs;
}

struct proc *pool_proc(int i)
{
	return &procs[i];
}

int pool_copies(int spec)
{
	return entries[spec].n;
}

int pool_copy_number(const struct proc *p)
{
	return p->index - entries[p->spec->index].first;
}

bool pool_all_settled(void)
{
	for (int i = 0; i < nspecs; i++)
		if (specs[i].status == SPEC_OK && !specs[i].hello_seen)
			return false;
	return true;
}

void pool_shutdown(void (*done)(void))
{
	shutting_down = true;
	shutdown_done = done;
	for (int i = 0; i < nprocs; i++) {
		evtimer_del(respawn_ev[i]); /* no respawn */
		if (!proc_finished(&procs[i]))
			proc_quit(&procs[i]);
	}
	check_shutdown_done();
}

void pool_free(void)
{
	for (int i = 0; i < nprocs; i++) {
		proc_free(&procs[i]);
		event_free(respawn_ev[i]);
	}
	free(procs);
	free(respawn_ev);
	free(entries);
	procs = NULL;
	respawn_ev = NULL;
	entries = NULL;
	nprocs = 0;
}
