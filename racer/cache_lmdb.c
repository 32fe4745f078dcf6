/* The LMDB store as its helper processes open and keep it (cache_lmdb.h):
 * the open and its checks, uses and ages, the map's size, and what every
 * helper does first. The reader is cache_reader.c, the writer
 * cache_writer.c.
 *
 * Size: the map is --cache-size bytes, so the file never grows past it, or
 * less when the address space this process finds (ulimit -v) does not hold
 * that much: then the entries are kept within the map (cache_writer.c).
 *
 * Damage: LMDB trusts its file. A file cut short makes it read past the end
 * of the map (SIGBUS), garbage page numbers and sizes make it read outside
 * it (SIGSEGV). The open checks the file's length against LMDB's last page
 * and this file's own record, and every value's length and format is
 * checked before use (by the racer: the value goes to it whole); a fault
 * ends this process alone, and the racer sets the store aside.
 *
 * A full disk: LMDB's first store into a new lock file is through its map,
 * which faults when no block can be had; the lock file's blocks are taken
 * first (fallocate), so that a full disk is an error with its name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "racer/cache_lmdb.h"
#include "racer/cache_where.h"

/* The lock file's blocks taken before LMDB maps it: more than its reader
 * table of 256 slots takes. */
#define LOCK_ROOM (64 << 10)
/* What a helper keeps of its address space for itself beside the map. */
#define MAP_HEADROOM ((size_t)64 << 20)
#define MAX_READERS 256

void helper_start(const char *name)
{
	prctl(PR_SET_NAME, name);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		for (int fd = 0; fd <= 2; fd++)
			dup2(null, fd);
		if (null > 2)
			close(null);
	}
}

void helper_budget(void)
{
	/* Set again only a second after it was last set: the helper has one
	 * thread, so it has used less than a second of processor since, and
	 * what is left of the limit set then (used + 1 + HELPER_CPU_S) is
	 * more than HELPER_CPU_S. (Three system calls a look-up batch.) */
	static uint64_t set_ns;
	uint64_t now = now_ns();
	if (set_ns && now - set_ns < 1000000000u)
		return;
	set_ns = now;
	struct rusage ru;
	struct rlimit rl;
	if (getrusage(RUSAGE_SELF, &ru) < 0 || getrlimit(RLIMIT_CPU, &rl) < 0)
		return;
	rlim_t want = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1 + HELPER_CPU_S);
	if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
		want = rl.rlim_max;
	rl.rlim_cur = want;
	setrlimit(RLIMIT_CPU, &rl);
}

bool helper_send(int fd, struct cmsg_buf *out)
{
	return cmsg_write(fd, out) == 1;
}

bool lmdb_is_damage(int rc)
{
	return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID ||
	       rc == MDB_VERSION_MISMATCH || rc == MDB_BAD_TXN || rc == MDB_BAD_VALSIZE || rc == MDB_PAGE_FULL;
}

/* mkdir -p, each directory it creates with mode 0700. */
static int make_dirs(const char *path, char *err, size_t errsz)
{
	char buf[CACHE_DIR_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
			snprintf(err, errsz, "cannot create %s: %s", buf, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "%s is not a directory", path);
		return -1;
	}
	return 0;
}

/* The lock file's blocks, taken before LMDB writes into it through its map
 * (a store there into a hole on a full disk is a SIGBUS). A file system
 * that cannot do it is left to LMDB. */
static int take_lock_room(const char *dir, char *err, size_t errsz)
{
	char path[CACHE_DIR_MAX + 16];
	snprintf(path, sizeof path, "%s/lock.mdb", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0; /* LMDB says why, if it matters */
	int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, LOCK_ROOM) < 0 ? errno : 0;
	close(fd);
	if (rc == ENOSPC || rc == EDQUOT) {
		snprintf(err, errsz, "%s: %s", dir, strerror(rc));
		return -1;
	}
	return 0;
}

/* The map this process can have: what its address space limit leaves,
 * less some room for the rest of it. */
static size_t map_room(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	size_t used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE) + MAP_HEADROOM;
	return rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
}

