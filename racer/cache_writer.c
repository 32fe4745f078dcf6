/* The LMDB store's writer (cache_lmdb.h): in a helper process of its own,
 * it takes the racer's writes (entries, their uses, the bad entries to
 * drop) and commits them in batches: BATCH_MS after the first, at OPS_MAX
 * queued, when asked (a flush), and at the end.
 *
 * Its queue is bounded (OPS_MAX operations, ARENA_MAX bytes of values):
 * when full it commits before it reads on, and the racer's own queue of
 * what it sends here is bounded too (cache.c waits for it). The keys are
 * hashes, so a batch's entries land on leaves all over the tree, and every
 * leaf an entry lands on is written again: the larger the batch, the more
 * entries a leaf written takes. So a batch is sorted by key and written in
 * transactions of CHUNK consecutive keys: each takes its own stretch of
 * leaves, as many as one transaction of the whole batch would, while
 * LMDB's copies of the pages a transaction changes (held in memory until
 * it commits) stay a chunk's. (A chunk is a whole batch as the sizes are:
 * a cold run of 200,000 easy puzzles took 5.1 s with chunks of 16384, 3.5
 * s with 32768, the writer's memory at most some 60 MB.) LMDB writing into a damaged file can
 * overrun its own buffers (glibc then aborts on a corrupt heap): here that
 * costs this process.
 *
 * Size: LMDB writes copies of the pages a transaction changes, so the
 * entries leave room for two transactions' copies (reserve_pages): a few
 * percent of the map while the store has few leaves, up to two thirds
 * when a chunk's keys land on a different leaf each. The least recently
 * used entries are evicted when the entries leave less (apply), at most
 * EVICT_MAX a transaction. Each transaction has its own processor budget
 * (helper_budget): a large store's eviction is work, not a loop. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "racer/cache_lmdb.h"

#define BATCH_MS 250
/* reserve_pages counts a transaction as at least this many writes */
#define RESERVE_OPS 1024
#define OPS_MAX 32768
#define ARENA_MAX ((size_t)16 << 20)
#define CHUNK 32768
/* The most entries one transaction evicts: as many as a chunk writes, so
 * that eviction keeps up with a cold run, while a transaction's copies of
 * the pages it changes (held in this process's memory until it commits)
 * and its processor time stay a chunk's. */
#define EVICT_MAX CHUNK
/* The most the next transaction evicts: halved while transactions run out
 * of room (MDB_MAP_FULL: a store far over a --cache-size given since has
 * room for the page copies of few deletions at once), doubled back after
 * each that commits. */
static size_t evict_most = EVICT_MAX;

enum op { OP_PUT, OP_DELETE, OP_TOUCH };
struct pending {
	enum op op;
	uint32_t seq;   /* its place in the order they came */
	uint8_t key[CACHE_KEY_LEN];
	size_t at, len; /* OP_PUT: the value, in the arena */
};

static struct lmdb_store s;
static struct pending *ops;
static size_t nops;
static uint8_t *arena;
static size_t arena_len;
static uint64_t first_ns; /* when the oldest queued operation came */
/* a commit's first tick: an operation's is this and its place in the
 * order they came (the queue is written in key order, in chunks) */
static uint64_t commit_base;
static bool commit_based;
/* The ages a transaction puts, appended at its end in the order of their
 * ticks (the ages database is ordered by tick, and every tick of a commit
 * is newer than the store's): aged[seq] is the operation whose age is
 * still to be put; a tick is its seq's, so seq order is tick order. */
static struct pending **aged;

static void queue(enum op op, const uint8_t *key, const uint8_t *value, size_t len)
{
	if (!nops)
		first_ns = now_ns();
	struct pending *p = &ops[nops];
	p->seq = (uint32_t)nops++;
	p->op = op;
	memcpy(p->key, key, CACHE_KEY_LEN);
	p->at = arena_len;
	p->len = len;
	if (len)
		memcpy(arena + arena_len, value, len);
	arena_len += len;
}

/* Pages the three databases hold (and the two meta pages): what is in use.
 * The rest of the file is free pages. */
static size_t used_pages(MDB_txn *txn)
{
	size_t used = 2;
	MDB_dbi dbs[] = {0 /* LMDB's free list */, s.dbi, s.uses_dbi, s.ages_dbi};
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0] - !s.has_ages; i++) {
		MDB_stat st;
		if (mdb_stat(txn, dbs[i], &st) == 0)
			used += st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
	}
	return used;
}

