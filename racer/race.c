/* Puzzles and their races (README "The schedule").
 *
 * Every puzzle read gets a slot in a ring, numbered by its sequence number
 * (also its request id). A puzzle that the input, the givens check or the
 * cache answers is done at once. The others are raced in stages: first by
 * the presolver of their size alone (schedule.c), pipelined on the least
 * busy of its processes; when it has not answered within the budget (from
 * the moment its process began the puzzle), or gave up, the rest of the
 * portfolio joins (escalation), and the puzzles queued behind it on that
 * process are taken back and sent to another. --schedule=all, and sizes
 * without a presolver, race every entry at once. A race ends with the
 * first verified solution, an unsat from a complete worker, a count
 * (--count), everyone failing, or --timeout. Answers leave in input order. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <event2/event.h>

#include "racer.h"
#include "racer/stats.h"
#include "store.h"

/* Puzzles queued on one presolver process: enough that it always has the
 * next one while the racer reads its answer, and that lines and answers
 * travel in runs (17-clue puzzles: 13,000 context switches for 49,158 at
 * 16, 6,000 at 64, 2,500 at 256, and 0.9x the wall time of 64); a hard
 * one holds back nothing for long, since the puzzles behind it are taken
 * back when it escalates. */
#define DEPTH 256
/* Queued on a presolver's process, and one more of its processes is
 * started: a file of a few dozen puzzles gets the machine's cores too. */
#define GROW_AT 32
/* Puzzles read ahead of the dispatch (plus a GPU worker's deep queue). */
#define READ_AHEAD 512
/* Puzzles racing every entry at once, per process of the largest entry. */
#define ALL_DEPTH 16
/* Puzzles of a deep queue a GPU worker may hold (a slot is 5 kB: the ring
 * is sized for it). */
#define GPU_DEPTH 2048
/* A GPU worker's start, after the second puzzle raced (start_race). */
#define GPU_START_MS 50
/* Room for "FILE: " in messages. */
#define PATH_MAX_PREFIX (PATH_MAX + 8)

struct race_counts counts;

/* The puzzles between the output and the input, each in a slot of the
 * pool ring (a slot is 5 kB, the size of a 64x64 grid), found by its
 * sequence number through slot_of. Slots are taken last freed first, and
 * the input reads no further ahead of the dispatch than read_ahead: an
 * easy file runs in the few hundred slots in use at once, where taking
 * the slots in turn had every slot of the pool faulted in (page faults
 * were a quarter of the racer's time on 49,158 17-clue puzzles). */
static struct puzzle *ring;
static uint32_t *slot_of;    /* by seq & (ring_cap - 1) */
static uint32_t *free_slot;  /* a stack of free slots */
static uint32_t nfree;
static bool next_claimed;    /* slot_of for next_seq is taken */
static uint64_t ring_cap;    /* a power of two */
static uint64_t read_ahead;  /* puzzles read and not yet dispatched, at most */
static uint64_t next_seq, out_seq, dispatch_seq;
static bool stopped, dispatching, dispatch_again;
static struct msg_solve_fields solve_fields; /* every solve's: --seed, --count, ... */

/* Lists of slot indices through prev/next: the puzzles taken back from a
 * held process (to dispatch first), and the puzzles racing every entry. */
struct list {
	int head, tail, n;
};
static struct list requeued, racing_all;
static int all_cap;
/* Puzzles escalated at once: as many as the other entries have processes
 * (each escalated puzzle gets a process of every entry to itself; more
 * would queue behind each other there). A puzzle over its budget waits,
 * with its presolver, for a place. */
static int escalate_cap;

/* Per entry, the puzzles whose confirmation waits for room in its
 * processes, oldest first (sequence numbers; a puzzle ended since is
 * skipped when its turn comes). Offered from here when one of its
 * processes answers: going over every puzzle racing all entries instead,
 * with --count's claim a puzzle, was 84% of the racer's time. */
struct await_queue {
	uint64_t *seq;
	int head, n, cap;
};
static struct await_queue awaiting[MAX_SPECS];

static void await_push(int spec, struct puzzle *pz)
{
	struct await_queue *q = &awaiting[spec];
	if (pz->awaiting == spec)
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
	pz->awaiting = (int8_t)spec; /* an entry in another queue is stale now */
}

static struct puzzle *slot(uint64_t seq)
{
	return &ring[slot_of[seq & (ring_cap - 1)]];
}

struct puzzle *race_find(uint64_t seq)
{
	if (!ring)
		return NULL;
	struct puzzle *pz = slot(seq);
	return pz->seq == seq && pz->state != PZ_FREE ? pz : NULL;
}

const char *outcome_name(enum outcome o)
{
	static const char *const names[] = {
		[OUT_NONE] = "not started", [OUT_SENT] = "racing",  [OUT_WON] = "won",
		[OUT_LATE] = "solved late",  [OUT_CANCELLED] = "cancelled", [OUT_WRONG] = "wrong answer",
		[OUT_UNSAT] = "unsat",       [OUT_COUNTED] = "counted", [OUT_GAVEUP] = "gave up",
		[OUT_ERROR] = "error",       [OUT_MALFORMED] = "malformed output", [OUT_DIED] = "died",
		[OUT_KILLED] = "killed",     [OUT_SKIPPED] = "skipped", [OUT_OUT] = "out",
	};
	return o < sizeof names / sizeof names[0] && names[o] ? names[o] : "?";
}

static void list_init(struct list *l)
{
	l->head = l->tail = -1;
	l->n = 0;
}

static void list_add(struct list *l, struct puzzle *pz)
{
	int idx = (int)(pz - ring);
	pz->prev = l->tail;
	pz->next = -1;
	if (l->tail >= 0)
		ring[l->tail].next = idx;
	else
		l->head = idx;
	l->tail = idx;
	l->n++;
}

static void list_remove(struct list *l, struct puzzle *pz)
{
	if (pz->prev >= 0)
		ring[pz->prev].next = pz->next;
	else
		l->head = pz->next;
	if (pz->next >= 0)
		ring[pz->next].prev = pz->prev;
	else
		l->tail = pz->prev;
	pz->prev = pz->next = -1;
	l->n--;
}

/* The ring's memory. A 9x9 puzzle uses a slot's first kilobyte, and the
 * slots in use at once on an easy file were a page fault each (2,900
 * faults, the racer's largest cost on 10,000 17-clue puzzles). Past its
 * first SMALL_HEAD bytes (the few dozen slots a small file uses, where
 * zeroing a whole huge page cost one puzzle's cold start 0.2 ms) the ring
 * is in huge pages where the kernel gives them on request: the head ends
 * on a huge page's boundary. A head of a whole huge page had the first
 * 377 slots in 4 kB pages, 1 ms of the racer's 10 ms on 10,000 17-clue
 * puzzles. It is not inherited: a worker execs at once. */
#define HUGE_PAGE ((size_t)2 << 20)
#define SMALL_HEAD ((size_t)256 << 10)

