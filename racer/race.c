/* Puzzles and their races (DESIGN.md "The race").
 *
 * Every puzzle read gets a slot in a ring, numbered by its sequence number
 * (also its request id). A puzzle that the input, the givens check or the
 * cache answers is done at once; the others wait for a set of workers with
 * room (each set keeps up to DEPTH puzzles in flight: pipelined solves),
 * are sent to every worker of the set that takes them, and end with the
 * first verified solution, an unsat from a complete worker, a count
 * (--count), everyone failing, or --timeout. Workers that start (or start
 * again) while a race runs join it. Answers leave in input order. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "racer.h"

/* Puzzles in flight per set of workers: enough that a worker always has the
 * next one queued while the racer reads its answer. */
#define DEPTH 16
/* Room for "FILE: " in messages. */
#define PATH_MAX_PREFIX (PATH_MAX + 8)

struct race_counts counts;

static struct puzzle *ring;
static uint64_t ring_cap; /* a power of two */
static uint64_t next_seq, out_seq, dispatch_seq;
static bool stopped, dispatching, dispatch_again;
static char seed_field[40];

struct set_state {
	int inflight;
	int head, tail;      /* the racing puzzles, oldest first (slot indices) */
	struct event *timer; /* --timeout of the oldest */
};
static struct set_state *sets;

