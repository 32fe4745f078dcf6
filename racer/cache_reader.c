/* The LMDB store's reader (cache_lmdb.h): in a helper process of its own,
 * it opens the store (cache_lmdb.c, which checks it) and answers the
 * racer's look-ups and walks over every entry. A fault on a damaged file
 * ends this process alone, and the racer sets the store aside. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "racer/cache_lmdb.h"
#include "racer/cache_value.h"

struct reader {
	struct lmdb_store s;
	MDB_txn *txn;     /* reset between batches */
	bool reading;
	uint64_t tick;    /* the store's tick and entries as the batch found them */
	size_t entries;
	bool filling;     /* its pages reach a third of its size: uses count */
	struct cmsg_buf in, out;
	int fd;
	char fail[CMSG_TEXT_MAX];
	enum cmsg_fail fail_kind;
};

static void reader_fail(struct reader *r, enum cmsg_fail kind, const char *what, int rc)
{
	r->fail_kind = lmdb_is_damage(rc) ? CF_DAMAGED : kind;
	if (r->fail_kind == CF_DAMAGED)
		snprintf(r->fail, sizeof r->fail, "%s", mdb_strerror(rc));
	else
		snprintf(r->fail, sizeof r->fail, "%s: %s", what, mdb_strerror(rc));
}

static bool read_begin(struct reader *r)
{
	if (r->reading)
		return true;
	MDB_env *env = r->s.env;
	int rc = r->txn ? mdb_txn_renew(r->txn) : mdb_txn_begin(env, NULL, MDB_RDONLY, &r->txn);
	if (rc == MDB_MAP_RESIZED) {
		/* another racer, with a larger --cache-size, grew the file */
		mdb_env_set_mapsize(env, 0);
		rc = r->txn ? mdb_txn_renew(r->txn) : mdb_txn_begin(env, NULL, MDB_RDONLY, &r->txn);
	}
	if (rc != 0) {
		reader_fail(r, CF_ERROR, "cannot read", rc);
		return false;
	}
	r->reading = true;
	/* where the order of use stands, for worth_touching */
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	MDB_stat st;
	r->tick = mdb_get(r->txn, r->s.dbi, &k, &v) == 0 && v.mv_size == META_LEN
			  ? cache_le64((const uint8_t *)v.mv_data + 8)
			  : 0;
	r->entries = r->s.has_uses && mdb_stat(r->txn, r->s.uses_dbi, &st) == 0 ? st.ms_entries : 0;
	MDB_envinfo info;
	r->filling = mdb_env_info(env, &info) == 0 && info.me_last_pgno + 1 >= r->s.cap_pages / 3;
	return true;
}

static void read_end(struct reader *r)
{
	if (r->reading)
		mdb_txn_reset(r->txn);
	r->reading = false;
}

/* Whether a hit on a stored value is written down as a use. Moving an
 * entry in the order of use is a write (of its record in "uses"), so, as
 * memcached does with items bumped lately, an entry is moved only when it
 * is in the oldest eighth of the order (as ticks go), which is what one
 * eviction takes (from high to high - high / 8): a warm run writes an
 * eighth of its hits at most, and an eviction still takes no entry used
 * since the one before. And only once the store's pages reach a third of
 * its size: below that no eviction is near (the writer keeps two thirds
 * at most for its page copies: cache_writer.c), and a warm run of a store
 * far from full, as most are, writes nothing (touching the oldest eighth
 * of 49,158 entries took two fifths of such a run's processor). */
static bool worth_touching(struct reader *r, const uint8_t *key, const MDB_val *value)
{
	if (!r->s.has_uses || !r->filling)
		return false;
	uint64_t recent = (uint64_t)r->entries * 7 / 8;
	if (r->tick < recent)
		return true; /* (without looking its use up) */
	/* An entry is used after it is written: written recently, used
	 * recently, with no second look-up (most hits of a run after the one
	 * that wrote them). */
	if (cache_written_at(value->mv_data, value->mv_size) >= r->tick - recent)
		return false;
	MDB_val k = {CACHE_KEY_LEN, (void *)key}, v;
	if (mdb_get(r->txn, r->s.uses_dbi, &k, &v) != 0 || v.mv_size != 8)
		return true;
	return cache_le64(v.mv_data) < r->tick - recent;
}

/* A look-up's answer, from what the store gave (rc, v). */
static bool answer(struct reader *r, uint64_t id, const uint8_t *key, int rc, const MDB_val *v)
{
	if (rc == MDB_NOTFOUND) {
		cmsg_put(&r->out, CM_MISS, id, NULL, 0, NULL, 0);
		return true;
	}
	if (rc != 0) {
		reader_fail(r, CF_ERROR, "cannot read", rc);
		return false;
	}
	if (v->mv_size > cache_value_max()) {
		char why[64];
		snprintf(why, sizeof why, "a value of %zu bytes", v->mv_size);
		cmsg_put(&r->out, CM_BAD, id, why, strlen(why), NULL, 0);
		return true;
	}
	uint8_t touch = worth_touching(r, key, v);
	cmsg_put(&r->out, CM_HIT, id, &touch, 1, v->mv_data, v->mv_size);
	return true;
}

/* The batch's look-ups are made in the order of their keys and answered
 * in the order asked. Keys at random send each look-up down the tree to a
 * leaf of its own, a cache miss at every node of it; keys in order share
 * the path and, through a cursor, a leaf (LMDB searches only the cursor's
 * leaf when the key is within it). The order is the keys' first 10 bits
 * (a counting sort: the buckets of a batch of 1,024 hold one key or two).
 * A warm run of 49,158 hits, 1,024 a batch: 0.92x the CPU of the whole
 * run, 0.89x its wall. A batch of a few goes as it came. */