/* The ring's bytes, the head and whole huge pages: what ring_alloc maps. */
static size_t ring_size(void)
{
	size_t bytes = (size_t)ring_cap * sizeof *ring;
	size_t tail = bytes > SMALL_HEAD ? bytes - SMALL_HEAD : 0;
	return SMALL_HEAD + ((tail + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
}

static struct puzzle *ring_alloc(void)
{
	/* mapped a huge page longer, the ends cut off, so that the head ends
	 * on a huge page's boundary */
	size_t size = ring_size();
	char *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("out of memory");
	size_t lead = (HUGE_PAGE - ((uintptr_t)p + SMALL_HEAD) % HUGE_PAGE) % HUGE_PAGE;
	if (lead)
		(void)munmap(p, lead);
	(void)munmap(p + lead + size, HUGE_PAGE - lead);
	p += lead;
#ifdef MADV_HUGEPAGE
	if (size > SMALL_HEAD)
		(void)madvise(p + SMALL_HEAD, size - SMALL_HEAD, MADV_HUGEPAGE);
#endif
#ifdef MADV_DONTFORK
	(void)madvise(p, size, MADV_DONTFORK);
#endif
	return (struct puzzle *)(void *)p;
}

void race_init(void)
{
	int most = 1;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].nprocs > most)
			most = specs[i].nprocs;
	all_cap = ALL_DEPTH * most;
	escalate_cap = 1;
	for (int i = 0; i < nspecs; i++)
		if (!specs[i].presolver && !specs[i].gpu && specs[i].nprocs > escalate_cap)
			escalate_cap = specs[i].nprocs;
	/* presolvers' processes fill up to DEPTH, others take all_cap at most */
	uint64_t want = (uint64_t)all_cap + 256;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu)
			want += GPU_DEPTH;
		else if (specs[i].presolver)
			want += (uint64_t)specs[i].nprocs * DEPTH * 2;
	ring_cap = 512;
	while (ring_cap < want)
		ring_cap *= 2;
	ring = ring_alloc();
	slot_of = xcalloc(ring_cap, sizeof *slot_of);
	free_slot = xmalloc(ring_cap * sizeof *free_slot);
	for (nfree = 0; nfree < ring_cap; nfree++)
		free_slot[nfree] = (uint32_t)(ring_cap - 1 - nfree); /* slot 0 on top */
	next_claimed = false;
	read_ahead = READ_AHEAD;
	list_init(&requeued);
	list_init(&racing_all);
	next_seq = out_seq = dispatch_seq = 1;
	solve_fields.has_seed = opt.seed_set;
	solve_fields.seed = opt.seed;
}

/* Keeps a copy of the solution's cells: in the slot itself for grids up to
 * 16x16, so that the common case costs no allocation. */
static void keep_solution(struct puzzle *pz, const uint8_t *cells)
{
	size_t n = (size_t)pz->item.grid.cells;
	pz->solution = n <= sizeof pz->solution_small ? pz->solution_small : xmalloc(n);
	memcpy(pz->solution, cells, n);
}

static void drop_solve_line(struct puzzle *pz)
{
	if (pz->solve_line != pz->solve_small)
		free(pz->solve_line);
	pz->solve_line = NULL;
}

static void release(struct puzzle *pz)
{
	if (pz->solution != pz->solution_small)
		free(pz->solution);
	pz->solution = NULL;
	drop_solve_line(pz);
	if (pz->timeout_ev) {
		event_free(pz->timeout_ev);
		pz->timeout_ev = NULL;
	}
	pz->state = PZ_FREE;
	free_slot[nfree++] = (uint32_t)(pz - ring);
}

/* GLUE (store.h): the pass after the cache's answers (race_cache_reply),
 * and the look-ups in flight, which the read-ahead counts as waiting */
static struct event *reply_tick;
static bool reply_tick_due;
static uint64_t lookups;

void race_free(void)
{
	if (reply_tick)
		event_free(reply_tick);
	reply_tick = NULL;
	reply_tick_due = false;
	lookups = 0;
	if (!ring)
		return;
	/* only the slots in use: the others were released, and touching them
	 * all would fault in the whole ring's pages for nothing */
	for (uint64_t seq = out_seq; seq < next_seq; seq++)
		release(slot(seq));
	for (int i = 0; i < MAX_SPECS; i++) {
		free(awaiting[i].seq);
		awaiting[i] = (struct await_queue){0};
	}
	(void)munmap(ring, ring_size());
	free(slot_of);
	free(free_slot);
	ring = NULL;
	slot_of = free_slot = NULL;
}

void race_stop(void)
{
	stopped = true;
	for (int i = ring ? racing_all.head : -1; i >= 0; i = ring[i].next)
		if (ring[i].timeout_ev)
			evtimer_del(ring[i].timeout_ev);
	for (int i = 0; i < nprocs; i++) {
		if (procs[i].stage_timer)
			evtimer_del(procs[i].stage_timer);
		/* --stats: what is in flight now gets no answer the race reads */
		procs[i].spec->st.open += procs[i].ninflight;
	}
}

int race_free_slots(void)
{
	uint64_t in_ring = next_seq - out_seq, waiting = next_seq - dispatch_seq + lookups;
	uint64_t free = ring_cap - in_ring, ahead = waiting < read_ahead ? read_ahead - waiting : 0;
	return (int)(free < ahead ? free : ahead);
}

struct puzzle *race_next_slot(void)
{
	if (!next_claimed) {
		slot_of[next_seq & (ring_cap - 1)] = free_slot[--nfree];
		next_claimed = true;
	}
	return slot(next_seq);
}

bool race_all_done(void)
{
	return out_seq == next_seq;
}

/* "FILE: " for puzzles read from a named file, as the workers' filter mode
 * writes it in messages. */
static const char *where_prefix(const struct puzzle *pz, char *buf, size_t size)
{
	if (!pz->input_name)
		return "";
	snprintf(buf, size, "%s: ", pz->input_name);
	return buf;
}

static void set_verdict(struct puzzle *pz, enum verdict v)
{
	pz->verdict = v;
	pz->state = PZ_DONE;
	switch (v) {
	case V_SOLVED:
		counts.solved++;
		break;
	case V_UNSAT:
	case V_CLASH:
		counts.unsat++;
		break;
	case V_MULTIPLE:
		counts.multiple++;
		break;
	case V_UNSOLVED:
		counts.unsolved++;
		break;
	case V_TIMEOUT:
		counts.timeouts++;
		break;
	case V_INVALID:
		counts.invalid++;
		break;
	case V_UNSUPPORTED:
		counts.unsupported++;
		break;
	case V_PENDING:
		break;
	}
	if (pz->cache_hit)
		counts.cache_hits++;
}

static void advance_output(void)
{
	bool freed = false;
	while (out_seq < next_seq) {
		struct puzzle *pz = slot(out_seq);
		if (pz->state != PZ_DONE)
			break;
		output_puzzle(pz);
		release(pz);
		out_seq++;
		freed = true;
	}
	if (freed)
		input_resume();
	racer_check_finished();
}

/* --- races --- */

static void dispatch(void);
static bool check_done(struct puzzle *pz);
static void escalate_waiting(void);
static bool ask_confirmation(struct puzzle *pz);