static int env_open(struct lmdb_store *s, const char *dir, bool readonly, size_t map)
{
	int rc = mdb_env_create(&s->env);
	if (rc == 0)
		rc = mdb_env_set_mapsize(s->env, map);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(s->env, MAX_READERS);
	if (rc == 0)
		rc = mdb_env_set_maxdbs(s->env, 3); /* uses, ages, and room */
	/* NOTLS: the reader's transaction is reset and renewed around each
	 * batch of look-ups. NOMETASYNC: a crash may lose the last batch,
	 * never the store's consistency. */
	unsigned flags = MDB_NOTLS | MDB_NOMETASYNC | (readonly ? MDB_RDONLY : 0) | (s->nolock ? MDB_NOLOCK : 0);
	if (rc == 0)
		rc = mdb_env_open(s->env, dir, flags, 0600);
	if (rc != 0 && s->env) {
		mdb_env_close(s->env);
		s->env = NULL;
	}
	return rc;
}

/* The file's length, and the length its pages take as LMDB's meta page
 * says (up to its last page); false when either cannot be read. */
static bool file_extent(struct lmdb_store *s, int *fd, off_t *have, off_t *need)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat fs;
	if (mdb_env_info(s->env, &info) != 0 || mdb_env_stat(s->env, &st) != 0 || mdb_env_get_fd(s->env, fd) != 0 ||
	    fstat(*fd, &fs) != 0)
		return false;
	*have = fs.st_size;
	*need = ((off_t)info.me_last_pgno + 1) * st.ms_psize;
	return true;
}

void lmdb_age_key(uint64_t tick, uint8_t out[8])
{
	for (int i = 7; i >= 0; i--, tick >>= 8)
		out[i] = (uint8_t)tick;
}

int lmdb_set_use(struct lmdb_store *s, MDB_txn *txn, const uint8_t key[CACHE_KEY_LEN], uint64_t tick, bool fresh,
		 uint64_t *was)
{
	MDB_val k = {CACHE_KEY_LEN, (void *)key}, old;
	int rc;
	if (was)
		*was = 0;
	if (s->has_ages && !fresh && (rc = mdb_get(txn, s->uses_dbi, &k, &old)) != MDB_NOTFOUND) {
		if (rc != 0)
			return rc;
		uint64_t old_tick = old.mv_size == 8 ? cache_le64(old.mv_data) : 0;
		if (was)
			*was = old_tick;
		uint8_t a[8];
		lmdb_age_key(old_tick, a);
		MDB_val ak = {sizeof a, a};
		rc = mdb_del(txn, s->ages_dbi, &ak, &k);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
	}
	if (!tick) {
		rc = mdb_del(txn, s->uses_dbi, &k, NULL);
		return rc == MDB_NOTFOUND ? 0 : rc;
	}
	uint8_t t[8];
	cache_put_le64(t, tick);
	MDB_val v = {sizeof t, t};
	return mdb_put(txn, s->uses_dbi, &k, &v, 0);
}

void lmdb_write_meta(struct lmdb_store *s, MDB_txn *txn, uint64_t tick, int *rc)
{
	uint8_t m[META_LEN];
	memcpy(m, META_MAGIC, 7);
	m[7] = CACHE_STORE_FORMAT;
	cache_put_le64(m + 8, tick);
	cache_put_le64(m + 16, s->cap_bytes);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v = {sizeof m, m};
	*rc = mdb_put(txn, s->dbi, &k, &v, 0);
}

/* After a commit: the file as long as LMDB's last page says. LMDB does not
 * write pages that a transaction took and freed again ("loose"), so its
 * file may end short of its last page; the open's check for a file cut
 * short counts on it not doing so (holes are free pages). */
void lmdb_end_write(struct lmdb_store *s, MDB_txn *txn, int *rc)
{
	if (*rc == 0)
		*rc = mdb_txn_commit(txn);
	else
		mdb_txn_abort(txn);
	int fd;
	off_t have, need;
	if (*rc == 0 && file_extent(s, &fd, &have, &need) && have < need && ftruncate(fd, need) < 0)
		*rc = errno;
}