#define BATCH_MAX 4096
#define SORT_FROM 32
#define SORT_BITS 10
struct asked {
	uint64_t id;
	uint8_t key[CACHE_KEY_LEN];
	int rc;
	MDB_val v; /* in the map: valid until the read transaction ends */
};
static struct asked batch[BATCH_MAX];
static uint16_t order[BATCH_MAX];
static uint32_t bucket_end[(1 << SORT_BITS) + 1];
static int nbatch;

/* order[0, n): the batch's first n in the order of their keys' buckets */
static void sort_batch(int n)
{
	if (n < SORT_FROM) {
		for (int i = 0; i < n; i++)
			order[i] = (uint16_t)i;
		return;
	}
	memset(bucket_end, 0, sizeof bucket_end);
	for (int i = 0; i < n; i++)
		bucket_end[cache_key_bucket(batch[i].key, SORT_BITS) + 1]++;
	for (int b = 0; b < 1 << SORT_BITS; b++)
		bucket_end[b + 1] += bucket_end[b];
	for (int i = 0; i < n; i++)
		order[bucket_end[cache_key_bucket(batch[i].key, SORT_BITS)]++] = (uint16_t)i;
}

static bool lookups(struct reader *r)
{
	int n = nbatch;
	nbatch = 0;
	if (!n)
		return true;
	if (!read_begin(r))
		return false;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(r->txn, r->s.dbi, &cur);
	if (rc != 0) {
		reader_fail(r, CF_ERROR, "cannot read", rc);
		return false;
	}
	sort_batch(n);
	for (int j = 0; j < n; j++) {
		struct asked *a = &batch[order[j]];
		MDB_val k = {CACHE_KEY_LEN, a->key};
		a->rc = mdb_cursor_get(cur, &k, &a->v, MDB_SET_KEY);
	}
	mdb_cursor_close(cur);
	bool ok = true;
	for (int i = 0; ok && i < n; i++)
		ok = answer(r, batch[i].id, batch[i].key, batch[i].rc, &batch[i].v);
	return ok;
}

static bool ask(struct reader *r, const struct cmsg *m)
{
	struct asked *a = &batch[nbatch++];
	a->id = m->id;
	memcpy(a->key, m->data, CACHE_KEY_LEN);
	return nbatch < BATCH_MAX || lookups(r);
}

/* Every entry to the racer, then the end: the order of use is read too
 * (damage there is damage). */
static bool walk(struct reader *r)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	int rc = mdb_txn_begin(r->s.env, NULL, MDB_RDONLY, &txn);
	if (rc != 0) {
		reader_fail(r, CF_ERROR, "cannot read", rc);
		return false;
	}
	MDB_val k, v;
	if ((rc = mdb_cursor_open(txn, r->s.dbi, &cur)) == 0) {
		while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
			if (k.mv_size != CACHE_KEY_LEN)
				continue; /* the format record, the uses database's name */
			size_t len = v.mv_size <= cache_value_max() ? v.mv_size : 0;
			cmsg_put(&r->out, CM_ENTRY, 0, k.mv_data, CACHE_KEY_LEN, v.mv_data, len);
			if (cmsg_buf_pending(&r->out) >= 65536 && !helper_send(r->fd, &r->out)) {
				rc = EPIPE;
				break;
			}
		}
		mdb_cursor_close(cur);
	}
	if (rc == MDB_NOTFOUND && r->s.has_uses && (rc = mdb_cursor_open(txn, r->s.uses_dbi, &cur)) == 0) {
		while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
			;
		mdb_cursor_close(cur);
	}
	mdb_txn_abort(txn);
	if (rc != MDB_NOTFOUND) {
		reader_fail(r, CF_ERROR, "cannot read", rc);
		return false;
	}
	cmsg_put(&r->out, CM_WALK_END, 0, NULL, 0, NULL, 0);
	return true;
}

int cache_reader_main(void *arg)
{
	static struct reader r;
	const struct cache_helper_args *a = arg;
	helper_start("sudoku-cache-rd");
	r.fd = a->fd;
	helper_budget();
	if (lmdb_open(&r.s, a, true, &r.fail_kind, r.fail, sizeof r.fail) < 0) {
		cmsg_put_failed(&r.out, r.fail_kind, r.fail);
		helper_send(r.fd, &r.out);
		return 0;
	}
	struct cmsg_opened o = {r.s.cap_bytes, r.s.map_bytes, a->readonly, r.s.nolock};
	cmsg_put_opened(&r.out, &o);
	bool ok = helper_send(r.fd, &r.out);
	/* what comes in at once is one batch: one read transaction */
	while (ok && cmsg_read(r.fd, &r.in) > 0) {
		struct cmsg m;
		char why[256];
		int got;
		helper_budget();
		while (ok && (got = cmsg_get(&r.in, CMSG_BIT(CM_LOOKUP) | CMSG_BIT(CM_WALK), &m, why, sizeof why)) == 1)
			ok = m.type == CM_LOOKUP ? ask(&r, &m) : lookups(&r) && walk(&r);
		if (ok)
			ok = lookups(&r);
		read_end(&r);
		if (!ok) {
			cmsg_put_failed(&r.out, r.fail_kind, r.fail);
			helper_send(r.fd, &r.out);
			break;
		}
		if (got < 0)
			return HELPER_EXIT_BROKEN_PEER; /* nothing to tell it */
		ok = helper_send(r.fd, &r.out);
	}
	if (r.txn)
		mdb_txn_abort(r.txn);
	mdb_env_close(r.s.env);
	return 0;
}