/* A puzzle without a solution: when its givens clash, it says where (the
 * answer the workers' filter mode gives). Checked only here, not on every
 * puzzle read: the workers see a clash as unsat at once (PROTOCOL.md 9),
 * and the check was an eighth of the racer's time per puzzle. */
static bool givens_clash(struct puzzle *pz)
{
	char err[GRID_ERR_MAX];
	if (grid_check_givens(&pz->item.grid, err, sizeof err) == 0)
		return false;
	snprintf(pz->text, sizeof pz->text, "line %ld: %s", pz->item.line, err);
	return true;
}

static struct proc *proc_for(const struct puzzle *pz, int spec)
{
	return proc_of(&specs[spec], pz->copy[spec]);
}

static void end_race(struct puzzle *pz, enum verdict v)
{
	if (pz->state != PZ_RACING)
		return;
	if (opt.json) /* its only reader: the clock was 2% of the racer's time */
		pz->race_ms = ms_since(pz->start_ns ? pz->start_ns : pz->dispatch_ns);
	if (v != V_SOLVED && v != V_MULTIPLE && givens_clash(pz))
		v = V_CLASH;
	set_verdict(pz, v);
	for (int i = 0; i < nspecs; i++)
		if (pz->outcome[i] == OUT_SENT)
			proc_send_cancel(proc_for(pz, i), pz->seq);
	bool freed_place = false;
	if (pz->stage == STAGE_ALL) {
		list_remove(&racing_all, pz);
		if (pz->timeout_ev)
			evtimer_del(pz->timeout_ev);
		freed_place = true;
	} else {
		counts.first_only++;
	}
	drop_solve_line(pz);
	if (pz->winner >= 0 && (v == V_SOLVED || v == V_MULTIPLE || v == V_UNSAT || v == V_CLASH)) {
		struct worker_spec *w = &specs[pz->winner];
		w->st.won++;
		w->st.won_ms += pz->winner_ms;
		if (pz->escalated) {
			w->st.won_escalated++;
			schedule_escalation_won(pz->item.grid.box, pz->winner);
		}
		if (pz->stage == STAGE_FIRST && pz->winner == pz->first_spec)
			schedule_record(pz->item.grid.box, pz->winner_ms);
		/* a verdict that needs proof is stored only when proved: an
		 * unconfirmed count keeps its (verified) solution alone */
		bool proved = pz->confirmed || !pz->nclaims;
		if (store_enabled() && v != V_CLASH && (proved || v != V_UNSAT)) {
			struct cache_entry e = {.verdict = v == V_UNSAT ? V_UNSAT : V_SOLVED,
						.uniq = !proved ? UNIQ_UNKNOWN
							: v == V_MULTIPLE ? UNIQ_MULTIPLE : pz->uniq,
						.ms = pz->winner_ms};
			snprintf(e.winner, sizeof e.winner, "%.16s", w->name);
			/* who proved it, as the store writes them: "cp,dlx" */
			snprintf(e.provers, sizeof e.provers, "%s", pz->provers);
			for (char *c = e.provers; *c; c++)
				if (*c == '+')
					*c = ',';
			if (pz->solution) {
				grid_init(&e.solution, pz->item.grid.box);
				memcpy(e.solution.cell, pz->solution, (size_t)pz->item.grid.cells);
			}
			store_put(&pz->item.grid, &e);
		}
	}
	store_race_ended(pz->seq, &pz->item.grid); /* after store_put: a claim on it goes */
	advance_output();
	if (freed_place)
		escalate_waiting();
	dispatch();
}

static bool eligible(const struct worker_spec *s, const struct puzzle *pz)
{
	int box = pz->item.grid.box;
	return box >= s->min_box && box <= s->max_box && (!opt.count || s->complete);
}

static void send_to(struct puzzle *pz, struct proc *p)
{
	struct worker_spec *s = p->spec;
	proc_send_solve(p, pz->seq, pz->solve_line, s->own_seed ? pz->solve_noseed_len : pz->solve_len);
	pz->outcome[s->index] = OUT_SENT;
	pz->copy[s->index] = (uint8_t)p->copy;
	s->st.sent++;
}

/* Offers a puzzle racing every entry to one entry: to its least busy
 * process, if one can take it now; else it joins when one can. */
static void offer(struct puzzle *pz, int spec)
{
	struct worker_spec *s = &specs[spec];
	uint8_t *o = &pz->outcome[spec];
	if (*o != OUT_NONE)
		return;
	if (s->status != SPEC_OK) {
		*o = OUT_OUT;
		return;
	}
	if (s->hello_seen && !eligible(s, pz)) {
		*o = OUT_SKIPPED;
		return;
	}
	struct proc *p = pool_pick(s, false);
	/* not behind another puzzle when the entry has a process to start:
	 * it joins when that one is up */
	if (p && p->ninflight && pool_grow(s))
		p = NULL;
	if (p && eligible(s, pz)) {
		send_to(pz, p);
		return;
	}
	if (!p && !pool_spec_starting(s))
		pool_grow(s);
	if (pool_spec_may_join(s))
		return;
	if (pz->asked >> spec & 1)
		await_push(spec, pz); /* a confirmation waits for room */
	else
		*o = OUT_SKIPPED; /* its processes are all there and full */
}

static void puzzle_timeout_cb(evutil_socket_t fd, short what, void *arg);

/* The rest of the portfolio joins (escalated: the presolver's budget ran
 * out, or it failed), or every entry races it from the start. */
static void race_all(struct puzzle *pz, bool escalated)
{
	uint64_t now = now_ns();
	pz->stage = STAGE_ALL;
	pz->escalated = escalated;
	pz->all_ns = now;
	if (!pz->start_ns)
		pz->start_ns = now;
	if (escalated)
		counts.escalated++;
	else
		counts.all_at_once++;
	list_add(&racing_all, pz);
	if (opt.timeout_s > 0) {
		if (!pz->timeout_ev && !(pz->timeout_ev = evtimer_new(base, puzzle_timeout_cb, pz)))
			die("cannot create a timer");
		struct timeval tv = ms_tv(opt.timeout_s * 1000 - ms_since(pz->start_ns));
		evtimer_add(pz->timeout_ev, &tv);
	}
	for (int i = 0; i < nspecs; i++) {
		if (escalated && pz->outcome[i] == OUT_NONE && !schedule_joins(pz->item.grid.box, i)) {
			pz->outcome[i] = OUT_SKIPPED; /* it never wins these */
			continue;
		}
		pool_start_spec(&specs[i]);
		offer(pz, i);
	}
}

/* The presolver's process p holds an escalated puzzle at its head: the
 * puzzles queued behind it there are taken back (cancelled; sent to
 * another process when the cancel is acknowledged). */
static void take_back_queued(struct proc *p)
{
	p->held = true;
	for (int i = 1; i < p->ninflight; i++) {
		struct puzzle *q = race_find(p->inflight[i].seq);
		if (q && q->state == PZ_RACING && q->stage == STAGE_FIRST && !q->requeue &&
		    q->first_spec == p->spec->index) {
			q->requeue = true;
			proc_send_cancel(p, q->seq);
		}
	}
}

