/* The first stage of a race (stage.h). */
#include "config.h"

#include <stdlib.h>

#include <event2/event.h>

#include "racer/attempt.h"
#include "racer/options.h"
#include "racer/pool.h"
#include "racer/proc.h"
#include "racer/puzzle.h"
#include "racer/schedule.h"
#include "racer/stage.h"
#include "racer/util.h"
#include "racer/workers.h"

/* Puzzles queued on one presolver process: enough that it always has the
 * next one while the racer reads its answer, and that lines and answers
 * travel in runs; a hard one holds back nothing for long, since the
 * puzzles behind it are taken back when it escalates. With frames, 512
 * (refilled at half: writes of about 170 puzzles, not 110, each a wake-up
 * of the worker) took 0.96x the wall and 0.985x the CPU of 256 on 196,632
 * 17-clue puzzles; the mixed set and 10,000 the same
 * (contrib/bench/throughput.md). */
#define DEPTH 512
/* Queued on a presolver's process, and one more of its processes is
 * started: a file of a few dozen puzzles gets the machine's cores too. */
#define GROW_AT 32
/* Puzzles read ahead of the races, beside a GPU worker's deep queue. */
#define READ_AHEAD 512
/* Puzzles of a deep queue a GPU worker may hold. */
#define GPU_DEPTH 2048
/* A GPU worker's start, after the second puzzle raced. */
#define GPU_START_MS 50
/* A GPU batch's budget is its launch's, not one puzzle's search: this many
 * times a puzzle's. */
#define GPU_BUDGET_FACTOR 10

struct lane {
	bool held;           /* its head escalated: nothing more is queued behind it */
	bool filling;        /* being filled up to DEPTH */
	struct event *timer; /* the head's budget */
};

static struct lane *lanes;
static int nlanes;
static struct event_base *ev_base;
static const struct stage_hooks *hooks;
static bool stopped;

static void timer_cb(evutil_socket_t fd, short what, void *arg);

void stage_init(struct event_base *base, int nprocs, const struct stage_hooks *h)
{
	ev_base = base;
	hooks = h;
	nlanes = nprocs;
	lanes = xcalloc((size_t)(nprocs ? nprocs : 1), sizeof *lanes);
	for (int i = 0; i < nprocs; i++)
		if (!(lanes[i].timer = evtimer_new(base, timer_cb, pool_proc(i))))
			die("cannot create a timer");
}

bool stage_held(const struct proc *p)
{
	return lanes[p->index].held && p->n;
}

static bool takes(const struct worker_spec *s, const struct puzzle *pz)
{
	return workers_takes(s, pz->grid->box, opt.count > 0);
}

/* The GPU worker, when it can take a batch of a deep queue as their first
 * stage (the presolver's processes being full). */
static struct proc *gpu_for(const struct puzzle *pz, uint64_t waiting)
{
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		int deep = (s->batch < GPU_DEPTH ? s->batch : GPU_DEPTH) / 2;
		if (!s->gpu || s->status != SPEC_OK || !s->hello_seen || s->batch < 2 || !takes(s, pz) ||
		    waiting < (uint64_t)deep)
			continue;
		struct proc *p = pool_pick(i, stage_held);
		if (p && p->n < 2 * s->batch && p->n < GPU_DEPTH)
			return p;
	}
	return NULL;
}

bool stage_place(const struct puzzle *pz, uint64_t waiting, struct proc **pp)
{
	int first = schedule_presolver(pz->grid);
	*pp = NULL;
	if (first < 0)
		return true;
	const struct worker_spec *s = &specs[first];
	if (s->hello_seen && !takes(s, pz))
		return true;
	pool_start_spec(first);
	struct proc *p = pool_pick(first, stage_held);
	/* a process with work queued: one more is started while this one takes
	 * the puzzle, when the work so far pays for its start */
	if (p ? p->n >= GROW_AT && pool_may_grow(first) : !pool_spec_starting(first))
		pool_grow(first);
	/* a process is filled up to DEPTH once it is down to half of it: lines
	 * go out, and answers come back, several at a time */
	if (p && (p->n >= (s->batch > 1 ? GPU_DEPTH : DEPTH) || (p->n > DEPTH / 2 && !lanes[p->index].filling)))
		p = NULL;
	if (!p)
		p = gpu_for(pz, waiting);
	*pp = p;
	return p != NULL;
}

void stage_sent(struct proc *p)
{
	lanes[p->index].filling = p->n < DEPTH;
}

/* May pz, the head of presolver process p, escalate? Not while the cancel
 * that takes it back is on its way: its "cancelled" races it again from
 * the start, and escalated before, its race could end with every other
 * entry skipped and that cancel its only outcome. */
static bool may_escalate(const struct puzzle *pz, const struct proc *p)
{
	return pz && pz->state == PZ_FIRST && pz->first_spec == p->spec->index && !pz->requeue;
}

