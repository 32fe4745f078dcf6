/* The processes of each entry of the portfolio (the policy; proc.c is the
 * mechanism): how many copies of each, started lazily, what a death costs
 * (strikes), when a process is started again (backoff), when an entry is
 * left out (it kept dying), and the shutdown. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"
#include "racer/spawn.h"

/* Deaths in a row (without a well-formed answer between) before an entry is
 * left out; the first restarts wait 25, 100, 400 ms. */
#define MAX_STRIKES 4
#define BACKOFF_FIRST_MS 25
/* A presolver's processes double only once those it has were kept busy
 * for this many of its starts' time (pool_may_grow). */
#define GROW_PAYBACK 2

struct proc *procs;
int nprocs;

static bool probe_mode, started_any, shutting_down;
static void (*shutdown_done)(void);

bool pool_started(void)
{
	return started_any;
}

bool pool_probing(void)
{
	return probe_mode;
}

/* How many processes an entry gets: as many as -j for a presolver (the
 * processors by default: the easy puzzles are theirs), a quarter as many
 * for the others (they race the few hard ones), one GPU worker (one CUDA
 * context on the device, fed batches). --schedule=all shares the
 * processors among all entries, as the first design's sets did. */
static int copies_of(const struct worker_spec *s, int jobs, int usable)
{
	if (probe_mode || s->gpu)
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

void pool_init(int jobs, bool probe)
{
	probe_mode = probe;
	int usable = 0;
	for (int i = 0; i < nspecs; i++)
		usable += specs[i].status == SPEC_OK;
	nprocs = 0;
	for (int i = 0; i < nspecs; i++) {
		specs[i].first = nprocs;
		specs[i].nprocs = copies_of(&specs[i], jobs, usable);
		specs[i].grow_allowed = 1;
		nprocs += specs[i].nprocs;
	}
	procs = xcalloc((size_t)nprocs, sizeof *procs);
	for (int i = 0; i < nspecs; i++)
		for (int k = 0; k < specs[i].nprocs; k++) {
			struct proc *p = proc_of(&specs[i], k);
			p->spec = &specs[i];
			p->copy = k;
			p->state = PROC_NEW;
		}
}

void pool_start_spec(struct worker_spec *s)
{
	if (s->started || s->status != SPEC_OK || shutting_down)
		return;
	s->started = started_any = true;
	/* --list-workers starts them all; a race starts one, and more as
	 * they are needed (pool_grow) */
	int n = probe_mode ? s->nprocs : 1;
	for (int k = 0; k < n && s->status == SPEC_OK; k++)
		proc_spawn(proc_of(s, s->nstarted++));
}

bool pool_spec_starting(const struct worker_spec *s)
{
	for (int k = 0; k < s->nstarted; k++)
		if (proc_of(s, k)->state == PROC_STARTING)
			return true;
	return false;
}

bool pool_grow(struct worker_spec *s)
{
	if (!s->started) {
		pool_start_spec(s);
		return s->started;
	}
	if (s->nstarted >= s->nprocs || s->status != SPEC_OK || shutting_down)
		return false;
	proc_spawn(proc_of(s, s->nstarted++));
	return true;
}

/* A process costs its start (exec, its libraries, hello: a millisecond
 * or so, measured as the entry's first), and every presolver process of
 * -j was started as soon as the first had a queue: 60 easy puzzles with
 * -j 8 took 12 ms of CPU, where sudoku-cp alone takes 1 ms. The
 * ski-rental rule: the processes double only after those started were
 * kept busy for GROW_PAYBACK starts' time (the caller asks only with work
 * queued), so starts cost at most about 1/GROW_PAYBACK of the work done,
 * and the pool reaches N processes within log2(N) such periods. */
bool pool_may_grow(struct worker_spec *s)
{
	if (s->nstarted >= s->nprocs)
		return false; /* and no clock read: this is asked once a puzzle */
	if (s->nstarted < s->grow_allowed)
		return true;
	/* asked with a process of s ready: its first start is measured */
	uint64_t now = now_ns();
	if (now < s->grow_after_ns)
		return false;
	s->grow_allowed = s->nstarted < s->nprocs / 2 ? 2 * s->nstarted : s->nprocs;
	s->grow_after_ns = now + GROW_PAYBACK * s->start_cost_ns;
	return true;
}

void pool_start_all(void)
{
	for (int i = 0; i < nspecs; i++)
		pool_start_spec(&specs[i]);
}

bool pool_spec_may_join(const struct worker_spec *s)
{
	if (s->status != SPEC_OK || shutting_down)
		return false;
	if (!s->started || s->nstarted < s->nprocs)
		return true; /* started on demand */
	for (int k = 0; k < s->nprocs; k++)
		if (!proc_ready(proc_of(s, k)))
			return true; /* starting, or to be started again */
	return false;
}

struct proc *pool_pick(const struct worker_spec *s, bool skip_held)
{
	struct proc *best = NULL;
	for (int k = 0; k < s->nprocs; k++) {
		struct proc *p = proc_of(s, k);
		bool held = skip_held && p->held && p->ninflight;
		if (proc_can_send(p) && !held && (!best || p->ninflight < best->ninflight))
			best = p;
	}
	return best;
}

void pool_spec_out(struct worker_spec *s, enum spec_status status, bool say, const char *fmt, ...)
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
	for (int k = 0; k < s->nprocs; k++) {
		struct proc *p = proc_of(s, k);
		if (!proc_finished(p)) {
			proc_stop(p, OUT_OUT, false);
			proc_kill(p);
		}
	}
	if (!probe_mode)
		race_pool_changed();
}