static void escalate(struct puzzle *pz)
{
	int first = pz->first_spec;
	if (pz->outcome[first] == OUT_SENT) {
		struct proc *p = proc_for(pz, first);
		if (p->ninflight && p->inflight[0].seq == pz->seq)
			take_back_queued(p);
	}
	race_all(pz, true);
}

/* A puzzle taken back from a held process: raced again from the start. */
static void requeue(struct puzzle *pz)
{
	pz->requeue = pz->overdue = false;
	pz->outcome[pz->first_spec] = OUT_NONE;
	pz->first_spec = -1;
	pz->stage = STAGE_WAITING;
	pz->start_ns = 0;
	pz->state = PZ_WAITING;
	list_add(&requeued, pz);
}

/* Ends the race when nobody is left in it and nobody can still join. */
static bool check_done(struct puzzle *pz)
{
	if (pz->state != PZ_RACING)
		return true;
	if (pz->stage == STAGE_FIRST) {
		if (pz->outcome[pz->first_spec] == OUT_SENT)
			return false;
		escalate(pz); /* the presolver gave up, failed or died */
	}
	bool tried = false, open = false;
	for (int i = 0; i < nspecs; i++) {
		/* asked to confirm before its hello said it is not complete */
		if (pz->outcome[i] == OUT_NONE && (pz->asked >> i & 1) && specs[i].hello_seen &&
		    !specs[i].complete)
			pz->outcome[i] = OUT_SKIPPED;
		if (pz->outcome[i] == OUT_NONE)
			offer(pz, i);
		enum outcome o = pz->outcome[i];
		if (o == OUT_SENT || o == OUT_NONE)
			open = true;
		else if (o != OUT_SKIPPED && o != OUT_OUT)
			tried = true;
	}
	if (open)
		return false;
	if (pz->nclaims) {
		/* a claim nobody confirmed yet: another program is asked, or
		 * the claim stands unconfirmed */
		if (ask_confirmation(pz))
			return check_done(pz);
		return true;
	}
	enum verdict v = V_UNSOLVED;
	if (!tried) {
		v = V_UNSUPPORTED;
		snprintf(pz->text, sizeof pz->text, "line %ld: no available %sworker takes %dx%d grids%s",
			 pz->item.line, opt.count ? "complete " : "", pz->item.grid.side, pz->item.grid.side,
			 opt.count ? " (--count)" : "");
	} else if (opt.timeout_s > 0 && pz->timeout_reason) {
		v = V_TIMEOUT;
	}
	end_race(pz, v);
	return true;
}

/* "solve SEQ GRID fields seed=S\n", from the codec into a buffer kept
 * from puzzle to puzzle, then copied at its length. */
static void make_solve_line(struct puzzle *pz)
{
	static char *line;
	if (!line) {
		line = xmalloc(PROTO_LINE_MAX);
		/* the fields every solve of this run carries (the seed: init) */
		solve_fields.count = opt.count; /* --count=K; 0: none */
		if (opt.timeout_s > 0)
			solve_fields.limit_ms = (long)(opt.timeout_s * 1000 + 0.5);
		solve_fields.progress_ms = progress_interval_ms();
	}
	char id[24], *d = id + sizeof id;
	uint64_t seq = pz->seq;
	*--d = '\0';
	do
		*--d = (char)('0' + seq % 10);
	while ((seq /= 10));
	int n = msg_write_solve(line, PROTO_LINE_MAX, d, &pz->item.grid, &solve_fields, &pz->solve_noseed_len);
	if (n < 0)
		die("a solve line over the protocol's limit");
	pz->solve_line = (size_t)n < sizeof pz->solve_small ? pz->solve_small : xmalloc((size_t)n + 1);
	memcpy(pz->solve_line, line, (size_t)n + 1);
	pz->solve_len = (size_t)n;
}

/* The GPU worker, when it can take a batch of a deep queue as their first
 * stage (the presolver's processes being full). */
static struct proc *gpu_for(const struct puzzle *pz)
{
	uint64_t waiting = next_seq - dispatch_seq + (uint64_t)requeued.n;
	for (int i = 0; i < nspecs; i++) {
		struct worker_spec *s = &specs[i];
		int deep = (s->batch < GPU_DEPTH ? s->batch : GPU_DEPTH) / 2;
		if (!s->gpu || s->status != SPEC_OK || !s->hello_seen || s->batch < 2 ||
		    !eligible(s, pz) || waiting < (uint64_t)deep)
			continue;
		struct proc *p = pool_pick(s, true);
		if (p && p->ninflight < 2 * s->batch && p->ninflight < GPU_DEPTH)
			return p;
	}
	return NULL;
}

static void start_gpu_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	if (stopped)
		return;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu)
			pool_start_spec(&specs[i]);
}

/* Starts a puzzle's race: to its presolver alone when it has one, or to
 * every entry. False when no process can take it yet (it waits). */
static bool start_race(struct puzzle *pz)
{
	int first = schedule_presolver(&pz->item.grid);
	struct proc *p = NULL;
	if (first >= 0) {
		struct worker_spec *s = &specs[first];
		if (s->hello_seen && !eligible(s, pz)) {
			first = -1;
		} else {
			pool_start_spec(s);
			p = pool_pick(s, true);
			/* a process with work queued: one more is started while
			 * this one takes the puzzle, when the work so far pays
			 * for its start (pool_may_grow) */
			if (p ? p->ninflight >= GROW_AT && pool_may_grow(s) : !pool_spec_starting(s))
				pool_grow(s);
			/* a process is filled up to DEPTH once it is down to half of
			 * it: lines go out, and answers come back, several at a time */
			if (p && (p->ninflight >= (s->batch > 1 ? GPU_DEPTH : DEPTH) ||
				  (p->ninflight > DEPTH / 2 && !p->filling)))
				p = NULL;
			if (!p && (p = gpu_for(pz)))
				first = p->spec->index;
			if (!p)
				return false;
		}
	}
	if (first < 0 && racing_all.n >= all_cap)
		return false;
	static long raced;
	if (++raced == 2) {
		/* a GPU worker starts in the background once a second puzzle is
		 * raced (the cache answered none of them) and the run has gone on
		 * for GPU_START_MS: one puzzle alone, a file of cache hits, or a
		 * file done sooner than a CUDA context is set up costs the
		 * presolvers' start only (without a device, its start and its "no
		 * device" were a fifth of a 10,000-puzzle run's wall time, taking
		 * a core while the presolvers started) */
		static const struct timeval later = {0, GPU_START_MS * 1000};
		if (event_base_once(base, -1, EV_TIMEOUT, start_gpu_cb, NULL, &later) < 0)
			die("cannot schedule an event");
	}
	if (!pz->solve_line)
		make_solve_line(pz);
	pz->state = PZ_RACING;
	if (opt.json)
		pz->dispatch_ns = now_ns();
	if (first < 0) {
		race_all(pz, false);
		check_done(pz);
		return true;
	}
	pz->stage = STAGE_FIRST;
	pz->first_spec = first;
	send_to(pz, p);
	p->filling = p->ninflight < DEPTH;
	return true;
}

