/* The puzzles and their races (race.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "lib/number.h"
#include "racer/attempt.h"
#include "racer/options.h"
#include "racer/pool.h"
#include "racer/proc.h"
#include "racer/puzzle.h"
#include "racer/race.h"
#include "racer/queue.h"
#include "racer/schedule.h"
#include "racer/stage.h"
#include "racer/stats.h"
#include "racer/store.h"
#include "racer/util.h"
#include "racer/verdict.h"
#include "racer/workers.h"

/* Puzzles racing every entry at once, per process of the largest entry. */
#define ALL_DEPTH 16
/* Times a puzzle is raced again because a process ended under it. */
#define MAX_LOST 3

struct list {
	struct puzzle *head, *tail;
	int n;
};

/* Per entry, the puzzles whose confirmation waits for room in its
 * processes, oldest first (sequence numbers; a puzzle ended since is
 * skipped when its turn comes), offered when one of them answers. */
struct await_queue {
	uint64_t *seq;
	int head, n, cap;
};

static struct event_base *ev_base;
static const struct race_hooks *hooks;
static bool stopped;
static struct msg_solve_fields solve_fields; /* every solve's: --seed, --count, ... */

/* the puzzles racing every entry */
static struct list racing_all;
static int all_cap;
/* Puzzles escalated at once: as many as the other entries have processes
 * (each escalated puzzle gets a process of every entry to itself). A
 * puzzle over its budget waits for a place. */
static int escalate_cap;
/* the puzzles to look at again in the tick, oldest first */
static struct puzzle *marked_head, *marked_tail;
static bool recheck_all;      /* the pool changed: every puzzle in ALL */
static bool place_freed;      /* an escalated race ended */
static uint32_t room_in;      /* entries that answered: their waiting confirmations go */
static struct await_queue awaiting[MAX_SPECS];

static void wake(void)
{
	hooks->wake();
}

static void mark(struct puzzle *pz)
{
	if (pz->marked || !puzzle_racing(pz))
		return;
	pz->marked = true;
	pz->next_marked = NULL;
	if (marked_tail)
		marked_tail->next_marked = pz;
	else
		marked_head = pz;
	marked_tail = pz;
	wake();
}

static void list_add(struct list *l, struct puzzle *pz)
{
	pz->prev = l->tail;
	pz->next = NULL;
	if (l->tail)
		l->tail->next = pz;
	else
		l->head = pz;
	l->tail = pz;
	l->n++;
}

static void list_remove(struct list *l, struct puzzle *pz)
{
	if (pz->prev)
		pz->prev->next = pz->next;
	else
		l->head = pz->next;
	if (pz->next)
		pz->next->prev = pz->prev;
	else
		l->tail = pz->prev;
	pz->prev = pz->next = NULL;
	l->n--;
}

static void await_push(int spec, struct puzzle *pz)
{
	struct await_queue *q = &awaiting[spec];
	if (pz->claims.awaiting == spec)
		return;
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 64;
		uint64_t *seq = xmalloc((size_t)cap * sizeof *seq);
		for (int i = 0; i < q->n; i++)
			seq[i] = q->seq[(q->head + i) % q->cap];
		free(q->seq);
		q->seq = seq;
		q->cap = cap;
		q->head = 0;
	}
	q->seq[(q->head + q->n++) % q->cap] = pz->seq;
	pz->claims.awaiting = (int8_t)spec; /* an entry in another queue is stale now */
}

static bool takes(const struct worker_spec *s, const struct puzzle *pz)
{
	return workers_takes(s, pz->grid->box, opt.count > 0);
}

/* --- verdicts --- */

/* What the cache learns of a race. A verdict that needs proof is stored
 * only when proved: an unconfirmed count keeps its (verified) solution
 * alone. */