struct open_check {
	bool create; /* the uses database and the format record are missing */
	bool create_ages; /* the ages database is missing */
	int rc;
	int format;  /* 0: no record */
	size_t cap;  /* the size limit it records; 0: none */
	char why[256];
};

/* LMDB's order of keys, without a call to memcmp (cache_value.h) */
static int key_order(const MDB_val *a, const MDB_val *b)
{
	return cache_key_order(a->mv_data, a->mv_size, b->mv_data, b->mv_size);
}

/* In a read transaction: the databases, and the format record. */
static void check_store(struct lmdb_store *s, struct open_check *c)
{
	MDB_txn *txn;
	c->rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
	if (c->rc != 0)
		return;
	c->rc = mdb_dbi_open(txn, NULL, 0, &s->dbi);
	if (c->rc == 0)
		c->rc = mdb_set_compare(txn, s->dbi, key_order);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	int rc = c->rc == 0 ? mdb_get(txn, s->dbi, &k, &v) : c->rc;
	if (rc == 0) {
		const uint8_t *b = v.mv_data;
		if (v.mv_size != META_LEN || memcmp(b, META_MAGIC, 7) != 0) {
			snprintf(c->why, sizeof c->why, "its format record is garbage");
			mdb_txn_abort(txn);
			return;
		}
		c->format = b[7];
		c->cap = (size_t)cache_le64(b + 16);
	} else if (rc != MDB_NOTFOUND) {
		c->rc = rc;
		mdb_txn_abort(txn);
		return;
	}
	if (c->format > CACHE_STORE_FORMAT) {
		mdb_txn_abort(txn);
		return;
	}
	rc = mdb_dbi_open(txn, "uses", 0, &s->uses_dbi);
	if (rc == 0)
		rc = mdb_set_compare(txn, s->uses_dbi, key_order);
	s->has_uses = rc == 0;
	if (rc == MDB_NOTFOUND || c->format == 0) {
		c->create = true;
		rc = 0;
	}
	if (rc == 0 && s->has_uses) {
		rc = mdb_dbi_open(txn, "ages", MDB_DUPSORT, &s->ages_dbi);
		s->has_ages = rc == 0;
		if (rc == MDB_NOTFOUND) {
			c->create_ages = true;
			rc = 0;
		}
	}
	if (rc != 0) {
		c->rc = rc;
		mdb_txn_abort(txn);
		return;
	}
	c->rc = mdb_txn_commit(txn);
}

/* key's age at tick, in the ages. */
static int put_age(struct lmdb_store *s, MDB_txn *txn, uint64_t tick, const MDB_val *key)
{
	uint8_t a[8];
	lmdb_age_key(tick, a);
	MDB_val ak = {sizeof a, a}, k = *key;
	return mdb_put(txn, s->ages_dbi, &ak, &k, 0);
}

/* A store of format 1 (or a new one): the uses database, every entry in
 * it as used at tick 1 (before any use to come), and the format record. */
static void create_uses(struct lmdb_store *s, struct open_check *c)
{
	MDB_txn *txn;
	c->rc = mdb_txn_begin(s->env, NULL, 0, &txn);
	if (c->rc != 0)
		return;
	c->rc = mdb_dbi_open(txn, "uses", MDB_CREATE, &s->uses_dbi);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	/* another racer may have done it meanwhile */
	if (c->rc == 0 && mdb_get(txn, s->dbi, &k, &v) == MDB_NOTFOUND) {
		MDB_cursor *cur;
		c->rc = mdb_cursor_open(txn, s->dbi, &cur);
		int rc = c->rc;
		while (rc == 0 && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
			if (k.mv_size != CACHE_KEY_LEN)
				continue;
			rc = lmdb_set_use(s, txn, k.mv_data, 1, false, NULL); /* older than any use to come */
			/* (its age is the caller's: ages there already, from a
			 * store whose format record went, would miss it) */
			if (rc == 0 && s->has_ages)
				rc = put_age(s, txn, 1, &k);
		}
		/* (a write transaction's cursors close with it) */
		if (c->rc == 0 && rc != MDB_NOTFOUND)
			c->rc = rc;
		if (c->rc == 0)
			lmdb_write_meta(s, txn, 1, &c->rc);
	}
	lmdb_end_write(s, txn, &c->rc);
	s->has_uses = c->rc == 0;
}