static void dispatch(void)
{
	if (stopped)
		return;
	/* a race that ends at once dispatches again from inside: loop instead */
	if (dispatching) {
		dispatch_again = true;
		return;
	}
	dispatching = true;
	uint64_t was = dispatch_seq;
	do {
		dispatch_again = false;
		while (requeued.head >= 0 && !stopped) {
			struct puzzle *pz = &ring[requeued.head];
			list_remove(&requeued, pz);
			if (!start_race(pz)) {
				/* back to the front of the list */
				int idx = (int)(pz - ring);
				pz->prev = -1;
				pz->next = requeued.head;
				if (requeued.head >= 0)
					ring[requeued.head].prev = idx;
				else
					requeued.tail = idx;
				requeued.head = idx;
				requeued.n++;
				goto out;
			}
		}
		while (dispatch_seq < next_seq && !stopped) {
			struct puzzle *pz = slot(dispatch_seq);
			if (pz->state != PZ_WAITING) {
				dispatch_seq++;
				continue;
			}
			if (!start_race(pz))
				break;
			dispatch_seq++;
		}
	} while (dispatch_again && !stopped);
out:
	dispatching = false;
	if (dispatch_seq != was)
		input_resume(); /* room to read ahead again */
}

/* --- puzzles from the input --- */

/* What the cache said of a puzzle: true when that answers it. bad: why
 * an entry found was bad (it is dropped, and the puzzle raced). */
static bool take_cached(struct puzzle *pz, enum cache_result r, const struct cache_entry *e,
			const char *bad)
{
	if (bad) {
		char pre[PATH_MAX_PREFIX];
		warn("cache: a bad entry for %sline %ld (%s): dropped, the puzzle is raced",
		     where_prefix(pz, pre, sizeof pre), pz->item.line, bad);
	}
	if (r != CACHE_HIT)
		return false;
	/* what needs proof counts only with its provers: an unsat without
	 * them is raced, a uniqueness without them is not known */
	bool proved = e->provers[0] != '\0';
	enum uniqueness uniq = proved ? e->uniq : UNIQ_UNKNOWN;
	/* --count needs to know uniqueness, and an entry knows no count
	 * beyond "at least 2": one that does not know as much as asked is
	 * raced */
	if ((e->verdict == V_UNSAT && !proved) ||
	    (opt.count && e->verdict == V_SOLVED &&
	     (uniq == UNIQ_UNKNOWN || (uniq == UNIQ_MULTIPLE && opt.count > 2)))) {
		stats_cache_add(CC_HITS, -1);
		stats_cache_add(CC_MISSES, 1);
		return false;
	}
	pz->cache_hit = true;
	pz->winner_ms = e->ms;
	pz->uniq = uniq;
	if (opt.count)
		pz->count = e->verdict == V_UNSAT ? 0 : uniq == UNIQ_UNIQUE ? 1 : 2;
	snprintf(pz->winner_name, sizeof pz->winner_name, "%s", e->winner);
	/* a verdict that needs proof is served as confirmed only when the
	 * store says who proved it (an entry of 0.1 does not) */
	snprintf(pz->provers, sizeof pz->provers, "%.39s", e->provers);
	for (char *c = pz->provers; *c; c++)
		if (*c == ',')
			*c = '+';
	pz->confirmed = proved;
	if (e->verdict == V_UNSAT) {
		set_verdict(pz, givens_clash(pz) ? V_CLASH : V_UNSAT);
		return true;
	}
	keep_solution(pz, e->solution.cell);
	set_verdict(pz, opt.count && uniq == UNIQ_MULTIPLE ? V_MULTIPLE : V_SOLVED);
	return true;
}

void race_add(enum stream_event ev, const char *input_name)
{
	struct puzzle *pz = race_next_slot();
	next_claimed = false;
	pz->seq = next_seq++;
	pz->state = PZ_WAITING;
	pz->input_name = input_name;
	pz->verdict = V_PENDING;
	pz->text[0] = '\0';
	pz->solution = NULL;
	pz->solve_line = NULL;
	pz->cache_hit = false;
	pz->winner = -1;
	pz->winner_name[0] = '\0';
	pz->winner_ms = pz->race_ms = 0;
	pz->stage = STAGE_WAITING;
	pz->first_spec = -1;
	pz->requeue = pz->escalated = pz->overdue = false;
	pz->start_ns = pz->dispatch_ns = pz->all_ns = 0;
	pz->prev = pz->next = -1;
	pz->uniq = UNIQ_UNKNOWN;
	pz->count = 0;
	pz->timeout_reason = false;
	pz->nclaims = 0;
	pz->confirmed = false;
	pz->asked = 0;
	pz->awaiting = -1;
	pz->provers[0] = '\0';
	memset(pz->outcome, 0, sizeof pz->outcome);
	memset(pz->outcome_ms, 0, sizeof pz->outcome_ms);
	counts.puzzles++;

	if (ev == STREAM_INVALID) {
		set_verdict(pz, V_INVALID);
		return;
	}
	/* the cache, else the race (a clash of givens is found when a race or
	 * the cache says there is no solution: givens_clash) */
	if (store_enabled()) {
		pz->state = PZ_LOOKUP; /* race_cache_reply() goes on */
		lookups++;
		store_lookup(pz->seq, &pz->item.grid);
	}
}

/* GLUE (the cache's interface, store.h): the answers of a turn of the loop
 * are followed by one dispatch and one output pass, not one each. */
static void on_reply_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	reply_tick_due = false;
	if (stopped)
		return;
	dispatch();
	advance_output();
}

/* The store's answer to a look-up (store_reply_fn): the puzzle is done, or
 * raced (after the puzzles taken back, which go first anyway). */
void race_cache_reply(void *owner, uint64_t seq, enum cache_result r, const struct cache_entry *e,
		      const char *bad)
{
	(void)owner;
	struct puzzle *pz = race_find(seq);
	if (!pz || pz->state != PZ_LOOKUP || stopped)
		return;
	pz->state = PZ_WAITING;
	lookups--;
	if (!take_cached(pz, r, e, bad))
		list_add(&requeued, pz);
	if (!reply_tick_due) {
		if (!reply_tick && !(reply_tick = event_new(base, -1, 0, on_reply_tick, NULL)))
			die("out of memory");
		reply_tick_due = true;
		event_active(reply_tick, EV_TIMEOUT, 0);
	}
}

void race_batch_begin(void)
{
	store_batch_begin();
}

void race_batch_end(void)
{
	store_batch_end();
	dispatch();
	advance_output();
}

/* --- what the workers say --- */

/* Parses and verifies an answer; a wrong one costs the worker this race. */
static bool verify_answer(struct puzzle *pz, struct worker_spec *s, const char *text,
			  struct grid *sol)
{
	char why[GRID_ERR_MAX];
	struct notation nt;
	size_t len = text ? strlen(text) : 0;
	bool read = text && (msg_parse_grid(text, len, pz->item.grid.box, sol) == 0 ||
			     /* not the protocol's form of this size: the general
			      * reader, which says why */
			     grid_parse(text, len, sol, &nt, why, sizeof why) == 0);
	if (!read || !grid_verify(&pz->item.grid, sol, why, sizeof why)) {
		s->st.wrong++;
		if (!s->warned_wrong) {
			char pre[PATH_MAX_PREFIX];
			s->warned_wrong = true;
			warn("worker %s sent a wrong answer for %sline %ld (%s); it loses that race", s->label,
			     where_prefix(pz, pre, sizeof pre), pz->item.line, text ? why : "no grid");
		}
		return false;
	}
	return true;
}