static void remember(struct puzzle *pz, enum verdict v)
{
	bool proved = pz->claims.confirmed || !pz->claims.n;
	if (!store_enabled() || v == V_CLASH || (!proved && v == V_UNSAT))
		return;
	struct cache_entry e;
	cache_entry_clear(&e);
	e.verdict = v == V_UNSAT ? V_UNSAT : V_SOLVED;
	e.uniq = !proved ? UNIQ_UNKNOWN : v == V_MULTIPLE ? UNIQ_MULTIPLE : pz->uniq;
	e.ms = pz->winner_ms;
	/* (copies, not snprintf: a cold run remembers every answer) */
	const char *name = specs[pz->winner].name;
	size_t n = strnlen(name, sizeof e.winner - 1);
	memcpy(e.winner, name, n);
	e.winner[n] = '\0';
	/* who proved it, as the store writes them: "cp,dlx" (the claims'
	 * field is the shorter) */
	_Static_assert(sizeof pz->claims.provers < sizeof e.provers, "provers fit the entry");
	const char *by = pz->claims.provers;
	size_t k = 0;
	for (; k < sizeof pz->claims.provers && by[k]; k++)
		e.provers[k] = by[k] == '+' ? ',' : by[k];
	e.provers[k] = '\0';
	if (pz->solution)
		grid_from_cells(&e.solution, pz->grid->box, pz->solution);
	store_put(pz->grid, &e);
}

static void end_race(struct puzzle *pz, enum verdict v)
{
	if (!puzzle_racing(pz))
		return;
	if (opt.json) /* its only reader */
		pz->race_ms = ms_since(pz->start_ns ? pz->start_ns : pz->dispatch_ns);
	if (v != V_SOLVED && v != V_MULTIPLE && puzzle_givens_clash(pz))
		v = V_CLASH;
	for (int i = 0; i < nspecs; i++) {
		struct attempt *a = pz->att[i];
		if (a && a->outcome == OUT_SENT && a->proc >= 0)
			proc_send_cancel(pool_proc(a->proc), a);
	}
	bool was_all = pz->state == PZ_ALL;
	puzzle_decide(pz, v);
	wake(); /* an answer to write */
	if (was_all) {
		list_remove(&racing_all, pz);
		if (pz->timeout_ev)
			evtimer_del(pz->timeout_ev);
		place_freed = true;
	} else {
		stats_add(RC_FIRST_ONLY, 1);
	}
	msg_solve_record_clear(&pz->solve);
	if (pz->winner >= 0 && (v == V_SOLVED || v == V_MULTIPLE || v == V_UNSAT || v == V_CLASH)) {
		stats_won(pz->winner, pz->winner_ms, pz->escalated);
		if (pz->escalated)
			schedule_escalation_won(pz->grid->box, pz->winner);
		if (pz->stage == STAGE_FIRST && pz->winner == pz->first_spec)
			schedule_record(pz->grid->box, pz->winner_ms);
		remember(pz, v);
	}
	store_race_ended(pz->seq, pz->grid); /* after store_put: a claim on it goes */
}

/* --- dispatch --- */

/* Its solve message, made once (the codec's record: with or without the
 * seed for each entry). */
static void make_solve(struct puzzle *pz)
{
	char id[U64_DECIMAL_SIZE];
	const char *d = u64_decimal(pz->seq, id);
	if (msg_solve_record_make(&pz->solve, d, pz->grid, &solve_fields) < 0)
		die("out of memory");
}

static void send_to(struct puzzle *pz, struct proc *p)
{
	const struct worker_spec *s = p->spec;
	struct attempt *a = puzzle_set_outcome(pz, s->index, OUT_SENT);
	a->cancel_ns = 0;
	a->ms = 0;
	/* an entry that sets its seed itself gets the solve without the
	 * racer's; a process that takes frames gets the puzzle in one (its
	 * line is made only for the processes that need it) */
	bool with_seed = !s->own_seed;
	if (proc_frames(p)) {
		struct msg_solve_fields f = solve_fields;
		f.has_seed &= with_seed;
		proc_send_framed(p, a, pz->grid, &f);
	} else {
		if (!pz->solve.line)
			make_solve(pz);
		proc_send_solve(p, a, &pz->solve, with_seed);
	}
	stats_spec_add(s->index, SC_SENT, 1);
	if (proc_queued(p) == 1)
		stage_head(p);
}