/* A store without the ages of its uses (a racer before them made it):
 * every use's age, from the uses. A store too full for them goes on
 * without (the writer then evicts by reading every use). */
static void create_ages(struct lmdb_store *s, struct open_check *c)
{
	MDB_txn *txn;
	c->rc = mdb_txn_begin(s->env, NULL, 0, &txn);
	if (c->rc != 0)
		return;
	c->rc = mdb_dbi_open(txn, "ages", MDB_CREATE | MDB_DUPSORT, &s->ages_dbi);
	MDB_stat st;
	/* another racer may have done it meanwhile */
	if (c->rc == 0 && (c->rc = mdb_stat(txn, s->ages_dbi, &st)) == 0 && st.ms_entries == 0) {
		MDB_cursor *cur;
		MDB_val k, v;
		c->rc = mdb_cursor_open(txn, s->uses_dbi, &cur);
		int rc = c->rc;
		for (size_t n = 0; rc == 0 && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0; n++) {
			if (n % 65536 == 0)
				helper_budget(); /* a bounded piece of work each */
			rc = put_age(s, txn, v.mv_size == 8 ? cache_le64(v.mv_data) : 0, &k);
		}
		if (c->rc == 0 && rc != MDB_NOTFOUND)
			c->rc = rc;
	}
	lmdb_end_write(s, txn, &c->rc);
	s->has_ages = c->rc == 0;
}

/* The environment, in a map that fits: --cache-size, or what the address
 * space leaves. A read-only store whose lock cannot be taken (read-only
 * media, a directory not ours to write) is read without it. */
static int open_fitting(struct lmdb_store *s, const struct cache_helper_args *a, char *err, size_t errsz)
{
	size_t room = map_room();
	s->map_bytes = s->cap_bytes < room ? s->cap_bytes : room;
	int rc = env_open(s, a->dir, a->readonly, s->map_bytes);
	if (rc == EACCES || rc == EROFS || rc == EPERM) {
		if (a->readonly && !s->nolock) {
			s->nolock = true;
			rc = env_open(s, a->dir, true, s->map_bytes);
		}
	}
	if (rc == ENOMEM && s->map_bytes < s->cap_bytes) {
		/* the file itself is larger than what the address space holds
		 * (LMDB maps at least what it has written) */
		snprintf(err, errsz, "%s: the store does not fit in the %zu bytes of address space left (ulimit -v)",
			 a->dir, room);
		return -1;
	}
	if (rc != 0)
		snprintf(err, errsz, "%s: %s", a->dir, mdb_strerror(rc));
	return rc == 0 ? 0 : rc;
}

/* The map made half as large again (at most the address space there
 * is), for a store without room for a transaction's page copies, not even
 * those of the evictions that bring its entries within the size: every
 * write would fail (MDB_MAP_FULL). LMDB maps no less than its pages, which
 * a smaller --cache-size given since may not hold; and a store that grew to
 * its pages under a larger size has none free. The entries are evicted
 * down to cap_pages as ever. (LMDB never shortens its file: `cache clear`
 * does.) Whether it grew. */
static bool grow_map(struct lmdb_store *s, size_t need)
{
	size_t base = need > s->map_bytes ? need : s->map_bytes;
	size_t room = map_room(), want = base + base / 2;
	if (want > room)
		want = room;
	if (want <= s->map_bytes || mdb_env_set_mapsize(s->env, want) != 0)
		return false;
	s->map_bytes = want;
	return true;
}

static void leave_room(struct lmdb_store *s)
{
	int fd;
	off_t have, need;
	if (file_extent(s, &fd, &have, &need) && (size_t)need > s->cap_bytes)
		grow_map(s, (size_t)need);
}