static int cmp_tick(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Deletes the least recently used entries, oldest first from the ages,
 * until pages in use are at most target (looked at every 16) or most are
 * gone. An age whose use has moved on (a racer before the ages wrote it)
 * is dropped. */
static int evict_by_age(MDB_txn *txn, size_t target, size_t most, long *evicted)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, s.ages_dbi, &cur);
	if (rc != 0)
		return rc;
	size_t gone = 0, looked = 0;
	MDB_val a, k;
	for (int op = MDB_FIRST; gone < most && (rc = mdb_cursor_get(cur, &a, &k, (MDB_cursor_op)op)) == 0;
	     op = MDB_NEXT) {
		if (++looked % 16 == 0 && used_pages(txn) <= target)
			break;
		if (looked % 4096 == 0)
			helper_budget();
		uint8_t key[CACHE_KEY_LEN] = {0}, age[8] = {0};
		if (k.mv_size == CACHE_KEY_LEN)
			memcpy(key, k.mv_data, CACHE_KEY_LEN);
		if (a.mv_size == 8)
			memcpy(age, a.mv_data, 8);
		MDB_val mk = {sizeof key, key}, u;
		int got = mdb_get(txn, s.uses_dbi, &mk, &u);
		uint8_t now[8] = {0};
		if (got == 0 && u.mv_size == 8)
			lmdb_age_key(cache_le64(u.mv_data), now);
		/* (MDB_NEXT after a delete gives the entry that followed) */
		rc = mdb_cursor_del(cur, 0);
		if (rc != 0)
			break;
		if (got != 0 || memcmp(now, age, 8) != 0)
			continue; /* stale */
		rc = mdb_del(txn, s.uses_dbi, &mk, NULL);
		if (rc == 0 || rc == MDB_NOTFOUND)
			rc = mdb_del(txn, s.dbi, &mk, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
		if (rc != 0)
			break;
		gone++;
		(*evicted)++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* Deletes the least recently used entries until pages in use are at most
 * target, or most entries are gone (the next transaction over the mark
 * goes on): in rounds, each the oldest share of the entries that the pages
 * over target are of all, and at least a 32nd of them (the ticks read,
 * sorted, and the entries at or below the share's last tick deleted). The
 * keys are hashes, so deleting entries empties leaves only bit by bit and
 * the pages in use fall slowly: each round reads every tick again, so each
 * has a processor budget of its own, and the rounds are few. */
static int evict(MDB_txn *txn, size_t target, size_t most, long *evicted)
{
	int rc = 0;
	size_t used, gone = 0;
	if (s.has_ages)
		return evict_by_age(txn, target, most, evicted);
	while (rc == 0 && gone < most && (used = used_pages(txn)) > target) {
		helper_budget();
		MDB_stat st;
		rc = mdb_stat(txn, s.uses_dbi, &st);
		if (rc != 0 || st.ms_entries == 0)
			break;
		size_t count = st.ms_entries, n = count * (used - target) / used;
		n = n > count / 32 ? n : count / 32;
		n = n ? n : 1;
		n = n < most - gone ? n : most - gone;
		uint64_t *ticks = malloc(count * sizeof *ticks);
		if (!ticks)
			return ENOMEM;
		MDB_cursor *cur;
		rc = mdb_cursor_open(txn, s.uses_dbi, &cur);
		if (rc != 0) {
			free(ticks);
			break;
		}
		MDB_val k, v;
		size_t got = 0;
		while (rc == 0 && got < count && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
			ticks[got++] = v.mv_size == 8 ? cache_le64(v.mv_data) : 0;
		if (rc == MDB_NOTFOUND)
			rc = 0;
		qsort(ticks, got, sizeof *ticks, cmp_tick);
		uint64_t last = got ? ticks[(n < got ? n : got) - 1] : 0;
		free(ticks);
		size_t deleted = 0;
		for (int op = MDB_FIRST; rc == 0 && deleted < n; op = MDB_NEXT) {
			rc = mdb_cursor_get(cur, &k, &v, (MDB_cursor_op)op);
			if (rc != 0)
				break;
			if ((v.mv_size == 8 ? cache_le64(v.mv_data) : 0) > last)
				continue;
			uint8_t key[CACHE_KEY_LEN] = {0};
			if (k.mv_size == CACHE_KEY_LEN)
				memcpy(key, k.mv_data, CACHE_KEY_LEN);
			MDB_val mk = {sizeof key, key};
			/* (MDB_NEXT after a delete gives the entry that followed) */
			rc = mdb_cursor_del(cur, 0);
			if (rc == 0 && k.mv_size == CACHE_KEY_LEN)
				rc = mdb_del(txn, s.dbi, &mk, NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
			deleted++;
			(*evicted)++;
		}
		if (rc == MDB_NOTFOUND)
			rc = 0;
		mdb_cursor_close(cur);
		gone += deleted;
		if (deleted == 0)
			break;
	}
	return rc;
}

struct write {
	size_t from, n;   /* the pending operations to write */
	long written, evicted;
	bool evict_only;
	int rc;
};

/* Pages one transaction may change in a database of stat st when it
 * writes or deletes n entries: a leaf each (no more leaves than there
 * are, and a new one per split), and the branches above them. */
static size_t changed_pages(const MDB_stat *st, size_t n)
{
	size_t leaves = n < st->ms_leaf_pages ? n : st->ms_leaf_pages;
	return leaves + n / 8 + 1 + st->ms_branch_pages + st->ms_depth;
}

/* Room the entries leave in the map for LMDB's copies: a transaction
 * writes a new copy of every page it changes, and the pages the one before
 * freed are reused only after it. Each of the two changes, in the entries
 * and in their uses, the pages of the entries it writes and evicts (and
 * their overflow pages): at most two thirds of the map. */
static size_t reserve_pages(MDB_txn *txn, const struct write *w)
{
	MDB_stat st, us, as = {0};
	if (mdb_stat(txn, s.dbi, &st) != 0 || mdb_stat(txn, s.uses_dbi, &us) != 0 ||
	    (s.has_ages && mdb_stat(txn, s.ages_dbi, &as) != 0))
		return s.cap_pages * 2 / 3;
	size_t overflow = 0;
	for (size_t i = w->from; i < w->from + w->n; i++) {
		size_t pages = (ops[i].len + 64) / st.ms_psize;
		overflow = pages > overflow ? pages : overflow;
	}
	size_t n = (w->n > RESERVE_OPS ? w->n : RESERVE_OPS) + EVICT_MAX;
	size_t reserve = 2 * (changed_pages(&st, n) + changed_pages(&us, n) + (s.has_ages ? changed_pages(&as, n) : 0) +
			      n * overflow);
	return reserve < s.cap_pages * 2 / 3 ? reserve : s.cap_pages * 2 / 3;
}

static int cmp_key(const void *a, const void *b)
{
	const struct pending *p = a, *q = b;
	int c = cache_key_order(p->key, CACHE_KEY_LEN, q->key, CACHE_KEY_LEN);
	return c ? c : (p->seq > q->seq) - (p->seq < q->seq);
}

/* The queue in key order, and a key's operations in the order they came:
 * a counting sort on the keys' first SORT_BITS bits into spare, whose
 * buckets then hold a key or two of a batch of OPS_MAX (the keys are
 * hashes), then one pass of insertion sort, which moves an entry only
 * within its bucket. qsort was 2.2% of a first run's CPU: glibc's merge
 * sort copies the 40-byte entries, some 15 compares each. */
#define SORT_BITS 16
#define SORT_FROM 64
static struct pending *spare;  /* OPS_MAX entries */
static uint32_t *bucket_end;   /* (1 << SORT_BITS) + 1 */

static void sort_ops(void)
{
	if (nops < SORT_FROM) {
		qsort(ops, nops, sizeof *ops, cmp_key);
		return;
	}
	memset(bucket_end, 0, ((1u << SORT_BITS) + 1) * sizeof *bucket_end);
	for (size_t i = 0; i < nops; i++)
		bucket_end[cache_key_bucket(ops[i].key, SORT_BITS) + 1]++;
	for (unsigned b = 0; b < 1u << SORT_BITS; b++)
		bucket_end[b + 1] += bucket_end[b];
	for (size_t i = 0; i < nops; i++)
		spare[bucket_end[cache_key_bucket(ops[i].key, SORT_BITS)]++] = ops[i];
	for (size_t i = 1; i < nops; i++) {
		struct pending x = spare[i];
		size_t j = i;
		for (; j > 0 && cmp_key(&spare[j - 1], &x) > 0; j--)
			spare[j] = spare[j - 1];
		spare[j] = x;
	}
	struct pending *sorted = spare;
	spare = ops;
	ops = sorted;
}

/* p's key used at t (0: gone), its age put at the transaction's end */
static int set_use(MDB_txn *txn, struct pending *p, uint64_t t, bool fresh)
{
	uint64_t was;
	int rc = lmdb_set_use(&s, txn, p->key, t, fresh, &was);
	if (!s.has_ages)
		return rc;
	/* an age of this transaction's own, not put yet, is not put at all */
	uint64_t seq = was - commit_base - 1;
	if (was > commit_base && seq < nops && aged[seq] && memcmp(aged[seq]->key, p->key, CACHE_KEY_LEN) == 0)
		aged[seq] = NULL;
	if (rc == 0 && t)
		aged[p->seq] = p;
	return rc;
}

/* The transaction's ages, oldest first: each appended after the last,
 * with no search (a tick another racer's writer took in between is put
 * the usual way). */
static int put_ages(MDB_txn *txn)
{
	unsigned flags = MDB_APPEND;
	int rc = 0;
	for (size_t seq = 0; seq < nops; seq++) {
		struct pending *p = aged[seq];
		aged[seq] = NULL;
		if (!p || rc != 0)
			continue;
		uint8_t a[8];
		lmdb_age_key(commit_base + p->seq + 1, a);
		MDB_val ak = {sizeof a, a}, k = {sizeof p->key, p->key};
		rc = mdb_put(txn, s.ages_dbi, &ak, &k, flags);
		if (rc == MDB_KEYEXIST && flags) {
			flags = 0;
			rc = mdb_put(txn, s.ages_dbi, &ak, &k, 0);
		}
	}
	return rc;
}

static void apply(MDB_txn *txn, struct write *w)
{
	MDB_val mk = {sizeof META_KEY - 1, META_KEY}, mv;
	uint64_t tick = 1;
	w->rc = mdb_get(txn, s.dbi, &mk, &mv);
	if (w->rc == 0 && mv.mv_size == META_LEN)
		tick = cache_le64((const uint8_t *)mv.mv_data + 8);
	else if (w->rc == 0 || w->rc == MDB_NOTFOUND)
		w->rc = 0;
	if (!commit_based) {
		commit_base = tick;
		commit_based = true;
	}
	for (size_t i = w->from; i < w->from + w->n && w->rc == 0 && !w->evict_only; i++) {
		struct pending *p = &ops[i];
		/* in key order, the values are anywhere in the arena: the
		 * next few are asked for while this one is put */
		if (i + 8 < w->from + w->n && ops[i + 8].len)
			__builtin_prefetch(arena + ops[i + 8].at);
		uint64_t t = commit_base + p->seq + 1;
		MDB_val k = {sizeof p->key, p->key}, v;
		uint8_t *value = arena + p->at;
		int rc;
		switch (p->op) {
		case OP_DELETE:
			rc = mdb_del(txn, s.dbi, &k, NULL);
			w->rc = rc == 0 ? set_use(txn, p, 0, false) : rc == MDB_NOTFOUND ? 0 : rc;
			break;
		case OP_TOUCH:
			rc = mdb_get(txn, s.dbi, &k, &v);
			w->rc = rc == 0 ? set_use(txn, p, t, false) : rc == MDB_NOTFOUND ? 0 : rc;
			break;
		case OP_PUT:
			cache_set_written_at(value, p->len, t);
			v.mv_data = value;
			v.mv_size = p->len;
			rc = mdb_put(txn, s.dbi, &k, &v, MDB_NOOVERWRITE);
			bool fresh = rc == 0;
			if (rc == MDB_KEYEXIST) {
				/* v is the stored value now */
				if (cache_keep_stored(v.mv_data, v.mv_size, value, p->len)) {
					w->rc = set_use(txn, p, t, false);
					break;
				}
				v.mv_data = value;
				v.mv_size = p->len;
				rc = mdb_put(txn, s.dbi, &k, &v, 0);
			}
			w->rc = rc == 0 ? set_use(txn, p, t, fresh) : rc;
			w->written += rc == 0;
			break;
		}
	}
	int aged_rc = put_ages(txn); /* (and the list emptied, whatever failed) */
	if (w->rc == 0)
		w->rc = aged_rc;
	if (commit_base + nops > tick)
		tick = commit_base + nops;
	if (w->rc == 0)
		lmdb_write_meta(&s, txn, tick, &w->rc);
	size_t high = s.cap_pages - reserve_pages(txn, w), low = high - high / 8;
	if (w->rc == 0 && (w->evict_only || used_pages(txn) > high))
		w->rc = evict(txn, w->evict_only ? low / 2 : low, evict_most, &w->evicted);
}

static void write_batch(struct write *w)
{
	MDB_txn *txn;
	/* a budget per transaction: each is bounded (CHUNK entries written,
	 * EVICT_MAX evicted), a commit of a full queue is not */
	helper_budget();
	w->rc = mdb_txn_begin(s.env, NULL, 0, &txn);
	if (w->rc == MDB_MAP_RESIZED) {
		mdb_env_set_mapsize(s.env, 0);
		w->rc = mdb_txn_begin(s.env, NULL, 0, &txn);
	}
	if (w->rc != 0)
		return;
	apply(txn, w);
	lmdb_end_write(&s, txn, &w->rc);
	if (w->rc == MDB_MAP_FULL && evict_most > 16)
		evict_most /= 2;
	else if (w->rc == 0 && evict_most < EVICT_MAX)
		evict_most *= 2;
}

/* The queue in key order, a transaction a chunk. When the map is full (a
 * chunk larger than the room left for page copies), entries are evicted in
 * a transaction of their own and the queue written in smaller parts: the
 * run's answers are never lost to a full store, only old entries. Returns
 * LMDB's code of the last transaction tried. */
static int write_all(long *written, long *evicted)
{
	sort_ops();
	commit_based = false;
	size_t done = 0, part = CHUNK;
	while (done < nops) {
		size_t end = done + (part < nops - done ? part : nops - done);
		/* a key's operations in one transaction, in their order */
		while (end < nops && end > done && memcmp(ops[end].key, ops[end - 1].key, CACHE_KEY_LEN) == 0)
			end++;
		struct write w = {.from = done, .n = end - done};
		write_batch(&w);
		if (w.rc == MDB_MAP_FULL) {
			/* LMDB reuses the pages a transaction frees only two
			 * transactions later: one that writes just the format
			 * record is the second (or the first, when the last
			 * transaction freed pages). Each of the three may
			 * evict. */
			struct write before = {.n = 0}, e = {.evict_only = true}, after = {.n = 0};
			write_batch(&before);
			write_batch(&e);
			write_batch(&after);
			long gone = (before.rc == 0 ? before.evicted : 0) + (e.rc == 0 ? e.evicted : 0) +
				    (after.rc == 0 ? after.evicted : 0);
			*evicted += gone;
			/* full for one entry, with nothing more evicted: no
			 * room for the evictions' page copies (a store full to
			 * its pages), or it does not fit */
			if (part == 1 && gone == 0) {
				if (!lmdb_make_room(&s))
					return MDB_MAP_FULL;
				part = CHUNK;
				continue;
			}
			part = part > 1 ? part / 2 : 1;
			continue;
		}
		if (w.rc != 0)
			return w.rc;
		done += w.n;
		*written += w.written;
		*evicted += w.evicted;
	}
	return 0;
}

static void fail_text(int rc, enum cmsg_fail *kind, char *text, size_t textsz)
{
	*kind = lmdb_is_damage(rc) ? CF_DAMAGED : CF_ERROR;
	if (*kind == CF_DAMAGED)
		snprintf(text, textsz, "%s", mdb_strerror(rc));
	else
		snprintf(text, textsz, "%s: %s",
			 rc == MDB_MAP_FULL ? "full (is --cache-size too small for one entry?)" : "cannot write",
			 mdb_strerror(rc));
}

/* The queue committed, and the counts to the racer. */
static int commit(struct cmsg_buf *out)
{
	if (!nops)
		return 0;
	long written = 0, evicted = 0;
	int rc = write_all(&written, &evicted); /* each transaction with its budget */
	nops = 0;
	arena_len = 0;
	if (written || evicted)
		cmsg_put_counts(out, CM_WRITTEN, (uint64_t)written, (uint64_t)evicted);
	return rc;
}

/* Every entry goes; CM_CLEARED says how many there were. */
static int clear(struct cmsg_buf *out)
{
	MDB_txn *txn;
	MDB_stat ms;
	size_t entries = 0;
	int rc = mdb_txn_begin(s.env, NULL, 0, &txn);
	if (rc != 0)
		return rc;
	if (mdb_stat(txn, s.uses_dbi, &ms) == 0)
		entries = ms.ms_entries;
	rc = mdb_drop(txn, s.uses_dbi, 0);
	if (rc == 0 && s.has_ages)
		rc = mdb_drop(txn, s.ages_dbi, 0);
	if (rc == 0)
		rc = mdb_drop(txn, s.dbi, 0);
	if (rc == 0)
		lmdb_write_meta(&s, txn, 1, &rc);
	lmdb_end_write(&s, txn, &rc);
	if (rc == 0)
		cmsg_put_counts(out, CM_CLEARED, entries, 0);
	return rc;
}

/* The messages read: queued, or done. -1: the racer is broken. */
static int take(struct cmsg_buf *in, struct cmsg_buf *out, int *rc)
{
	const uint32_t expect = CMSG_BIT(CM_PUT) | CMSG_BIT(CM_DELETE) | CMSG_BIT(CM_TOUCH) |
				CMSG_BIT(CM_FLUSH) | CMSG_BIT(CM_CLEAR);
	struct cmsg m;
	char why[256];
	int got;
	while (*rc == 0 && nops < OPS_MAX && arena_len + cache_value_max() <= ARENA_MAX &&
	       (got = cmsg_get(in, expect, &m, why, sizeof why)) == 1) {
		switch (m.type) {
		case CM_PUT:
			queue(OP_PUT, m.data, m.data + CACHE_KEY_LEN, m.len - CACHE_KEY_LEN);
			break;
		case CM_DELETE:
			queue(OP_DELETE, m.data, NULL, 0);
			break;
		case CM_TOUCH:
			queue(OP_TOUCH, m.data, NULL, 0);
			break;
		case CM_FLUSH:
			*rc = commit(out);
			if (*rc == 0)
				cmsg_put(out, CM_FLUSHED, m.id, NULL, 0, NULL, 0);
			break;
		case CM_CLEAR:
			*rc = commit(out);
			helper_budget();
			if (*rc == 0)
				*rc = clear(out);
			break;
		}
	}
	return got < 0 ? -1 : 0;
}

int cache_writer_main(void *arg)
{
	const struct cache_helper_args *a = arg;
	static struct cmsg_buf in, out;
	helper_start("sudoku-cache-wr");
	enum cmsg_fail kind;
	char text[CMSG_TEXT_MAX];
	ops = malloc(OPS_MAX * sizeof *ops);
	spare = malloc(OPS_MAX * sizeof *spare);
	bucket_end = malloc(((1u << SORT_BITS) + 1) * sizeof *bucket_end);
	arena = malloc(ARENA_MAX);
	aged = calloc(OPS_MAX, sizeof *aged);
	if (!ops || !spare || !bucket_end || !arena || !aged) {
		cmsg_put_failed(&out, CF_ERROR, "cannot write: out of memory");
		helper_send(a->fd, &out);
		return 0;
	}
	helper_budget();
	if (lmdb_open(&s, a, false, &kind, text, sizeof text) < 0) {
		cmsg_put_failed(&out, kind, text);
		helper_send(a->fd, &out);
		return 0;
	}
	int rc = 0;
	bool eof = false;
	while (rc == 0 && !eof) {
		/* what is in first (a full queue stopped there), then what comes */
		if (take(&in, &out, &rc) < 0)
			return HELPER_EXIT_BROKEN_PEER;
		if (rc != 0 || (cmsg_buf_pending(&out) && !helper_send(a->fd, &out)))
			break;
		/* a commit writes again every leaf its keys land on, so it
		 * waits for the batch to fill or age, not for a pause */
		bool due = nops >= OPS_MAX || arena_len + cache_value_max() > ARENA_MAX;
		int wait = -1;
		if (nops && !due) {
			uint64_t age = (uint64_t)ms_since(first_ns);
			due = age >= BATCH_MS;
			wait = due ? 0 : (int)(BATCH_MS - age);
		}
		struct pollfd p = {.fd = a->fd, .events = POLLIN};
		int n = due ? 0 : poll(&p, 1, wait);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			eof = cmsg_read(a->fd, &in) <= 0;
		} else if (n == 0) {
			/* the batch is due (its age, or a full queue) */
			rc = commit(&out);
		}
		/* the racer is done: everything it sent is written */
		while (eof && rc == 0) {
			if (take(&in, &out, &rc) < 0)
				return HELPER_EXIT_BROKEN_PEER;
			if (!nops)
				break;
			rc = commit(&out);
		}
		if (rc == 0 && cmsg_buf_pending(&out) && !helper_send(a->fd, &out))
			break;
	}
	if (rc == 0 && cmsg_buf_pending(&out))
		helper_send(a->fd, &out);
	if (rc != 0) {
		fail_text(rc, &kind, text, sizeof text);
		cmsg_put_failed(&out, kind, text);
		helper_send(a->fd, &out);
	}
	mdb_env_close(s.env);
	return 0;
}