/* Offers a puzzle racing every entry to one entry: to its least busy
 * process, if one can take it now; else it joins when one can. */
static void offer(struct puzzle *pz, int spec)
{
	const struct worker_spec *s = &specs[spec];
	if (puzzle_outcome(pz, spec) != OUT_NONE)
		return;
	if (s->status != SPEC_OK) {
		puzzle_set_outcome(pz, spec, OUT_OUT);
		return;
	}
	if (s->hello_seen && !takes(s, pz)) {
		puzzle_set_outcome(pz, spec, OUT_SKIPPED);
		return;
	}
	struct proc *p = pool_pick(spec, NULL);
	/* not behind another puzzle when the entry has a process to start: it
	 * joins when that one is up */
	if (p && proc_queued(p) && pool_grow(spec))
		p = NULL;
	if (p && takes(s, pz)) {
		send_to(pz, p);
		return;
	}
	if (!p && !pool_spec_starting(spec))
		pool_grow(spec);
	if (pool_spec_may_join(spec))
		return;
	if (pz->claims.asked >> spec & 1)
		await_push(spec, pz); /* a confirmation waits for room */
	else
		puzzle_set_outcome(pz, spec, OUT_SKIPPED); /* its processes are all there and full */
}

static void timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct puzzle *pz = arg;
	if (!stopped && pz->state == PZ_ALL)
		end_race(pz, V_TIMEOUT);
}

/* The rest of the portfolio joins (escalated: the presolver's budget ran
 * out, or it failed), or every entry races it from the start. */
static void race_all(struct puzzle *pz, bool escalated)
{
	puzzle_enter(pz, PZ_ALL);
	pz->escalated = escalated;
	if (!pz->start_ns)
		pz->start_ns = now_ns();
	stats_add(escalated ? RC_ESCALATED : RC_ALL_AT_ONCE, 1);
	list_add(&racing_all, pz);
	if (opt.timeout_s > 0) {
		if (!pz->timeout_ev && !(pz->timeout_ev = evtimer_new(ev_base, timeout_cb, pz)))
			die("cannot create a timer");
		struct timeval tv = ms_tv(opt.timeout_s * 1000 - ms_since(pz->start_ns));
		evtimer_add(pz->timeout_ev, &tv);
	}
	for (int i = 0; i < nspecs; i++) {
		if (escalated && puzzle_outcome(pz, i) == OUT_NONE && !schedule_joins(pz->grid->box, i)) {
			puzzle_set_outcome(pz, i, OUT_SKIPPED); /* it never wins these */
			continue;
		}
		pool_start_spec(i);
		offer(pz, i);
	}
}

static void escalate(struct puzzle *pz)
{
	struct attempt *a = pz->att[pz->first_spec];
	if (a && a->outcome == OUT_SENT && a->proc >= 0) {
		struct proc *p = pool_proc(a->proc);
		if (proc_head(p) == a)
			stage_take_back(p, pz);
	}
	race_all(pz, true);
}

/* A puzzle taken back from a held process: raced again from the start. */
static void requeue(struct puzzle *pz)
{
	struct attempt *a = pz->att[pz->first_spec];
	pz->att[pz->first_spec] = NULL;
	if (a)
		attempt_free(a);
	pz->requeue = pz->overdue = false;
	pz->first_spec = -1;
	pz->stage = STAGE_NONE;
	pz->start_ns = 0;
	puzzle_enter(pz, PZ_WAITING);
	queue_again(pz);
}