bool lmdb_make_room(struct lmdb_store *s)
{
	int fd;
	off_t have, need;
	/* once past the file's pages by half: more would not be for copies */
	return file_extent(s, &fd, &have, &need) && s->map_bytes < (size_t)need + (size_t)need / 2 &&
	       grow_map(s, (size_t)need);
}

int lmdb_open(struct lmdb_store *s, const struct cache_helper_args *a, bool full, enum cmsg_fail *kind,
	      char *err, size_t errsz)
{
	memset(s, 0, sizeof *s);
	*kind = CF_ERROR;
	s->cap_bytes = a->cap_bytes ? a->cap_bytes : CACHE_SIZE_DEFAULT;
	if (full && !a->readonly && (make_dirs(a->dir, err, errsz) < 0 || take_lock_room(a->dir, err, errsz) < 0))
		return -1;
	int rc = open_fitting(s, a, err, errsz);
	if (rc != 0) {
		if (lmdb_is_damage(rc)) {
			*kind = CF_DAMAGED;
			snprintf(err, errsz, "%s", mdb_strerror(rc));
		}
		return -1;
	}
	/* past here a fault is the file's doing */
	if (full) {
		struct cmsg_buf out = {0};
		cmsg_put(&out, CM_MAPPED, 0, NULL, 0, NULL, 0);
		helper_send(a->fd, &out);
		cmsg_buf_free(&out);
	}
	int dead;
	if (!s->nolock)
		mdb_reader_check(s->env, &dead);
	MDB_stat st;
	mdb_env_stat(s->env, &st);
	int fd;
	off_t have, need;
	if (full && file_extent(s, &fd, &have, &need) && have < need) {
		*kind = CF_DAMAGED;
		snprintf(err, errsz, "cut short: %lld bytes, where its pages take %lld", (long long)have,
			 (long long)need);
		return -1;
	}
	struct open_check c;
	memset(&c, 0, sizeof c);
	check_store(s, &c);
	if (c.rc == 0 && !c.why[0] && c.create && !a->readonly) {
		create_uses(s, &c);
		if (c.rc == 0) {
			memset(&c, 0, sizeof c);
			check_store(s, &c);
		}
	}
	if (c.rc == 0 && !c.why[0] && c.create_ages && !a->readonly) {
		create_ages(s, &c);
		if (c.rc == MDB_MAP_FULL)
			c.rc = 0; /* no room for them: evictions read every use */
		else if (c.rc == 0) {
			memset(&c, 0, sizeof c);
			check_store(s, &c);
		}
	}
	if (c.why[0] || lmdb_is_damage(c.rc)) {
		*kind = CF_DAMAGED;
		snprintf(err, errsz, "%s", c.why[0] ? c.why : mdb_strerror(c.rc));
		return -1;
	}
	if (c.rc == 0 && c.format > CACHE_STORE_FORMAT) {
		snprintf(err, errsz, "%s: made by a newer sudoku-race (cache format %d)", a->dir, c.format);
		return -1;
	}
	if (c.rc != 0) {
		snprintf(err, errsz, "%s: %s", a->dir, mdb_strerror(c.rc));
		return -1;
	}
	if (!a->cap_bytes && c.cap >= CACHE_SIZE_MIN && c.cap != s->cap_bytes) {
		/* the limit the store keeps (the next write keeps it again) */
		s->cap_bytes = c.cap;
		size_t room = map_room() + s->map_bytes;
		size_t map = s->cap_bytes < room ? s->cap_bytes : room;
		rc = map != s->map_bytes ? mdb_env_set_mapsize(s->env, map) : 0;
		if (rc != 0) {
			snprintf(err, errsz, "%s: %s", a->dir, mdb_strerror(rc));
			return -1;
		}
		s->map_bytes = map;
	}
	s->cap_pages = (s->cap_bytes < s->map_bytes ? s->cap_bytes : s->map_bytes) / st.ms_psize;
	if (!a->readonly)
		leave_room(s);
	return 0;
}
