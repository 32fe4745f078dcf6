/* The puzzles between the input and the output (queue.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "racer/attempt.h"
#include "racer/options.h"
#include "racer/puzzle.h"
#include "racer/queue.h"
#include "racer/ring.h"
#include "racer/stats.h"
#include "racer/util.h"
#include "racer/workers.h"

static struct ring ring;
static void (*wake)(void);
static uint64_t dispatch_seq; /* the next puzzle in input order to race */
static uint64_t read_ahead;
static bool stopped;
/* taken back from a held process: raced first, oldest first */
static struct puzzle *again_head, *again_tail;
static uint64_t nagain;
static uint64_t nlookups;     /* puzzles whose look-up is on its way */
/* Look-ups on their way at most (store_lookups_ahead), beside the
 * read-ahead of puzzles to race: a warm run's batches to the cache are
 * this long (a wake-up of the racer and the cache's process a batch),
 * while a cold run's misses still wait within the read-ahead. */
static uint64_t lookups_ahead;

void queue_init(uint64_t slots, uint64_t ahead, void (*wake_fn)(void))
{
	wake = wake_fn;
	read_ahead = ahead;
	lookups_ahead = store_lookups_ahead();
	ring_init(&ring, sizeof(struct puzzle), slots + lookups_ahead);
	dispatch_seq = ring.next;
}

void queue_set_read_ahead(uint64_t n)
{
	read_ahead = n;
}

uint64_t queue_room(void)
{
	/* the puzzles not yet raced in their read-ahead (a look-up the
	 * dispatch has not passed yet among them, a miss it has among those
	 * taken back), and the look-ups in theirs */
	uint64_t waiting = queue_waiting(), free = ring_room(&ring);
	uint64_t ahead = waiting < read_ahead ? read_ahead - waiting : 0;
	uint64_t looking = nlookups < lookups_ahead ? lookups_ahead - nlookups : 0;
	if (ahead > looking)
		ahead = looking;
	return free < ahead ? free : ahead;
}

/* What the input's reader fills: one, kept apart from the slots, since it
 * has the room of the largest grid (4 kB) and a slot does not. */
static struct stream_item next_item;

struct stream_item *queue_next_item(void)
{
	return &next_item;
}

/* The dispatch passes by what is not waiting to race (a look-up on its
 * way, a decided puzzle): the next one in input order that is. */
static struct puzzle *first_waiting(void)
{
	while (dispatch_seq < ring.next) {
		struct puzzle *pz = ring_at(&ring, dispatch_seq);
		if (pz->state == PZ_WAITING)
			return pz;
		dispatch_seq++;
	}
	return NULL;
}

void queue_add(enum stream_event ev, const char *input_name)
{
	struct puzzle *pz = ring_next(&ring);
	uint64_t seq = ring_commit(&ring);
	puzzle_init(pz, seq, input_name, nspecs);
	puzzle_take_item(pz, &next_item, ev == STREAM_INVALID);
	stats_add(RC_PUZZLES, 1);
	if (ev == STREAM_INVALID) {
		puzzle_decide(pz, V_INVALID);
		return;
	}
	/* the cache, else the race (a clash of givens is found when a race or
	 * the cache says there is no solution) */
	if (store_enabled()) {
		puzzle_enter(pz, PZ_LOOKUP);
		nlookups++;
		store_lookup(seq, pz->grid);
		/* passed by at once (unless its answer came): it waits for none */
		(void)first_waiting();
		return;
	}
	puzzle_enter(pz, PZ_WAITING);
}

void queue_batch_begin(void)
{
	store_batch_begin();
}

void queue_batch_end(void)
{
	store_batch_end();
	wake();
}

/* Copies a name from a cache entry, cut to size. Not snprintf: on a warm
 * run it is per hit, and snprintf's format machinery was a fifth of the
 * racer's time there. */