/* A claim's confirmer c races it (alone, when it was the presolver's). */
static void confirm(struct puzzle *pz, int c)
{
	if (pz->state != PZ_ALL) {
		puzzle_enter(pz, PZ_ALL);
		list_add(&racing_all, pz);
		for (int i = 0; i < nspecs; i++)
			if (puzzle_outcome(pz, i) == OUT_NONE && i != c)
				puzzle_set_outcome(pz, i, OUT_SKIPPED);
	}
	if (puzzle_outcome(pz, c) == OUT_SKIPPED)
		puzzle_set_outcome(pz, c, OUT_NONE);
	if (puzzle_outcome(pz, c) == OUT_NONE) {
		pool_start_spec(c);
		offer(pz, c);
	}
}

/* When every entry is out: the first one's reason, for "no available
 * worker" (a system that lets no worker start says so there). */
static const char *why_none_left(void)
{
	static char why[160];
	for (int i = 0; i < nspecs; i++)
		if (specs[i].status == SPEC_OK)
			return "";
	for (int i = 0; i < nspecs; i++)
		if (specs[i].status == SPEC_DISABLED) {
			snprintf(why, sizeof why, " (%.24s: %.120s)", specs[i].label, specs[i].why);
			return why;
		}
	return "";
}

/* Ends the race when nobody is left in it and nobody can still join. */
static void check_done(struct puzzle *pz)
{
	if (!puzzle_racing(pz))
		return;
	if (pz->state == PZ_FIRST) {
		if (puzzle_outcome(pz, pz->first_spec) == OUT_SENT)
			return;
		escalate(pz); /* the presolver gave up, failed or died */
	}
	bool tried = false, open = false;
	for (int i = 0; i < nspecs; i++) {
		/* asked to confirm before its hello said it is not complete */
		if (puzzle_outcome(pz, i) == OUT_NONE && (pz->claims.asked >> i & 1) && specs[i].hello_seen &&
		    !specs[i].complete)
			puzzle_set_outcome(pz, i, OUT_SKIPPED);
		if (puzzle_outcome(pz, i) == OUT_NONE)
			offer(pz, i);
		enum outcome o = puzzle_outcome(pz, i);
		if (o == OUT_SENT || o == OUT_NONE)
			open = true;
		else if (o != OUT_SKIPPED && o != OUT_OUT)
			tried = true;
	}
	if (open)
		return;
	if (pz->claims.n) {
		/* a claim nobody confirmed yet: another program is asked, or the
		 * claim stands unconfirmed */
		struct step st = verdict_settle_claims(pz);
		if (st.kind == STEP_CONFIRM) {
			confirm(pz, st.confirmer);
			check_done(pz);
		} else {
			end_race(pz, st.v);
		}
		return;
	}
	enum verdict v = V_UNSOLVED;
	if (!tried) {
		v = V_UNSUPPORTED;
		snprintf(pz->text, sizeof pz->text, "line %ld: no available %sworker takes %dx%d grids%s%s",
			 pz->line, opt.count ? "complete " : "", pz->grid->side, pz->grid->side,
			 opt.count ? " (--count)" : "", why_none_left());
	} else if (opt.timeout_s > 0 && pz->timeout_reason) {
		v = V_TIMEOUT;
	}
	end_race(pz, v);
}

/* Starts a puzzle's race: to its presolver alone when it has one, or to
 * every entry. False when no process can take it yet (it waits). */
static bool start_race(struct puzzle *pz)
{
	struct proc *p;
	if (!stage_place(pz, queue_waiting(), &p))
		return false;
	if (!p && racing_all.n >= all_cap)
		return false;
	stage_race_started();
	if (opt.json)
		pz->dispatch_ns = now_ns();
	if (!p) {
		race_all(pz, false);
		check_done(pz);
		return true;
	}
	puzzle_enter(pz, PZ_FIRST);
	pz->first_spec = p->spec->index;
	send_to(pz, p);
	stage_sent(p);
	return true;
}