static void win(struct puzzle *pz, struct worker_spec *s, const struct grid *sol, double ms,
		enum verdict v, enum uniqueness uniq)
{
	pz->outcome[s->index] = OUT_WON;
	pz->winner = s->index;
	pz->winner_ms = ms;
	pz->uniq = uniq;
	if (sol)
		keep_solution(pz, sol->cell);
	end_race(pz, v);
}

/* --- verdicts that need proof ---
 *
 * A solution proves itself (it is verified). "No solution" and a count do
 * not: such a claim is final only when a complete worker of another
 * program makes the same one (PROTOCOL.md 7). A claim that a verified
 * solution disproves, or a "unique" beside a different verified solution,
 * is a lie: its entry is left out for the rest of the run. Two claims that
 * disagree with no proof either way ask a third program. */

static bool same_program(int a, int b)
{
	return strcmp(specs[a].name, specs[b].name) == 0;
}

/* An entry that may confirm pz's claims: complete (or not started yet, so
 * not known), of a program none of the claimers is, taking this size, not
 * asked yet; one that races the puzzle already comes first. */
static int confirmer_for(const struct puzzle *pz)
{
	int best = -1, box = pz->item.grid.box;
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		if (s->status != SPEC_OK || (pz->asked >> i & 1) || (s->hello_seen && !s->complete) ||
		    (s->hello_seen && !eligible(s, pz)))
			continue;
		bool other = true;
		for (int k = 0; k < pz->nclaims; k++)
			other &= !same_program(i, pz->claim_spec[k]);
		if (!other)
			continue;
		if (pz->outcome[i] == OUT_SENT)
			return i;
		if ((pz->outcome[i] == OUT_NONE || pz->outcome[i] == OUT_SKIPPED) &&
		    (best < 0 || schedule_confirmer_rank(box, i) < schedule_confirmer_rank(box, best)))
			best = i;
	}
	return best;
}

struct leave_out {
	int spec;
	char why[sizeof specs[0].why];
};

static void leave_out_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	struct leave_out *l = arg;
	pool_spec_out(&specs[l->spec], SPEC_DISABLED, false, "%s", l->why);
	free(l);
}

/* A worker caught lying: out of this race now, and left out of the
 * portfolio once the message being handled is done with. */
static void caught_lying(struct puzzle *pz, int liar, const char *claim, int witness)
{
	struct worker_spec *s = &specs[liar];
	char pre[PATH_MAX_PREFIX];
	pz->outcome[liar] = OUT_WRONG;
	s->st.wrong++;
	counts.liars++;
	for (int k = 0; k < pz->nclaims; k++)
		if (pz->claim_spec[k] == liar) {
			pz->claim_spec[k] = pz->claim_spec[pz->nclaims - 1];
			pz->claim_verdict[k] = pz->claim_verdict[pz->nclaims - 1];
			pz->claim_count[k] = pz->claim_count[pz->nclaims - 1];
			pz->nclaims--;
			k--;
		}
	if (s->status != SPEC_OK || s->warned_wrong)
		return;
	s->warned_wrong = true;
	const char *by = witness >= 0 ? specs[witness].label : "two different verified solutions";
	warn("worker %s: claimed %s for %sline %ld, disproved by %s; left out from now on", s->label,
	     claim, where_prefix(pz, pre, sizeof pre), pz->item.line, by);
	struct leave_out *l = xmalloc(sizeof *l);
	l->spec = liar;
	snprintf(l->why, sizeof l->why, "claimed %s for line %ld, disproved by %.40s", claim,
		 pz->item.line, by);
	static const struct timeval now;
	if (event_base_once(base, -1, EV_TIMEOUT, leave_out_cb, l, &now) < 0)
		die("cannot schedule an event");
}

/* The claims of verdict v on the table are lies (a verified solution, or
 * two different ones, disprove them): their workers are caught, the claims
 * dropped. Returns whether by (a claimer) was one of them. */
static bool claims_disproved(struct puzzle *pz, enum verdict v, const char *claim, int witness, int by)
{
	bool caught_by = false;
	for (int k = 0; k < pz->nclaims;)
		if (pz->claim_verdict[k] == v) {
			caught_by |= pz->claim_spec[k] == by;
			caught_lying(pz, pz->claim_spec[k], claim, witness); /* drops claim k */
		} else {
			k++;
		}
	return caught_by;
}

static void end_claimed(struct puzzle *pz, int who, enum verdict v, bool confirmed)
{
	for (int k = 0; k < pz->nclaims; k++)
		if (pz->claim_spec[k] != who)
			specs[pz->claim_spec[k]].st.late++;
	for (int k = 0; k < pz->nclaims; k++)
		if (pz->claim_spec[k] == who)
			pz->count = pz->claim_count[k];
	pz->confirmed = confirmed;
	if (confirmed)
		counts.confirmed++;
	else
		counts.unconfirmed++;
	pz->winner = who;
	pz->winner_ms = pz->outcome_ms[who];
	pz->outcome[who] = v == V_UNSAT ? OUT_UNSAT : OUT_COUNTED;
	if (v != V_UNSAT)
		pz->uniq = v == V_MULTIPLE ? UNIQ_MULTIPLE : UNIQ_UNIQUE;
	end_race(pz, v);
}

/* Asks one more program to confirm pz's claims; false when none is left
 * (the first claim then stands, unconfirmed). The confirmer's processes
 * being full, the puzzle waits for room there (a claim per puzzle, as
 * --count makes, would otherwise pass each confirmation on to the next,
 * slower, program). */
static bool ask_confirmation(struct puzzle *pz)
{
	int c = confirmer_for(pz);
	if (c < 0) {
		end_claimed(pz, pz->claim_spec[0], (enum verdict)pz->claim_verdict[0], false);
		return false;
	}
	pz->asked |= 1u << c;
	if (pz->stage != STAGE_ALL) {
		/* the presolver's claim: the confirmer races it alone */
		pz->stage = STAGE_ALL;
		pz->all_ns = now_ns();
		list_add(&racing_all, pz);
		for (int i = 0; i < nspecs; i++)
			if (pz->outcome[i] == OUT_NONE && i != c)
				pz->outcome[i] = OUT_SKIPPED;
	}
	if (pz->outcome[c] == OUT_SKIPPED)
		pz->outcome[c] = OUT_NONE;
	if (pz->outcome[c] == OUT_NONE) {
		pool_start_spec(&specs[c]);
		offer(pz, c);
	}
	return true;
}

/* A complete worker's claim: v is V_UNSAT, or (--count) V_SOLVED for one
 * solution or V_MULTIPLE, with sol verified. */