static struct puzzle *slot(uint64_t seq)
{
	return &ring[seq & (ring_cap - 1)];
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

static void set_timer_cb(evutil_socket_t fd, short what, void *arg);

void race_init(void)
{
	uint64_t want = (uint64_t)nsets * DEPTH * 4 + 256;
	ring_cap = 512;
	while (ring_cap < want)
		ring_cap *= 2;
	ring = xcalloc(ring_cap, sizeof *ring);
	sets = xcalloc((size_t)nsets, sizeof *sets);
	for (int i = 0; i < nsets; i++) {
		sets[i].head = sets[i].tail = -1;
		sets[i].timer = evtimer_new(base, set_timer_cb, &sets[i]);
		if (!sets[i].timer)
			die("cannot create a timer");
	}
	next_seq = out_seq = dispatch_seq = 1;
	if (opt.seed_set)
		snprintf(seed_field, sizeof seed_field, " seed=%llu", (unsigned long long)opt.seed);
}

/* Keeps a copy of the solution's cells: in the slot itself for grids up to
 * 16x16, so that the common case costs no allocation. */
static void keep_solution(struct puzzle *pz, const uint8_t *cells)
{
	size_t n = (size_t)pz->item.grid.cells;
	pz->solution = n <= sizeof pz->solution_small ? pz->solution_small : xmalloc(n);
	memcpy(pz->solution, cells, n);
}

static void release(struct puzzle *pz)
{
	if (pz->solution != pz->solution_small)
		free(pz->solution);
	pz->solution = NULL;
	free(pz->solve_line);
	pz->solve_line = NULL;
	pz->state = PZ_FREE;
}

void race_free(void)
{
	if (!ring)
		return;
	/* only the slots in use: the others were released, and touching them
	 * all would fault in the whole ring's pages for nothing */
	for (uint64_t seq = out_seq; seq < next_seq; seq++)
		release(slot(seq));
	for (int i = 0; i < nsets; i++)
		event_free(sets[i].timer);
	free(ring);
	free(sets);
	ring = NULL;
}

void race_stop(void)
{
	stopped = true;
	for (int i = 0; sets && i < nsets; i++)
		evtimer_del(sets[i].timer);
}

int race_free_slots(void)
{
	return (int)(ring_cap - (next_seq - out_seq));
}

struct puzzle *race_next_slot(void)
{
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

/* --- the sets' lists of racing puzzles, and their clocks --- */

static void start_clock(int set)
{
	struct set_state *st = &sets[set];
	if (st->head < 0) {
		evtimer_del(st->timer);
		return;
	}
	struct puzzle *pz = &ring[st->head];
	if (!pz->start_ns)
		pz->start_ns = now_ns();
	if (opt.timeout_s > 0 && !stopped) {
		double left = opt.timeout_s * 1000 - ms_since(pz->start_ns);
		if (left < 0)
			left = 0;
		struct timeval tv = {(time_t)(left / 1000), (suseconds_t)((long)(left * 1000) % 1000000)};
		evtimer_add(st->timer, &tv);
	}
}

static void link_racing(struct puzzle *pz)
{
	struct set_state *st = &sets[pz->set];
	int idx = (int)(pz - ring);
	pz->prev = st->tail;
	pz->next = -1;
	if (st->tail >= 0)
		ring[st->tail].next = idx;
	else
		st->head = idx;
	st->tail = idx;
	st->inflight++;
	if (st->head == idx)
		start_clock(pz->set);
}

static void unlink_racing(struct puzzle *pz)
{
	struct set_state *st = &sets[pz->set];
	int idx = (int)(pz - ring);
	bool was_head = st->head == idx;
	if (pz->prev >= 0)
		ring[pz->prev].next = pz->next;
	else
		st->head = pz->next;
	if (pz->next >= 0)
		ring[pz->next].prev = pz->prev;
	else
		st->tail = pz->prev;
	pz->prev = pz->next = -1;
	st->inflight--;
	if (was_head)
		start_clock(pz->set);
}

/* --- races --- */

static void dispatch(void);

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

static void end_race(struct puzzle *pz, enum verdict v)
{
	if (pz->state != PZ_RACING)
		return;
	pz->race_ms = ms_since(pz->start_ns ? pz->start_ns : pz->dispatch_ns);
	if (v != V_SOLVED && v != V_MULTIPLE && givens_clash(pz))
		v = V_CLASH;
	set_verdict(pz, v);
	for (int i = 0; i < nspecs; i++)
		if (pz->outcome[i] == OUT_SENT)
			pool_send_cancel(proc_of(pz->set, i), pz->seq);
	unlink_racing(pz);
	free(pz->solve_line);
	pz->solve_line = NULL;
	if (pz->winner >= 0 && (v == V_SOLVED || v == V_MULTIPLE || v == V_UNSAT)) {
		struct worker_spec *w = &specs[pz->winner];
		w->st.won++;
		w->st.won_ms += pz->winner_ms;
		if (cache_enabled()) {
			struct cache_entry e = {.verdict = v == V_UNSAT ? V_UNSAT : V_SOLVED,
						.uniq = v == V_MULTIPLE ? UNIQ_MULTIPLE : pz->uniq,
						.ms = pz->winner_ms};
			snprintf(e.winner, sizeof e.winner, "%s", w->name);
			if (pz->solution) {
				grid_init(&e.solution, pz->item.grid.box);
				memcpy(e.solution.cell, pz->solution, (size_t)pz->item.grid.cells);
			}
			cache_put(&pz->item.grid, &e);
		}
	}
	advance_output();
	dispatch();
}

static bool eligible(const struct worker_spec *s, const struct puzzle *pz)
{
	int box = pz->item.grid.box;
	return box >= s->min_box && box <= s->max_box && (!opt.count || s->complete);
}

/* Sends the puzzle to one worker of its set, if it can take it now. */
static void offer(struct puzzle *pz, struct proc *p)
{
	struct worker_spec *s = p->spec;
	uint8_t *o = &pz->outcome[s->index];
	if (*o != OUT_NONE)
		return;
	if (s->status != SPEC_OK) {
		*o = OUT_OUT;
		return;
	}
	if (!proc_ready(p))
		return; /* it joins when it is */
	if (!eligible(s, pz) || !pool_can_send(p)) {
		*o = OUT_SKIPPED;
		return;
	}
	pool_send_solve(p, pz->seq, pz->solve_line, s->own_seed ? pz->solve_noseed_len : pz->solve_len);
	*o = OUT_SENT;
	s->st.sent++;
}

/* Ends the race when nobody is left in it and nobody can still join. */
static bool check_done(struct puzzle *pz)
{
	if (pz->state != PZ_RACING)
		return true;
	bool tried = false;
	for (int i = 0; i < nspecs; i++) {
		enum outcome o = pz->outcome[i];
		if (o == OUT_SENT)
			return false;
		if (o == OUT_NONE) {
			struct proc *p = proc_of(pz->set, i);
			if (proc_ready(p)) {
				offer(pz, p);
				if (pz->outcome[i] == OUT_SENT)
					return false;
			} else if (proc_may_join(p)) {
				return false;
			} else {
				pz->outcome[i] = OUT_OUT;
			}
			continue;
		}
		if (o != OUT_SKIPPED && o != OUT_OUT)
			tried = true;
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

/* Appends n bytes to a line under construction. */
static char *put(char *at, const void *s, size_t n)
{
	memcpy(at, s, n);
	return at + n;
}

static void start_race(struct puzzle *pz, int set)
{
	/* the fields every solve of this run carries, then --seed's (which an
	 * entry with a seed of its own does not get): built once */
	static char *grid, fields[96];
	static size_t gridsz, nfields, nseed;
	if (!grid) {
		gridsz = (size_t)GRID_MAX_CELLS * 3 + 1;
		grid = xmalloc(gridsz);
		int k = snprintf(fields, sizeof fields, "%s", opt.count ? " count=2" : "");
		if (opt.timeout_s > 0)
			k += snprintf(fields + k, sizeof fields - (size_t)k, " limit_ms=%ld",
				      (long)(opt.timeout_s * 1000 + 0.5));
		if (progress_interval_ms())
			k += snprintf(fields + k, sizeof fields - (size_t)k, " progress_ms=%ld",
				      progress_interval_ms());
		nfields = (size_t)k;
		nseed = strlen(seed_field);
	}
	pz->state = PZ_RACING;
	pz->set = set;
	pz->dispatch_ns = now_ns();
	/* "solve SEQ GRID fields seed=S\n", put together by hand: snprintf was a
	 * tenth of the racer's time per puzzle */
	size_t n = (size_t)msg_format_grid(&pz->item.grid, grid, gridsz);
	char digits[24], *d = digits + sizeof digits;
	uint64_t seq = pz->seq;
	do
		*--d = (char)('0' + seq % 10);
	while ((seq /= 10));
	pz->solve_line = xmalloc(6 + sizeof digits + 1 + n + nfields + nseed + 2);
	char *at = put(pz->solve_line, "solve ", 6);
	at = put(at, d, (size_t)(digits + sizeof digits - d));
	at = put(at, " ", 1);
	at = put(at, grid, n);
	at = put(at, fields, nfields);
	pz->solve_noseed_len = (size_t)(at - pz->solve_line);
	at = put(at, seed_field, nseed);
	at = put(at, "\n", 1);
	pz->solve_len = (size_t)(at - pz->solve_line);
	link_racing(pz);
	for (int i = 0; i < nspecs; i++)
		offer(pz, proc_of(set, i));
	check_done(pz);
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
	do {
		dispatch_again = false;
		while (dispatch_seq < next_seq && !stopped) {
			struct puzzle *pz = slot(dispatch_seq);
			if (pz->state != PZ_WAITING) {
				dispatch_seq++;
				continue;
			}
			pool_start();
			int best = -1;
			for (int i = 0; i < nsets; i++)
				if (sets[i].inflight < DEPTH && (best < 0 || sets[i].inflight < sets[best].inflight))
					best = i;
			if (best < 0)
				break;
			dispatch_seq++;
			start_race(pz, best);
		}
	} while (dispatch_again && !stopped);
	dispatching = false;
}

/* --- puzzles from the input --- */

void race_add(enum stream_event ev, const char *input_name)
{
	struct puzzle *pz = slot(next_seq);
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
	pz->set = -1;
	pz->start_ns = pz->dispatch_ns = 0;
	pz->prev = pz->next = -1;
	pz->uniq = UNIQ_UNKNOWN;
	pz->timeout_reason = false;
	memset(pz->outcome, 0, sizeof pz->outcome);
	memset(pz->outcome_ms, 0, sizeof pz->outcome_ms);
	counts.puzzles++;

	if (ev == STREAM_INVALID) {
		set_verdict(pz, V_INVALID);
		return;
	}
	/* the cache, else the race (a clash of givens is found when a race or
	 * the cache says there is no solution: givens_clash) */
	char pre[PATH_MAX_PREFIX];
	if (cache_enabled()) {
		static struct cache_entry e;
		char why[GRID_ERR_MAX + 64];
		switch (cache_get(&pz->item.grid, &e, why, sizeof why)) {
		case CACHE_HIT:
			/* --count needs to know uniqueness; an entry that does not is raced */
			if (opt.count && e.verdict == V_SOLVED && e.uniq == UNIQ_UNKNOWN) {
				cache_counts.hits--;
				cache_counts.misses++;
				break;
			}
			pz->cache_hit = true;
			pz->winner_ms = e.ms;
			pz->uniq = e.uniq;
			snprintf(pz->winner_name, sizeof pz->winner_name, "%s", e.winner);
			if (e.verdict == V_UNSAT) {
				set_verdict(pz, givens_clash(pz) ? V_CLASH : V_UNSAT);
				return;
			}
			keep_solution(pz, e.solution.cell);
			set_verdict(pz, opt.count && e.uniq == UNIQ_MULTIPLE ? V_MULTIPLE : V_SOLVED);
			return;
		case CACHE_BAD:
			warn("cache: a bad entry for %sline %ld (%s): dropped, the puzzle is raced",
			     where_prefix(pz, pre, sizeof pre), pz->item.line, why);
			cache_delete(&pz->item.grid);
			break;
		case CACHE_MISS:
			break;
		}
	}
}

void race_batch_begin(void)
{
	cache_read_begin();
}

void race_batch_end(void)
{
	cache_read_end();
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
	if (!text || grid_parse(text, strlen(text), sol, &nt, why, sizeof why) < 0 ||
	    !grid_verify(&pz->item.grid, sol, why, sizeof why)) {
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
		if (pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE) {
			*o = OUT_WRONG;
			s->st.wrong++;
		} else {
			*o = OUT_UNSAT;
			s->st.unsat++;
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

void race_message(struct proc *p, uint64_t seq, struct msg *m)
{
	struct worker_spec *s = p->spec;
	struct puzzle *pz = race_find(seq);
	if (!pz || stopped) {
		if (m->type == MSG_CANCELLED)
			s->st.cancelled++;
		return;
	}
	double ms = parse_ms(msg_field(m, "ms"));
	pz->outcome_ms[s->index] = (float)ms;
	if (pz->state != PZ_RACING) {
		late_message(pz, s, m);
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
			pz->outcome[s->index] = OUT_UNSAT;
			pz->winner = s->index;
			pz->winner_ms = ms;
			s->st.unsat++;
			end_race(pz, V_UNSAT);
			return;
		}
		if (verify_answer(pz, s, m->argc >= 2 ? m->argv[1] : NULL, &sol)) {
			win(pz, s, &sol, ms, k == 1 ? V_SOLVED : V_MULTIPLE, k == 1 ? UNIQ_UNIQUE : UNIQ_MULTIPLE);
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
		*o = OUT_UNSAT;
		pz->winner = s->index;
		pz->winner_ms = ms;
		s->st.unsat++;
		end_race(pz, V_UNSAT);
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
	struct puzzle *pz = race_find(seq);
	if (!pz || stopped)
		return;
	uint8_t *o = &pz->outcome[p->spec->index];
	if (*o == OUT_SENT)
		*o = (uint8_t)why;
	if (pz->state == PZ_RACING)
		check_done(pz);
}

void race_worker_ready(struct proc *p)
{
	if (stopped)
		return;
	struct set_state *st = &sets[p->set];
	for (int i = st->head; i >= 0; i = ring[i].next)
		offer(&ring[i], p);
	for (int i = st->head; i >= 0;) {
		int next = ring[i].next;
		check_done(&ring[i]);
		i = next;
	}
	dispatch();
}

void race_pool_changed(void)
{
	if (stopped)
		return;
	for (int set = 0; set < nsets; set++)
		for (int i = sets[set].head; i >= 0;) {
			int next = ring[i].next;
			check_done(&ring[i]);
			i = next;
		}
	dispatch();
}

static void set_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	struct set_state *st = arg;
	if (stopped || st->head < 0)
		return;
	struct puzzle *pz = &ring[st->head];
	if (ms_since(pz->start_ns) + 0.5 >= opt.timeout_s * 1000)
		end_race(pz, V_TIMEOUT);
	else
		start_clock((int)(st - sets));
}