static void dispatch(void)
{
	struct puzzle *pz;
	while (!stopped && (pz = queue_peek()) && start_race(pz))
		queue_take(pz);
}

/* The confirmations waiting for room in an entry's processes go. */
static void offer_awaiting(int spec)
{
	struct await_queue *q = &awaiting[spec];
	while (q->n && !stopped && pool_pick(spec, NULL)) {
		struct puzzle *pz = queue_find(q->seq[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->n--;
		if (!pz || pz->claims.awaiting != spec)
			continue;
		pz->claims.awaiting = -1;
		if (!puzzle_racing(pz) || puzzle_outcome(pz, spec) != OUT_NONE)
			continue;
		offer(pz, spec);
		if (puzzle_outcome(pz, spec) != OUT_SENT)
			break; /* a process of its own is starting: its hello offers it */
	}
}

void race_tick(void)
{
	if (stopped)
		return;
	if (recheck_all) {
		recheck_all = false;
		for (struct puzzle *pz = racing_all.head; pz; pz = pz->next)
			mark(pz);
	}
	while (marked_head) {
		struct puzzle *pz = marked_head;
		marked_head = pz->next_marked;
		if (!marked_head)
			marked_tail = NULL;
		pz->marked = false;
		check_done(pz);
	}
	while (place_freed && racing_all.n < escalate_cap) {
		/* a place among the escalated: the longest overdue takes it */
		struct puzzle *pz = stage_oldest_overdue();
		if (!pz)
			break;
		escalate(pz);
		check_done(pz);
	}
	place_freed = false;
	for (int i = 0; room_in && i < nspecs; i++)
		if (room_in >> i & 1) {
			room_in &= ~(1u << i);
			offer_awaiting(i);
		}
	dispatch();
}

/* --- what the workers say --- */

static void on_answer(void *owner, struct proc *p, struct attempt *a, const struct msg_reply *r)
{
	(void)owner;
	struct puzzle *pz = a->pz;
	int spec = p->spec->index;
	room_in |= 1u << spec;
	if (!pz || stopped) {
		/* --stats: every request sent is counted once; after the end,
		 * race_stop counted it as open */
		if (!stopped)
			verdict_gone(spec, r->type);
		if (!pz)
			attempt_free(a);
	} else {
		struct step st = verdict_answer(pz, a, r);
		switch (st.kind) {
		case STEP_TAKEN_BACK:
			requeue(pz);
			break;
		case STEP_DECIDED:
			end_race(pz, st.v);
			break;
		case STEP_CONFIRM:
			confirm(pz, st.confirmer);
			mark(pz);
			break;
		case STEP_NOTED:
			mark(pz);
			break;
		}
	}
	stage_head(p);
	wake();
}

static void on_progress(void *owner, struct proc *p, struct attempt *a, const struct msg *m)
{
	(void)owner;
	if (!stopped && hooks->progress)
		hooks->progress(p, a->pz, m);
}

static void on_lost(void *owner, struct proc *p, struct attempt *a, enum outcome why)
{
	(void)owner;
	struct puzzle *pz = a->pz;
	if (!stopped)
		stats_spec_add(p->spec->index, SC_LOST, 1); /* after the end, race_stop counted it as open */
	if (!pz) {
		attempt_free(a);
		return;
	}
	if (stopped || !puzzle_racing(pz) || a->outcome != OUT_SENT)
		return;
	bool presolver = pz->state == PZ_FIRST && a->spec == pz->first_spec;
	if (presolver && pz->requeue) {
		requeue(pz);
		return;
	}
	/* its process ended under it: raced again, on another process of the
	 * entry or the one started in its place, before anyone is counted
	 * out: the presolver's queue whatever ended it, a race of every entry
	 * when the worker died by itself (one killed for not acknowledging a
	 * cancel in time would only be killed again); a puzzle that keeps
	 * ending its workers is not raced again for ever */
	if ((presolver ? why != OUT_OUT : why == OUT_DIED) && pz->lost < MAX_LOST) {
		pz->lost++;
		if (presolver) {
			requeue(pz);
		} else {
			pz->att[a->spec] = NULL;
			attempt_free(a);
			mark(pz);
		}
		return;
	}
	a->outcome = (uint8_t)why;
	mark(pz);
}

static void on_changed(void *owner)
{
	(void)owner;
	schedule_forget();
	if (stopped)
		return;
	/* a GPU worker up takes batches of a deep queue: the input reads
	 * further ahead for it */
	queue_set_read_ahead(stage_read_ahead());
	recheck_all = true;
	wake();
}

const struct pool_events race_pool_events = {
	.answer = on_answer,
	.progress = on_progress,
	.lost = on_lost,
	.changed = on_changed,
};

/* --- the stage's and the verdict's hooks --- */

static bool over_budget(struct puzzle *pz)
{
	if (racing_all.n >= escalate_cap)
		return false;
	escalate(pz);
	mark(pz);
	return true;
}

static void timed_out(struct puzzle *pz)
{
	end_race(pz, V_TIMEOUT);
}

static const struct stage_hooks stage_hooks = {.over_budget = over_budget, .timed_out = timed_out};

struct leave_out {
	int spec;
	char why[sizeof specs[0].why];
};

static void leave_out_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	struct leave_out *l = arg;
	pool_spec_out(l->spec, SPEC_DISABLED, false, "%s", l->why);
	free(l);
}

/* A liar is left out once the message being handled is done with. */
static void leave_out(int spec, const char *why)
{
	struct leave_out *l = xmalloc(sizeof *l);
	l->spec = spec;
	snprintf(l->why, sizeof l->why, "%s", why);
	static const struct timeval now;
	if (event_base_once(ev_base, -1, EV_TIMEOUT, leave_out_cb, l, &now) < 0)
		die("cannot schedule an event");
}

/* --- the run --- */

void race_init(struct event_base *base, const struct race_hooks *h)
{
	ev_base = base;
	hooks = h;
	int most = 1;
	for (int i = 0; i < nspecs; i++)
		if (pool_copies(i) > most)
			most = pool_copies(i);
	all_cap = ALL_DEPTH * most;
	escalate_cap = 1;
	for (int i = 0; i < nspecs; i++)
		if (!specs[i].presolver && !specs[i].gpu && pool_copies(i) > escalate_cap)
			escalate_cap = pool_copies(i);
	stage_init(base, pool_size(), &stage_hooks);
	verdict_init(leave_out, opt.count);
	queue_init((uint64_t)all_cap + 256 + stage_slots_wanted(), stage_read_ahead(), wake);
	solve_fields.has_seed = opt.seed_set;
	solve_fields.seed = opt.seed;
	solve_fields.count = opt.count; /* --count=K; 0: none */
	if (opt.timeout_s > 0)
		solve_fields.limit_ms = (long)(opt.timeout_s * 1000 + 0.5);
}

void race_set_progress_ms(long ms)
{
	solve_fields.progress_ms = ms;
}

void race_stop(void)
{
	stopped = true;
	queue_stop();
	for (struct puzzle *pz = racing_all.head; pz; pz = pz->next)
		if (pz->timeout_ev)
			evtimer_del(pz->timeout_ev);
	stage_stop();
	/* --stats: what is in flight now gets no answer the race reads */
	for (int i = 0; i < pool_size(); i++)
		stats_spec_add(pool_proc(i)->spec->index, SC_OPEN, proc_queued(pool_proc(i)));
}

void race_free(void)
{
	for (int i = 0; i < MAX_SPECS; i++) {
		free(awaiting[i].seq);
		awaiting[i] = (struct await_queue){0};
	}
	queue_free();
	stage_free();
}