static void claim(struct puzzle *pz, struct worker_spec *s, enum verdict v, const struct grid *sol,
		  long count)
{
	int who = s->index;
	size_t cells = (size_t)pz->item.grid.cells;
	pz->outcome[who] = v == V_UNSAT ? OUT_UNSAT : OUT_COUNTED;
	if (v == V_UNSAT) {
		if (givens_clash(pz)) {
			/* the racer's own proof */
			snprintf(pz->provers, sizeof pz->provers, "%s", s->name);
			end_claimed(pz, who, V_UNSAT, true);
			return;
		}
		if (pz->solution) {
			caught_lying(pz, who, "no solution", pz->winner);
			check_done(pz);
			return;
		}
	} else {
		claims_disproved(pz, V_UNSAT, "no solution", who, -1);
		if (pz->solution && memcmp(pz->solution, sol->cell, cells) != 0) {
			/* two different solutions: more than one, proved here;
			 * whoever said "one" lied */
			int by = v == V_MULTIPLE ? who : pz->winner;
			snprintf(pz->provers, sizeof pz->provers, "%s+%s", specs[pz->winner].name, s->name);
			if (v == V_SOLVED)
				caught_lying(pz, who, "a unique solution", -1);
			else if (by != who)
				s->st.late++;
			if (claims_disproved(pz, V_SOLVED, "a unique solution", -1, by))
				by = who;
			pz->count = v == V_MULTIPLE ? count : 2;
			end_claimed(pz, by, V_MULTIPLE, true);
			return;
		}
		if (!pz->solution) {
			keep_solution(pz, sol->cell);
			pz->winner = who; /* whose solution it is */
		}
	}
	for (int k = 0; k < pz->nclaims; k++)
		if (same_program(pz->claim_spec[k], who)) {
			s->st.late++;
			check_done(pz); /* the same program again proves nothing */
			return;
		}
	for (int k = 0; k < pz->nclaims; k++)
		if (pz->claim_verdict[k] == v && pz->claim_count[k] == count) {
			snprintf(pz->provers, sizeof pz->provers, "%s+%s", specs[pz->claim_spec[k]].name,
				 s->name);
			s->st.late++;
			end_claimed(pz, pz->claim_spec[k], v, true);
			return;
		}
	if (pz->nclaims < MAX_CLAIMS) {
		pz->claim_spec[pz->nclaims] = (int8_t)who;
		pz->claim_count[pz->nclaims] = count;
		pz->claim_verdict[pz->nclaims++] = (uint8_t)v;
	}
	ask_confirmation(pz);
	check_done(pz);
}

/* A final message about a race already decided (its answer not yet out). */
static void late_message(struct puzzle *pz, struct worker_spec *s, const struct msg *m)
{
	uint8_t *o = &pz->outcome[s->index];
	static struct grid sol;
	switch (m->type) {
	case MSG_CANCELLED:
		s->st.cancelled++;
		if (*o == OUT_SENT)
			*o = OUT_CANCELLED;
		break;
	case MSG_SOLUTION:
		*o = verify_answer(pz, s, m->argv[0], &sol) ? OUT_LATE : OUT_WRONG;
		if (*o == OUT_LATE)
			s->st.late++;
		break;
	case MSG_COUNT:
		*o = OUT_LATE;
		s->st.late++;
		break;
	case MSG_UNSAT:
		if ((pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE) && s->complete) {
			caught_lying(pz, s->index, "no solution", pz->winner);
		} else if (pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE) {
			*o = OUT_WRONG;
			s->st.wrong++;
		} else {
			*o = OUT_UNSAT;
			s->st.late++;
		}
		break;
	case MSG_GAVEUP:
		*o = OUT_GAVEUP;
		s->st.gaveup++;
		break;
	default:
		*o = OUT_ERROR;
		s->st.errors++;
		break;
	}
}

/* A worker's ms= field: digits, a point, digits (strtod, with its locale
 * and exponents, was a few percent of the racer's time per puzzle). */
static double parse_ms(const char *s)
{
	if (!s)
		return 0;
	double v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	if (*s == '.') {
		double scale = 1;
		for (s++; *s >= '0' && *s <= '9'; s++)
			v += (*s - '0') * (scale /= 10);
	}
	return v;
}

static void handle_message(struct proc *p, uint64_t seq, struct msg *m);