void pool_proc_ready(struct proc *p)
{
	struct worker_spec *s = p->spec;
	if (!s->start_cost_ns) {
		uint64_t now = now_ns();
		s->start_cost_ns = now > p->spawned_ns ? now - p->spawned_ns : 1;
		s->grow_after_ns = now + GROW_PAYBACK * s->start_cost_ns;
	}
	if (!probe_mode)
		race_worker_ready(p);
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

void pool_proc_finished(struct proc *p)
{
	struct worker_spec *s = p->spec;
	if (shutting_down) {
		check_shutdown_done();
		return;
	}
	if (s->status != SPEC_OK)
		return;
	if (p->strike) {
		s->strikes++;
		if (p->why == OUT_KILLED)
			s->st.killed++;
		else if (p->why == OUT_DIED)
			s->st.died++;
		if (p->was_starting)
			s->st.hello_failures++;
	}
	if (s->strikes >= MAX_STRIKES) {
		if (probe_mode)
			pool_spec_out(s, SPEC_UNAVAILABLE, false, "%s", p->was_starting ? "no hello" : "died");
		else
			pool_spec_out(s, SPEC_DISABLED, true, "%s %d times in a row",
				      p->was_starting ? "failed to start" : "died or hung", s->strikes);
		return;
	}
	if (probe_mode) {
		if (!s->hello_seen)
			pool_spec_out(s, SPEC_UNAVAILABLE, false, "%s",
				      p->was_starting && p->why == OUT_KILLED ? "no hello in time (--hello-timeout)"
									   : "exited before hello");
		return;
	}
	proc_after(p, backoff_ms(s->strikes));
}

void pool_proc_respawn(struct proc *p)
{
	if (shutting_down || probe_mode || p->spec->status != SPEC_OK || p->state != PROC_DEAD)
		return;
	p->spec->st.respawns++;
	proc_spawn(p);
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
		int i;
		for (i = 0; i < nprocs; i++)
			if (procs[i].pid == pid && !procs[i].reaped) {
				proc_reaped(&procs[i], st);
				break;
			}
		if (i == nprocs)
			children_hand_over(pid, st); /* GLUE: the cache's helpers (spawn.h) */
	}
}

void pool_shutdown(void (*done)(void))
{
	shutting_down = true;
	shutdown_done = done;
	for (int i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		if (proc_finished(p)) {
			if (p->timer)
				evtimer_del(p->timer); /* no respawn */
			continue;
		}
		proc_quit(p);
	}
	check_shutdown_done();
}

void pool_free(void)
{
	for (int i = 0; i < nprocs; i++)
		proc_free(&procs[i]);
	free(procs);
	procs = NULL;
	nprocs = 0;
}