static void copy_name(char *dst, size_t size, const char *src)
{
	size_t i = 0;
	for (; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* What the cache said of a puzzle: true when that answers it. */
static bool take_cached(struct puzzle *pz, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	if (bad) {
		char where[PUZZLE_WHERE_MAX];
		warn("cache: a bad entry for %sline %ld (%s): dropped, the puzzle is raced",
		     puzzle_where(pz, where, sizeof where), pz->line, bad);
	}
	if (r != CACHE_HIT)
		return false;
	/* what needs proof counts only with its provers: an unsat without them
	 * is raced, a uniqueness without them is not known */
	bool proved = e->provers[0] != '\0';
	enum uniqueness uniq = proved ? e->uniq : UNIQ_UNKNOWN;
	/* --count needs to know uniqueness, and an entry knows no count beyond
	 * "at least 2": one that does not know as much as asked is raced */
	if ((e->verdict == V_UNSAT && !proved) ||
	    (opt.count && e->verdict == V_SOLVED && (uniq == UNIQ_UNKNOWN || (uniq == UNIQ_MULTIPLE && opt.count > 2)))) {
		stats_cache_add(CC_HITS, -1);
		stats_cache_add(CC_MISSES, 1);
		return false;
	}
	pz->cache_hit = true;
	pz->winner_ms = e->ms;
	pz->uniq = uniq;
	if (opt.count)
		pz->count = e->verdict == V_UNSAT ? 0 : uniq == UNIQ_UNIQUE ? 1 : 2;
	copy_name(pz->winner_name, sizeof pz->winner_name, e->winner);
	/* a verdict that needs proof is served as confirmed only when the store
	 * says who proved it */
	copy_name(pz->claims.provers, sizeof pz->claims.provers, e->provers);
	for (char *c = pz->claims.provers; *c; c++)
		if (*c == ',')
			*c = '+';
	pz->claims.confirmed = proved;
	if (e->verdict == V_UNSAT) {
		puzzle_decide(pz, puzzle_givens_clash(pz) ? V_CLASH : V_UNSAT);
		return true;
	}
	puzzle_keep_solution(pz, e->solution.cell);
	puzzle_decide(pz, opt.count && uniq == UNIQ_MULTIPLE ? V_MULTIPLE : V_SOLVED);
	return true;
}

void queue_cached(void *owner, uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	(void)owner;
	struct puzzle *pz = ring_at(&ring, seq);
	if (!pz || pz->state != PZ_LOOKUP || stopped)
		return;
	nlookups--;
	if (r == CACHE_TIMEOUT) {
		/* its --timeout spent waiting for another racer's claim */
		puzzle_decide(pz, V_TIMEOUT);
	} else if (!take_cached(pz, r, e, bad)) {
		puzzle_enter(pz, PZ_WAITING);
		/* raced in input order, or first when the order has passed it */
		if (seq < dispatch_seq)
			queue_again(pz);
	}
	wake();
}

struct puzzle *queue_peek(void)
{
	return again_head ? again_head : first_waiting();
}

void queue_take(struct puzzle *pz)
{
	if (pz == again_head) {
		again_head = pz->next_again;
		if (!again_head)
			again_tail = NULL;
		pz->next_again = NULL;
		nagain--;
	} else {
		dispatch_seq++;
	}
}

void queue_again(struct puzzle *pz)
{
	pz->next_again = NULL;
	if (again_tail)
		again_tail->next_again = pz;
	else
		again_head = pz;
	again_tail = pz;
	nagain++;
	wake();
}

uint64_t queue_waiting(void)
{
	return ring.next - dispatch_seq + nagain;
}

struct puzzle *queue_find(uint64_t seq)
{
	return ring_at(&ring, seq);
}

const struct puzzle *queue_next_done(void)
{
	const struct puzzle *pz = ring_at(&ring, ring.out);
	return pz && pz->state == PZ_DONE ? pz : NULL;
}

void queue_release_done(void)
{
	struct puzzle *pz = ring_at(&ring, ring.out);
	for (int i = 0; i < nspecs; i++) {
		struct attempt *a = pz->att[i];
		if (!a)
			continue;
		if (a->proc >= 0)
			a->pz = NULL; /* in flight: the worker's last word frees it */
		else
			attempt_free(a);
	}
	puzzle_enter(pz, PZ_FREE);
	puzzle_release(pz);
	ring_release_oldest(&ring);
}

bool queue_all_done(void)
{
	return ring_empty(&ring);
}

void queue_stop(void)
{
	stopped = true;
}

void queue_free(void)
{
	if (!ring.mem)
		return;
	for (uint64_t seq = ring.out; seq < ring.next; seq++)
		puzzle_release(ring_at(&ring, seq));
	ring_free(&ring);
	attempt_free_all();
}