void race_message(struct proc *p, uint64_t seq, struct msg *m)
{
	handle_message(p, seq, m);
	/* its process has room again: the confirmations waiting for it go */
	struct await_queue *q = &awaiting[p->spec->index];
	while (q->n && !stopped && pool_pick(p->spec, false)) {
		struct puzzle *pz = race_find(q->seq[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->n--;
		if (!pz || pz->awaiting != p->spec->index)
			continue;
		pz->awaiting = -1;
		if (pz->state != PZ_RACING || pz->outcome[p->spec->index] != OUT_NONE)
			continue;
		offer(pz, p->spec->index);
		if (pz->outcome[p->spec->index] != OUT_SENT)
			break; /* a process of its own is starting: its hello offers it */
	}
}

static void handle_message(struct proc *p, uint64_t seq, struct msg *m)
{
	struct worker_spec *s = p->spec;
	struct puzzle *pz = race_find(seq);
	if (!pz || stopped) {
		/* --stats: every request sent is counted once; after the end,
		 * race_stop counted it as open */
		if (!stopped)
			*(m->type == MSG_CANCELLED ? &s->st.cancelled
			  : m->type == MSG_GAVEUP  ? &s->st.gaveup
			  : m->type == MSG_ERROR   ? &s->st.errors
						   : &s->st.late) += 1;
		dispatch();
		return;
	}
	if (m->type == MSG_CANCELLED && pz->state == PZ_RACING && pz->stage == STAGE_FIRST && pz->requeue) {
		/* taken back from a held process */
		s->st.cancelled++;
		requeue(pz);
		dispatch();
		return;
	}
	double ms = parse_ms(msg_field(m, "ms"));
	pz->outcome_ms[s->index] = (float)ms;
	if (pz->state != PZ_RACING) {
		late_message(pz, s, m);
		dispatch(); /* its process has room again */
		return;
	}
	uint8_t *o = &pz->outcome[s->index];
	static struct grid sol;
	switch (m->type) {
	case MSG_SOLUTION:
		if (opt.count) {
			/* a solution does not answer count=2 */
			*o = OUT_ERROR;
			s->st.errors++;
			break;
		}
		if (verify_answer(pz, s, m->argv[0], &sol)) {
			claims_disproved(pz, V_UNSAT, "no solution", s->index, -1);
			win(pz, s, &sol, ms, V_SOLVED, UNIQ_UNKNOWN);
			return;
		}
		*o = OUT_WRONG;
		break;
	case MSG_COUNT: {
		char *end;
		long long k = strtoll(m->argv[0], &end, 10);
		if (!opt.count || !s->complete || *end || k < 0) {
			*o = OUT_ERROR;
			s->st.errors++;
			break;
		}
		if (k == 0) {
			claim(pz, s, V_UNSAT, NULL, 0);
			return;
		}
		if (verify_answer(pz, s, m->argc >= 2 ? m->argv[1] : NULL, &sol)) {
			claim(pz, s, k == 1 ? V_SOLVED : V_MULTIPLE, &sol, k < opt.count ? (long)k : opt.count);
			return;
		}
		*o = OUT_WRONG;
		break;
	}
	case MSG_UNSAT:
		if (!s->complete) {
			/* only a complete worker can prove it */
			*o = OUT_WRONG;
			s->st.wrong++;
			break;
		}
		claim(pz, s, V_UNSAT, NULL, 0);
		return;
	case MSG_GAVEUP:
		*o = OUT_GAVEUP;
		s->st.gaveup++;
		if (m->argc >= 1 && strcmp(m->argv[0], "timeout") == 0)
			pz->timeout_reason = true;
		break;
	case MSG_CANCELLED:
		*o = OUT_CANCELLED;
		s->st.cancelled++;
		break;
	default:
		*o = OUT_ERROR;
		s->st.errors++;
		break;
	}
	check_done(pz);
}

void race_progress(struct proc *p, uint64_t seq, struct msg *m)
{
	if (!stopped)
		progress_message(p, seq, m);
}

void race_lost(struct proc *p, uint64_t seq, enum outcome why)
{
	if (!stopped)
		p->spec->st.lost++; /* after the end, race_stop counted it as open */
	struct puzzle *pz = race_find(seq);
	if (!pz || stopped || pz->state != PZ_RACING)
		return;
	uint8_t *o = &pz->outcome[p->spec->index];
	if (*o != OUT_SENT || pz->copy[p->spec->index] != p->copy)
		return;
	if (pz->stage == STAGE_FIRST && pz->requeue) {
		requeue(pz);
		dispatch();
		return;
	}
	*o = (uint8_t)why;
	check_done(pz);
}

/* Every puzzle racing all entries: check_done (which offers it to whoever
 * can take it now). */
static void check_racing_all(void)
{
	for (int i = racing_all.head; i >= 0;) {
		int next = ring[i].next;
		check_done(&ring[i]);
		i = next;
	}
}

/* A GPU worker up takes batches of a deep queue (gpu_for): the input reads
 * further ahead for it (not before: without a device, it says so only
 * after the first reads). */
static void set_read_ahead(void)
{
	read_ahead = READ_AHEAD;
	for (int i = 0; i < nspecs; i++)
		if (specs[i].gpu && specs[i].status == SPEC_OK && specs[i].hello_seen && specs[i].batch > 1)
			read_ahead += 2 * GPU_DEPTH;
	input_resume();
}

void race_worker_ready(struct proc *p)
{
	schedule_forget();
	if (stopped)
		return;
	set_read_ahead();
	check_racing_all();
	dispatch();
	(void)p;
}

void race_pool_changed(void)
{
	schedule_forget();
	if (stopped)
		return;
	set_read_ahead();
	check_racing_all();
	dispatch();
}

static void stage_timer_cb(evutil_socket_t fd, short what, void *arg);

/* Whether pz, the head of presolver process p, may escalate: not while
 * the cancel that takes it back (take_back_queued) is on its way. Its
 * "cancelled" races it again from the start; escalated before, its race
 * could end with every other entry skipped and that cancel its only
 * outcome: "unsolved" (seen on 16 cores, the timer's event before the
 * read's). */
static bool may_escalate(const struct puzzle *pz, const struct proc *p)
{
	return pz && pz->state == PZ_RACING && pz->stage == STAGE_FIRST && pz->first_spec == p->spec->index &&
	       !pz->requeue;
}

/* The presolver's clock of a puzzle starts when its process begins it. A
 * pending timer is left as it is: it fires at an earlier head's deadline
 * and is set again then (one timer event per budget, not per puzzle). */
static void arm_stage_timer(struct proc *p, const struct puzzle *pz)
{
	if (!p->stage_timer && !(p->stage_timer = evtimer_new(base, stage_timer_cb, p)))
		die("cannot create a timer");
	if (evtimer_pending(p->stage_timer, NULL))
		return;
	double budget = schedule_budget_ms(pz->item.grid.box), ran = ms_since(p->head_ns);
	if (p->spec->batch > 1)
		budget *= 10; /* a GPU batch: its launch, not one puzzle's search */
	/* an overdue puzzle looks again a budget later (escalate_waiting is
	 * the quick way in) */
	double ms = pz->overdue ? budget : budget - ran;
	if (opt.timeout_s > 0 && opt.timeout_s * 1000 - ran < ms)
		ms = opt.timeout_s * 1000 - ran;
	struct timeval tv = ms_tv(ms);
	evtimer_add(p->stage_timer, &tv);
}

void race_head_started(struct proc *p)
{
	if (stopped || !p->ninflight)
		return;
	struct puzzle *pz = race_find(p->inflight[0].seq);
	p->held = false;
	if (!pz || pz->state != PZ_RACING)
		return;
	if (!pz->start_ns)
		pz->start_ns = p->head_ns;
	if (pz->stage == STAGE_ALL)
		p->held = pz->escalated && pz->first_spec == p->spec->index;
	else if (pz->overdue)
		p->held = true;
	else if (may_escalate(pz, p))
		arm_stage_timer(p, pz);
}

static void stage_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct proc *p = arg;
	if (stopped || !proc_ready(p) || !p->ninflight)
		return;
	struct puzzle *pz = race_find(p->inflight[0].seq);
	if (!may_escalate(pz, p))
		return;
	double ran = ms_since(p->head_ns), budget = schedule_budget_ms(pz->item.grid.box);
	if (p->spec->batch > 1)
		budget *= 10;
	if (opt.timeout_s > 0 && ran + 0.5 >= opt.timeout_s * 1000) {
		end_race(pz, V_TIMEOUT);
	} else if (ran + 0.05 >= budget) {
		if (racing_all.n < escalate_cap) {
			escalate(pz);
			check_done(pz);
			return;
		}
		/* no place yet: the puzzles behind it go elsewhere, and it waits
		 * (escalate_waiting, or this timer again) */
		if (!pz->overdue) {
			pz->overdue = true;
			take_back_queued(p);
		}
		arm_stage_timer(p, pz);
	} else {
		arm_stage_timer(p, pz);
	}
}

/* A place among the escalated puzzles is free: the longest overdue puzzle
 * takes it. */
static void escalate_waiting(void)
{
	while (!stopped && racing_all.n < escalate_cap) {
		struct puzzle *oldest = NULL;
		for (int i = 0; i < nprocs; i++) {
			struct proc *p = &procs[i];
			if (!proc_ready(p) || !p->ninflight)
				continue;
			struct puzzle *pz = race_find(p->inflight[0].seq);
			if (may_escalate(pz, p) && pz->overdue && (!oldest || pz->start_ns < oldest->start_ns))
				oldest = pz;
		}
		if (!oldest)
			return;
		escalate(oldest);
		check_done(oldest);
	}
}

static void puzzle_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct puzzle *pz = arg;
	if (!stopped && pz->state == PZ_RACING && pz->stage == STAGE_ALL)
		end_race(pz, V_TIMEOUT);
}