static double budget_of(const struct proc *p, const struct puzzle *pz)
{
	double budget = schedule_budget_ms(pz->grid->box);
	return p->spec->batch > 1 ? budget * GPU_BUDGET_FACTOR : budget;
}

/* The presolver's clock of a puzzle starts when its process begins it. A
 * pending timer is left as it is: it fires at an earlier head's deadline
 * and is set again then (one timer event per budget, not per puzzle). */
static void arm(struct proc *p, const struct puzzle *pz)
{
	struct event *t = lanes[p->index].timer;
	if (evtimer_pending(t, NULL))
		return;
	double budget = budget_of(p, pz), ran = ms_since(p->head_ns);
	/* an overdue puzzle looks again a budget later (a place freed is the
	 * quick way in) */
	double ms = pz->overdue ? budget : budget - ran;
	if (opt.timeout_s > 0 && opt.timeout_s * 1000 - ran < ms)
		ms = opt.timeout_s * 1000 - ran;
	struct timeval tv = ms_tv(ms);
	evtimer_add(t, &tv);
}

void stage_head(struct proc *p)
{
	struct attempt *a = proc_head(p);
	struct puzzle *pz = a ? a->pz : NULL;
	struct lane *l = &lanes[p->index];
	if (stopped || !a)
		return;
	l->held = false;
	if (!pz || !puzzle_racing(pz))
		return;
	if (!pz->start_ns)
		pz->start_ns = p->head_ns;
	if (pz->state == PZ_ALL)
		l->held = pz->escalated && pz->first_spec == p->spec->index;
	else if (pz->overdue)
		l->held = true;
	else if (may_escalate(pz, p))
		arm(p, pz);
}

void stage_take_back(struct proc *p, const struct puzzle *head)
{
	lanes[p->index].held = true;
	for (int i = 0; i < proc_queued(p); i++) {
		struct attempt *a = proc_at(p, i);
		struct puzzle *q = a->pz;
		if (q && q != head && q->state == PZ_FIRST && !q->requeue && q->first_spec == p->spec->index) {
			q->requeue = true;
			proc_send_cancel(p, a);
		}
	}
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct proc *p = arg;
	if (stopped || !proc_ready(p) || !proc_queued(p))
		return;
	struct puzzle *pz = proc_head(p)->pz;
	if (!may_escalate(pz, p))
		return;
	double ran = ms_since(p->head_ns);
	if (opt.timeout_s > 0 && ran + 0.5 >= opt.timeout_s * 1000) {
		hooks->timed_out(pz);
		return;
	}
	if (ran + 0.05 >= budget_of(p, pz)) {
		if (hooks->over_budget(pz))
			return;
		/* no place yet: the puzzles behind it go elsewhere, and it waits
		 * (a place freed, or this timer again) */
		if (!pz->overdue) {
			pz->overdue = true;
			stage_take_back(p, pz);
		}
	}
	arm(p, pz);
}

struct puzzle *stage_oldest_overdue(void)
{
	struct puzzle *oldest = NULL;
	for (int i = 0; i < nlanes; i++) {
		struct proc *p = pool_proc(i);
		if (!proc_ready(p) || !proc_queued(p))
			continue;
		struct puzzle *pz = proc_head(p)->pz;
		if (may_escalate(pz, p) && pz->overdue && (!oldest || pz->start_ns < oldest->start_ns))
			oldest = pz;
	}
	return oldest;
}

uint64_t stage_read_ahead(void)
{
	uint64_t n = READ_AHEAD;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu && specs[i].status == SPEC_OK && specs[i].hello_seen && specs[i].batch > 1)
			n += 2 * GPU_DEPTH;
	return n;
}

uint64_t stage_slots_wanted(void)
{
	uint64_t n = 0;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu)
			n += GPU_DEPTH;
		else if (specs[i].presolver)
			n += (uint64_t)pool_copies(i) * DEPTH * 2;
	return n;
}

static void start_gpu_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	if (stopped)
		return;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu)
			pool_start_spec(i);
}

void stage_race_started(void)
{
	static long raced;
	if (++raced != 2)
		return;
	/* a GPU worker starts in the background once a second puzzle is raced
	 * (the cache answered none of them) and the run has gone on for
	 * GPU_START_MS: one puzzle alone, a file of cache hits, or a file done
	 * sooner than a CUDA context is set up costs the presolvers' start only */
	static const struct timeval later = {0, GPU_START_MS * 1000};
	if (event_base_once(ev_base, -1, EV_TIMEOUT, start_gpu_cb, NULL, &later) < 0)
		die("cannot schedule an event");
}

void stage_stop(void)
{
	stopped = true;
	for (int i = 0; i < nlanes; i++)
		evtimer_del(lanes[i].timer);
}

void stage_free(void)
{
	for (int i = 0; i < nlanes; i++)
		event_free(lanes[i].timer);
	free(lanes);
	lanes = NULL;
	nlanes = 0;
}
