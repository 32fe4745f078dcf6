/* The result cache (DESIGN.md "The cache"): LMDB, shared safely by racers
 * running at once (one writer at a time, readers never wait).
 *
 * The main database maps the 16 bytes of a puzzle's XXH3-128 hash
 * (lib/hash.c) to a value:
 *   byte 0      format: 2 (1, as sudoku-race 0.1 wrote it, is still read)
 *   byte 1      verdict: 1 solved, 2 unsat
 *   byte 2      uniqueness: 0 unknown, 1 unique, 2 several solutions
 *   byte 3      box size n
 *   bytes 4-7   the winner's time in microseconds, little-endian
 *   bytes 8-23  the winner's name, NUL-padded
 *   bytes 24-39 the racer's version, NUL-padded
 *   format 2 only:
 *   bytes 40-47 when it was written: the store's tick, little-endian (its last
 *               use is in the "uses" database)
 *   bytes 48-95 who proved an unsat or count verdict: worker names,
 *               comma-separated, NUL-padded (empty: not recorded)
 *   then the puzzle's cells (one byte each, 0 blank), then for a solved
 *   puzzle the solution's cells.
 * The puzzle is kept so that a hit can be checked against the puzzle asked
 * (a tampered entry, a hash collision) and so that `cache export` can write
 * it out. Every hit is verified before use; a bad entry is deleted.
 *
 * One more record in the main database, under the key "sudoku-race" (no
 * puzzle's key: those are 16 bytes): "SRCACHE", the store's format (2),
 * its tick (8 bytes, little-endian), which counts uses, and its size limit
 * (8 bytes, little-endian: the last --cache-size given, kept for the runs
 * that give none).
 * A second database, "uses", maps each entry's key to the tick of its last
 * use (8 bytes, little-endian): a use writes that small record, not the
 * entry. Eviction reads the ticks and takes the oldest.
 *
 * Size: the map is --cache-size bytes, so the file never grows past it.
 * LMDB writes copies of the pages a transaction changes, so the entries
 * leave room for two transactions' copies (reserve_pages): from a third of
 * the map for a small one to a few percent of the default 1 GiB.
 *
 * Damage: LMDB trusts its file. A file cut short makes it read past the end
 * of the map (SIGBUS), garbage page numbers and sizes make it read outside
 * it (SIGSEGV). So the open checks the file's length against LMDB's last
 * page and this file's own record, every value's length and format is
 * checked before use, and every call into LMDB runs under a trap that turns
 * those faults into "damaged": the store is reported once, renamed aside,
 * and the run goes on without a cache.
 *
 * Writes (and the uses that move entries in the order of use) are queued
 * and committed in batches, one transaction per batch: at BATCH queued, on
 * a timer, and at exit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"

#define FORMAT 2
#define HEADER_V1 40
#define HEADER 96
#define TICK_AT 40
#define PROVERS_AT 48
#define VERDICT_SOLVED 1
#define VERDICT_UNSAT 2
#define META_KEY "sudoku-race"
#define META_MAGIC "SRCACHE"
#define META_LEN 24
/* Queued writes that make a batch; a timer commits smaller ones. */
#define BATCH 1024
#define BATCH_MS 250

struct cache_counts cache_counts;

static MDB_env *env;
static MDB_dbi dbi, uses_dbi;
static MDB_txn *rtxn;
/* the store's tick and entries as the read transaction found them */
static uint64_t store_tick;
static size_t store_entries;
/* the read transaction and cursor of a trapped call other than a look-up:
 * after a fault they are closed with the store */
static MDB_txn *ttxn;
static MDB_cursor *tcur;
static bool enabled, reading, failed_once;
/* cache clear: a damaged store is removed, not set aside */
static bool remove_damaged, removed;
static char store_dir[4096];
static size_t cap_bytes, cap_pages;

enum op { OP_PUT, OP_DELETE, OP_TOUCH };
struct pending {
	enum op op;
	uint8_t key[16];
	uint8_t *value; /* OP_PUT */
	size_t len;
};
static struct pending *pending;
static size_t npending, cappending;
static struct event *flush_timer;

/* --- the fault trap --- */

static sigjmp_buf trap_jmp;
static volatile sig_atomic_t trap_armed, trap_signal;
static struct sigaction old_segv, old_bus;
static bool trap_installed;

static void on_fault(int sig)
{
	if (trap_armed) {
		trap_armed = 0;
		trap_signal = sig;
		siglongjmp(trap_jmp, 1);
	}
	/* not in the store: back to what handled it before (the default, a
	 * sanitizer), which gets the same fault when this returns */
	sigaction(sig, sig == SIGBUS ? &old_bus : &old_segv, NULL);
}

/* LMDB's own consistency checks end in abort() after this callback: a
 * trapped call ends here instead. */
static void on_lmdb_assert(MDB_env *e, const char *msg)
{
	(void)e;
	(void)msg;
	if (trap_armed) {
		trap_armed = 0;
		trap_signal = SIGABRT;
		siglongjmp(trap_jmp, 1);
	}
}

static void trap_install(void)
{
	if (trap_installed)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fault;
	/* not blocked while it runs, so nothing is left blocked when it
	 * jumps: sigsetjmp need not save the mask (a system call a look-up) */
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	trap_installed = true;
}

static void trap_remove(void)
{
	if (!trap_installed)
		return;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	trap_installed = false;
}

/* Runs fn(arg); a fault in it ends it. Returns the signal, or 0. Inside
 * another trapped call it just runs: the outer trap catches. */
static int trapped(void (*fn)(void *), void *arg)
{
	if (trap_armed) {
		fn(arg);
		return 0;
	}
	trap_install();
	if (sigsetjmp(trap_jmp, 0))
		return trap_signal;
	trap_armed = 1;
	fn(arg);
	trap_armed = 0;
	return 0;
}

/* --- values --- */

static void make_key(const struct grid *g, uint8_t key[16])
{
	struct grid_hash h = grid_hash(g);
	for (int i = 0; i < 8; i++) {
		key[i] = (uint8_t)(h.high >> (56 - 8 * i));
		key[8 + i] = (uint8_t)(h.low >> (56 - 8 * i));
	}
}

static uint64_t get_le64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void put_le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static size_t header_len(const uint8_t *b)
{
	return b[0] == 1 ? HEADER_V1 : HEADER;
}

/* The longest value (a shared store's buffer: cache_redis.c). */
size_t cache_value_max(void)
{
	return HEADER + 2 * (size_t)GRID_MAX_CELLS;
}

size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf,
		    size_t bufsz)
{
	size_t cells = (size_t)puzzle->cells;
	size_t len = HEADER + cells + (e->verdict == V_SOLVED ? cells : 0);
	if (len > bufsz)
		return 0;
	memset(buf, 0, HEADER);
	buf[0] = FORMAT;
	buf[1] = e->verdict == V_SOLVED ? VERDICT_SOLVED : VERDICT_UNSAT;
	buf[2] = (uint8_t)e->uniq;
	buf[3] = (uint8_t)puzzle->box;
	double us = e->ms * 1000.0;
	uint32_t t = us <= 0 ? 0 : us >= 4294967295.0 ? UINT32_MAX : (uint32_t)us;
	for (int i = 0; i < 4; i++)
		buf[4 + i] = (uint8_t)(t >> (8 * i));
	memcpy(buf + 8, e->winner, strnlen(e->winner, 16));
	const char *version = e->version[0] ? e->version : PACKAGE_VERSION;
	memcpy(buf + 24, version, strnlen(version, 16));
	memcpy(buf + PROVERS_AT, e->provers, strnlen(e->provers, CACHE_PROVERS_MAX - 1));
	memcpy(buf + HEADER, puzzle->cell, cells);
	if (e->verdict == V_SOLVED)
		memcpy(buf + HEADER + cells, e->solution.cell, cells);
	return len;
}

/* A name field: printable ASCII up to its first NUL. */
static bool copy_name(char *out, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n && b[i]; i++) {
		if (b[i] < 0x21 || b[i] > 0x7e)
			return false;
		out[i] = (char)b[i];
	}
	out[i] = '\0';
	return true;
}

int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz)
{
	const uint8_t *b = data;
	if (len < HEADER_V1) {
		snprintf(why, whysz, "a value of %zu bytes", len);
		return -1;
	}
	if (b[0] > FORMAT)
		return 0; /* written by a newer racer: not ours to judge */
	size_t header = header_len(b);
	int box = b[3];
	if (b[0] < 1 || len < header || (b[1] != VERDICT_SOLVED && b[1] != VERDICT_UNSAT) ||
	    b[2] > UNIQ_MULTIPLE || box < GRID_MIN_BOX || box > GRID_MAX_BOX) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	size_t cells = (size_t)box * box * box * box;
	bool solved = b[1] == VERDICT_SOLVED;
	if (len != header + cells * (solved ? 2 : 1)) {
		snprintf(why, whysz, "a value of %zu bytes for a %dx%d grid", len, box * box, box * box);
		return -1;
	}
	e->provers[0] = '\0';
	if (!copy_name(e->winner, b + 8, 16) || !copy_name(e->version, b + 24, 16) ||
	    (header == HEADER && !copy_name(e->provers, b + PROVERS_AT, CACHE_PROVERS_MAX - 1))) {
		snprintf(why, whysz, "a malformed name");
		return -1;
	}
	e->verdict = solved ? V_SOLVED : V_UNSAT;
	e->uniq = (enum uniqueness)b[2];
	e->ms = (double)((uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24) /
		1000.0;
	if (puzzle) {
		puzzle->box = box;
		puzzle->side = box * box;
		puzzle->cells = (int)cells;
		memcpy(puzzle->cell, b + header, cells);
	}
	if (solved) {
		e->solution.box = box;
		e->solution.side = box * box;
		e->solution.cells = (int)cells;
		memcpy(e->solution.cell, b + header + cells, cells);
	}
	return 1;
}

/* --- where the cache lives --- */

const char *cache_default_dir(void)
{
	static char dir[4096];
	const char *xdg = getenv("XDG_CACHE_HOME");
	/* the XDG spec: a relative path is to be ignored */
	if (xdg && xdg[0] == '/') {
		snprintf(dir, sizeof dir, "%s/sudoku-race", xdg);
		return dir;
	}
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !home[0])
		return NULL;
	snprintf(dir, sizeof dir, "%s/.cache/sudoku-race", home);
	return dir;
}

int cache_parse_size(const char *s, size_t *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -1;
	double unit = 1;
	if (*end) {
		const char *units = "KMGT";
		const char *u = strchr(units, end[0] & ~0x20);
		if (!u || !*u || (end[1] && strcmp(end + 1, "iB") != 0 && strcmp(end + 1, "B") != 0))
			return -1;
		for (const char *p = units; p <= u; p++)
			unit *= 1024;
	}
	v *= unit;
	if (v < CACHE_SIZE_MIN || v > 1e15)
		return -1;
	*bytes = (size_t)v;
	return 0;
}

/* mkdir -p, each directory it creates with mode 0700. */
static int make_dirs(const char *path, char *err, size_t errsz)
{
	char buf[4096];
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

/* Errors by which LMDB says its file is not what it should be. */
static bool is_damage(int rc)
{
	return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID ||
	       rc == MDB_VERSION_MISMATCH || rc == MDB_BAD_TXN || rc == MDB_BAD_VALSIZE || rc == MDB_PAGE_FULL;
}

static void drop_pending(void)
{
	for (size_t i = 0; i < npending; i++)
		free(pending[i].value);
	npending = 0;
}

static void close_env(void *arg)
{
	(void)arg;
	if (tcur)
		mdb_cursor_close(tcur);
	tcur = NULL;
	if (ttxn)
		mdb_txn_abort(ttxn);
	ttxn = NULL;
	if (rtxn)
		mdb_txn_abort(rtxn);
	rtxn = NULL;
	if (env)
		mdb_env_close(env);
}

/* Lets go of the store. After a fault LMDB's state is not to be trusted,
 * so a second fault while closing leaves it as it is (the process keeps
 * a mapping and two descriptors). */
static void release_env(void)
{
	if (env && trapped(close_env, NULL) != 0)
		rtxn = NULL;
	env = NULL;
	enabled = false;
	reading = false;
	drop_pending();
}

/* The store is damaged: set aside (or removed, for cache clear), and msg
 * says so. */
static void set_aside(const char *why, char *msg, size_t msgsz)
{
	release_env();
	char data[4200], lock[4200], aside[4300];
	snprintf(data, sizeof data, "%s/data.mdb", store_dir);
	snprintf(lock, sizeof lock, "%s/lock.mdb", store_dir);
	if (remove_damaged) {
		if (unlink(data) < 0 && errno != ENOENT)
			snprintf(msg, msgsz, "%s is damaged (%s) and cannot be removed: %s", data, why,
				 strerror(errno));
		else
			snprintf(msg, msgsz, "%s was damaged (%s): removed", data, why);
		removed = true;
		unlink(lock);
		return;
	}
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	snprintf(aside, sizeof aside, "%s.damaged-%s-%ld", data, stamp, (long)getpid());
	/* the lock file first: a racer that opens the directory now makes a
	 * new one, never pairs the old lock with a new data file */
	unlink(lock);
	if (rename(data, aside) == 0)
		snprintf(msg, msgsz, "%s is damaged (%s); set aside as %s", data, why, aside);
	else if (errno == ENOENT)
		snprintf(msg, msgsz, "%s is damaged (%s); another racer has set it aside", data, why);
	else
		snprintf(msg, msgsz, "%s is damaged (%s) and cannot be set aside: %s", data, why,
			 strerror(errno));
}

/* Damage found while running: one warning, then no cache. */
static void damaged(const char *why)
{
	char msg[9000];
	set_aside(why, msg, sizeof msg);
	if (!failed_once)
		warn("cache: %s; going on without the cache", msg);
	failed_once = true;
}

static void fault_why(int sig, char *why, size_t whysz)
{
	if (sig == SIGBUS)
		snprintf(why, whysz, "LMDB ran past the end of the file (SIGBUS)");
	else if (sig == SIGSEGV)
		snprintf(why, whysz, "LMDB went outside the file (SIGSEGV)");
	else if (sig == SIGABRT)
		snprintf(why, whysz, "LMDB failed its own checks (abort)");
	else
		snprintf(why, whysz, "LMDB crashed (%s)", strsignal(sig));
}

void cache_fail(const char *what, int rc)
{
	if (is_damage(rc)) {
		char why[256];
		snprintf(why, sizeof why, "%s: %s", what, mdb_strerror(rc));
		damaged(why);
		return;
	}
	if (!failed_once)
		warn("cache: %s: %s; going on without the cache", what, mdb_strerror(rc));
	failed_once = true;
	release_env();
}

static int in_child(void (*fn)(void *), void *arg, size_t argsz, int *open_rc);

/* Signals by which LMDB's reading or writing ends on a damaged file. */
static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT;
}

/* --- open --- */

/* key used at tick (0: not any more). */
static int set_use(MDB_txn *txn, const uint8_t key[16], uint64_t tick)
{
	MDB_val k = {16, (void *)key};
	if (!tick) {
		int rc = mdb_del(txn, uses_dbi, &k, NULL);
		return rc == MDB_NOTFOUND ? 0 : rc;
	}
	uint8_t t[8];
	put_le64(t, tick);
	MDB_val v = {sizeof t, t};
	return mdb_put(txn, uses_dbi, &k, &v, 0);
}


struct open_check {
	bool create; /* the uses database and the format record are missing */
	int rc;
	int format;  /* 0: no record */
	size_t cap;  /* the size limit it records; 0: none */
	char why[256];
};

/* In a read transaction: the databases, and the format record. */
static void check_store(void *arg)
{
	struct open_check *c = arg;
	c->rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &ttxn);
	MDB_txn *txn = ttxn;
	if (c->rc != 0)
		return;
	c->rc = mdb_dbi_open(txn, NULL, 0, &dbi);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	int rc = c->rc == 0 ? mdb_get(txn, dbi, &k, &v) : c->rc;
	if (rc == 0) {
		const uint8_t *b = v.mv_data;
		if (v.mv_size != META_LEN || memcmp(b, META_MAGIC, 7) != 0) {
			snprintf(c->why, sizeof c->why, "its format record is garbage");
			mdb_txn_abort(txn);
			ttxn = NULL;
			return;
		}
		c->format = b[7];
		c->cap = (size_t)get_le64(b + 16);
	} else if (rc != MDB_NOTFOUND) {
		c->rc = rc;
		mdb_txn_abort(txn);
		ttxn = NULL;
		return;
	}
	if (c->format > FORMAT) {
		mdb_txn_abort(txn);
		ttxn = NULL;
		return;
	}
	rc = mdb_dbi_open(txn, "uses", 0, &uses_dbi);
	if (rc == MDB_NOTFOUND || c->format == 0) {
		c->create = true;
		rc = 0;
	}
	if (rc != 0) {
		c->rc = rc;
		mdb_txn_abort(txn);
		ttxn = NULL;
		return;
	}
	c->rc = mdb_txn_commit(txn);
	ttxn = NULL;
}

/* The file's length, and the length its pages take as LMDB's meta page
 * says (up to its last page); false when either cannot be read. */
static bool file_extent(int *fd, off_t *have, off_t *need)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat fs;
	if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0 || mdb_env_get_fd(env, fd) != 0 ||
	    fstat(*fd, &fs) != 0)
		return false;
	*have = fs.st_size;
	*need = ((off_t)info.me_last_pgno + 1) * st.ms_psize;
	return true;
}

/* After a commit: the file as long as LMDB's last page says. LMDB does not
 * write pages that a transaction took and freed again ("loose"), so its
 * file may end short of its last page; the open's check for a file cut
 * short counts on it not doing so (holes are free pages). */
static int fill_out(void)
{
	int fd;
	off_t have, need;
	if (!file_extent(&fd, &have, &need))
		return 0;
	return have < need && ftruncate(fd, need) < 0 ? errno : 0;
}

/* The end of a write transaction: committed, and the file filled out to
 * its last page, unless *rc already says it failed (then abandoned). */
static void end_write(MDB_txn *txn, int *rc)
{
	if (*rc == 0)
		*rc = mdb_txn_commit(txn);
	else
		mdb_txn_abort(txn);
	if (*rc == 0)
		*rc = fill_out();
}

static void write_meta(MDB_txn *txn, uint64_t tick, int *rc)
{
	uint8_t m[META_LEN];
	memcpy(m, META_MAGIC, 7);
	m[7] = FORMAT;
	put_le64(m + 8, tick);
	put_le64(m + 16, cap_bytes);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v = {sizeof m, m};
	*rc = mdb_put(txn, dbi, &k, &v, 0);
}

/* A store of format 1 (or a new one): the uses database, every entry in
 * it as used at tick 1 (before any use to come), and the format record. */
static void create_uses(void *arg)
{
	struct open_check *c = arg;
	MDB_txn *txn;
	c->rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (c->rc != 0)
		return;
	c->rc = mdb_dbi_open(txn, "uses", MDB_CREATE, &uses_dbi);
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	/* another racer may have done it meanwhile */
	if (c->rc == 0 && mdb_get(txn, dbi, &k, &v) == MDB_NOTFOUND) {
		MDB_cursor *cur;
		c->rc = mdb_cursor_open(txn, dbi, &cur);
		int rc = c->rc;
		while (rc == 0 && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
			if (k.mv_size != 16)
				continue;
			rc = set_use(txn, k.mv_data, 1); /* older than any use to come */
		}
		/* (a write transaction's cursors close with it) */
		if (c->rc == 0 && rc != MDB_NOTFOUND)
			c->rc = rc;
		if (c->rc == 0)
			write_meta(txn, 1, &c->rc);
	}
	end_write(txn, &c->rc);
}

/* The file must hold every page LMDB's meta page says it has. */
static bool truncated(char *why, size_t whysz)
{
	int fd;
	off_t have, need;
	if (!file_extent(&fd, &have, &need) || have >= need)
		return false;
	snprintf(why, whysz, "cut short: %lld bytes, where its pages take %lld", (long long)have, (long long)need);
	return true;
}

int cache_open(const char *dir, bool readonly, char *err, size_t errsz)
{
	if (!readonly && make_dirs(dir, err, errsz) < 0)
		return -1;
	snprintf(store_dir, sizeof store_dir, "%s", dir);
	cap_bytes = opt.cache_size ? opt.cache_size : CACHE_SIZE_DEFAULT;
	int rc = mdb_env_create(&env);
	if (rc == 0)
		rc = mdb_env_set_mapsize(env, cap_bytes);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(env, 256);
	if (rc == 0)
		rc = mdb_env_set_maxdbs(env, 2);
	if (rc == 0)
		rc = mdb_env_set_assert(env, on_lmdb_assert);
	/* NOTLS: our read transaction is reset and renewed around each batch
	 * of look-ups, independent of the write transactions. NOMETASYNC: a
	 * crash may lose the last batch, never the store's consistency. */
	if (rc == 0)
		rc = mdb_env_open(env, dir, MDB_NOTLS | MDB_NOMETASYNC | (readonly ? MDB_RDONLY : 0), 0600);
	if (rc != 0) {
		if (env)
			mdb_env_close(env);
		env = NULL;
		if (is_damage(rc)) {
			set_aside(mdb_strerror(rc), err, errsz);
			return -1;
		}
		snprintf(err, errsz, "%s: %s", dir, mdb_strerror(rc));
		return -1;
	}
	int dead;
	mdb_reader_check(env, &dead);
	MDB_stat st;
	mdb_env_stat(env, &st);
	cap_pages = cap_bytes / st.ms_psize;

	char why[256] = "";
	struct open_check c;
	memset(&c, 0, sizeof c); /* its padding too: it crosses a pipe */
	int sig = 0, open_rc = 0;
	bool bad = truncated(why, sizeof why);
	if (!bad) {
		sig = trapped(check_store, &c);
		if (sig == 0 && c.rc == 0 && !c.why[0] && c.create && !readonly) {
			sig = in_child(create_uses, &c, sizeof c, &open_rc);
			if (sig == 0 && c.rc == 0) {
				memset(&c, 0, sizeof c);
				sig = trapped(check_store, &c);
			}
		}
		bad = true;
		if (sig == -3)
			snprintf(why, sizeof why, "reading it ended a process without a report");
		else if (is_fault(sig))
			fault_why(sig, why, sizeof why);
		else if (c.why[0])
			snprintf(why, sizeof why, "%s", c.why);
		else if (is_damage(c.rc))
			snprintf(why, sizeof why, "%s", mdb_strerror(c.rc));
		else
			bad = false;
	}
	if (bad) {
		set_aside(why, err, errsz);
		return -1;
	}
	if (sig == -1 || sig == -2) {
		snprintf(err, errsz, "%s: %s", dir, sig == -1 ? strerror(errno) : mdb_strerror(open_rc));
		rc = -1;
	} else if (sig != 0) {
		snprintf(err, errsz, "%s: the process that prepared it was killed (%s)", dir, strsignal(sig));
		rc = -1;
	} else if (c.rc == 0 && c.format > FORMAT) {
		snprintf(err, errsz, "%s: made by a newer sudoku-race (cache format %d)", dir, c.format);
		rc = -1;
	} else if (c.rc != 0) {
		snprintf(err, errsz, "%s: %s", dir, mdb_strerror(c.rc));
		rc = -1;
	} else if (!opt.cache_size && c.cap >= CACHE_SIZE_MIN && c.cap != cap_bytes) {
		/* the limit the store keeps (the next write keeps it again) */
		cap_bytes = c.cap;
		cap_pages = cap_bytes / st.ms_psize;
		rc = mdb_env_set_mapsize(env, cap_bytes);
		if (rc != 0)
			snprintf(err, errsz, "%s: %s", dir, mdb_strerror(rc));
	}
	if (rc != 0) {
		release_env();
		return -1;
	}
	enabled = true;
	return 0;
}

bool cache_enabled(void)
{
	return enabled;
}

size_t cache_limit(void)
{
	return cap_bytes;
}

void cache_close(void)
{
	cache_flush();
	release_env();
	free(pending);
	pending = NULL;
	cappending = 0;
	if (flush_timer)
		event_free(flush_timer);
	flush_timer = NULL;
	trap_remove();
}

/* --- look-ups --- */

struct read_begin {
	int rc;
};

static void read_begin(void *arg)
{
	struct read_begin *r = arg;
	r->rc = rtxn ? mdb_txn_renew(rtxn) : mdb_txn_begin(env, NULL, MDB_RDONLY, &rtxn);
	if (r->rc == MDB_MAP_RESIZED) {
		/* another racer, with a larger --cache-size, grew the file */
		mdb_env_set_mapsize(env, 0);
		r->rc = rtxn ? mdb_txn_renew(rtxn) : mdb_txn_begin(env, NULL, MDB_RDONLY, &rtxn);
	}
	if (r->rc != 0)
		return;
	/* where the order of use stands, for worth_touching */
	MDB_val k = {sizeof META_KEY - 1, META_KEY}, v;
	MDB_stat st;
	store_tick = mdb_get(rtxn, dbi, &k, &v) == 0 && v.mv_size == META_LEN
			     ? get_le64((const uint8_t *)v.mv_data + 8)
			     : 0;
	store_entries = mdb_stat(rtxn, uses_dbi, &st) == 0 ? st.ms_entries : 0;
}

/* Whether a hit on a stored value is written down as a use. Moving an
 * entry in the order of use is a write (of its record in "uses"),
 * so, as memcached does with items bumped lately, an entry is moved only
 * when it is in the oldest eighth of the order (as ticks go), which is
 * what one eviction takes (apply: from high to high - high / 8): a warm
 * run writes an eighth of its hits at most, and an eviction still takes
 * no entry used since the one before. */
static bool worth_touching(const uint8_t key[16])
{
	MDB_val k = {16, (void *)key}, v;
	if (mdb_get(rtxn, uses_dbi, &k, &v) != 0 || v.mv_size != 8)
		return true;
	uint64_t tick = get_le64(v.mv_data);
	uint64_t recent = (uint64_t)store_entries * 7 / 8;
	return store_tick < recent || tick < store_tick - recent;
}

void cache_read_begin(void)
{
	if (!enabled || reading)
		return;
	struct read_begin r;
	int sig = trapped(read_begin, &r);
	if (sig) {
		char why[128];
		fault_why(sig, why, sizeof why);
		damaged(why);
		return;
	}
	if (r.rc != 0) {
		cache_fail("cannot read", r.rc);
		return;
	}
	reading = true;
}

static void flush_soon(void);
static void flush_async(void);

void cache_read_end(void)
{
	if (reading) {
		mdb_txn_reset(rtxn);
		reading = false;
	}
	if (npending >= BATCH)
		flush_async();
}

static void queue(enum op op, const uint8_t key[16], uint8_t *value, size_t len)
{
	if (npending == cappending) {
		cappending = cappending ? 2 * cappending : 64;
		pending = realloc(pending, cappending * sizeof *pending);
		if (!pending)
			die("out of memory");
	}
	struct pending *p = &pending[npending++];
	p->op = op;
	memcpy(p->key, key, 16);
	p->value = value;
	p->len = len;
	if (npending >= BATCH && !reading)
		flush_async();
	else
		flush_soon();
}

struct lookup {
	const struct grid *puzzle;
	struct cache_entry *e;
	char *why;
	size_t whysz;
	uint8_t key[16];
	int rc;
	enum cache_result res;
	bool touch; /* a hit worth writing down as a use */
};

enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len,
			      struct cache_entry *e, char *why, size_t whysz)
{
	const uint8_t *b = data;
	int d = cache_decode(data, len, NULL, e, why, whysz);
	if (d <= 0)
		return d == 0 ? CACHE_MISS : CACHE_BAD;
	if (b[3] != puzzle->box || memcmp(b + header_len(b), puzzle->cell, (size_t)puzzle->cells) != 0) {
		snprintf(why, whysz, "it is the entry of another puzzle");
		return CACHE_BAD;
	}
	if (e->verdict == V_SOLVED && !grid_verify(puzzle, &e->solution, why, whysz))
		return CACHE_BAD;
	return CACHE_HIT;
}

static void lookup(void *arg)
{
	struct lookup *l = arg;
	MDB_val k = {sizeof l->key, l->key}, v;
	l->rc = mdb_get(rtxn, dbi, &k, &v);
	l->res = CACHE_MISS;
	if (l->rc != 0)
		return;
	l->res = cache_check(l->puzzle, v.mv_data, v.mv_size, l->e, l->why, l->whysz);
	if (l->res == CACHE_HIT)
		l->touch = worth_touching(l->key);
}

enum cache_result cache_get(const struct grid *puzzle, struct cache_entry *e, char *why,
			    size_t whysz)
{
	if (!enabled)
		return CACHE_MISS;
	bool own = !reading;
	if (own)
		cache_read_begin();
	if (!reading)
		return CACHE_MISS;
	struct lookup l = {.puzzle = puzzle, .e = e, .why = why, .whysz = whysz, .touch = false};
	make_key(puzzle, l.key);
	int sig = trapped(lookup, &l);
	if (sig) {
		fault_why(sig, why, whysz);
		damaged(why);
		return CACHE_MISS;
	}
	if (l.rc != 0 && l.rc != MDB_NOTFOUND) {
		cache_fail("cannot read", l.rc);
		return CACHE_MISS;
	}
	if (own)
		cache_read_end();
	if (l.res == CACHE_HIT) {
		cache_counts.hits++;
		if (l.touch)
			queue(OP_TOUCH, l.key, NULL, 0);
	} else if (l.res == CACHE_BAD) {
		cache_counts.bad++;
	} else {
		cache_counts.misses++;
	}
	return l.res;
}

/* --- every entry --- */

struct walk {
	cache_visit fn;
	void *arg;
	int rc;
};

static void walk(void *arg)
{
	struct walk *w = arg;
	static struct grid puzzle;
	static struct cache_entry e;
	char why[128];
	w->rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &ttxn);
	if (w->rc != 0)
		return;
	w->rc = mdb_cursor_open(ttxn, dbi, &tcur);
	MDB_val k, v;
	while (w->rc == 0 && (w->rc = mdb_cursor_get(tcur, &k, &v, MDB_NEXT)) == 0) {
		if (k.mv_size != 16)
			continue; /* the format record, the uses database's name */
		int d = cache_decode(v.mv_data, v.mv_size, &puzzle, &e, why, sizeof why);
		w->fn(d > 0 ? &puzzle : NULL, d > 0 ? &e : NULL, d, w->arg);
	}
	if (tcur)
		mdb_cursor_close(tcur);
	tcur = NULL;
	/* the order of use too: damage there is damage */
	if (w->rc == MDB_NOTFOUND && (w->rc = mdb_cursor_open(ttxn, uses_dbi, &tcur)) == 0) {
		while ((w->rc = mdb_cursor_get(tcur, &k, &v, MDB_NEXT)) == 0)
			;
		mdb_cursor_close(tcur);
		tcur = NULL;
	}
	if (w->rc == MDB_NOTFOUND)
		w->rc = 0;
	mdb_txn_abort(ttxn);
	ttxn = NULL;
}

int cache_each(cache_visit fn, void *arg, char *err, size_t errsz)
{
	if (!enabled) {
		snprintf(err, errsz, "%s: not open", store_dir);
		return -1;
	}
	struct walk w = {fn, arg, 0};
	int sig = trapped(walk, &w);
	if (sig || is_damage(w.rc)) {
		char why[256];
		if (sig)
			fault_why(sig, why, sizeof why);
		else
			snprintf(why, sizeof why, "%s", mdb_strerror(w.rc));
		set_aside(why, err, errsz);
		return -1;
	}
	if (w.rc != 0) {
		snprintf(err, errsz, "%s: %s", store_dir, mdb_strerror(w.rc));
		return -1;
	}
	return 0;
}

/* --- clear --- */

struct clear {
	size_t entries;
	int rc;
};

static void clear(void *arg)
{
	struct clear *c = arg;
	MDB_txn *txn;
	MDB_stat ms;
	c->rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (c->rc != 0)
		return;
	if (mdb_stat(txn, uses_dbi, &ms) == 0)
		c->entries = ms.ms_entries;
	c->rc = mdb_drop(txn, uses_dbi, 0);
	if (c->rc == 0)
		c->rc = mdb_drop(txn, dbi, 0);
	if (c->rc == 0)
		write_meta(txn, 1, &c->rc);
	end_write(txn, &c->rc);
}

int cache_clear(const char *dir, size_t *entries, char *msg, size_t msgsz)
{
	remove_damaged = true;
	*entries = 0;
	if (cache_open(dir, false, msg, msgsz) < 0)
		return removed ? 1 : -1;
	struct clear c;
	memset(&c, 0, sizeof c); /* its padding too: it crosses a pipe */
	int open_rc = 0;
	int res = in_child(clear, &c, sizeof c, &open_rc);
	if (is_fault(res) || res == -3 || is_damage(c.rc) || (res == -2 && is_damage(open_rc))) {
		char why[256];
		if (res == -3)
			snprintf(why, sizeof why, "writing to it ended a process without a report");
		else if (res > 0)
			fault_why(res, why, sizeof why);
		else
			snprintf(why, sizeof why, "%s", mdb_strerror(res == -2 ? open_rc : c.rc));
		set_aside(why, msg, msgsz);
		return 1;
	}
	if (res != 0)
		c.rc = res == -1 ? errno : res == -2 ? open_rc : EINTR;
	cache_close();
	if (c.rc != 0) {
		snprintf(msg, msgsz, "%s: %s", dir, mdb_strerror(c.rc));
		return -1;
	}
	*entries = c.entries;
	return 0;
}

/* --- writes --- */

void cache_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (!enabled)
		return;
	size_t len = HEADER + (size_t)puzzle->cells * (e->verdict == V_SOLVED ? 2 : 1);
	uint8_t *buf = xmalloc(len);
	cache_encode(puzzle, e, buf, len);
	uint8_t key[16];
	make_key(puzzle, key);
	queue(OP_PUT, key, buf, len);
}

void cache_delete(const struct grid *puzzle)
{
	if (!enabled)
		return;
	uint8_t key[16];
	make_key(puzzle, key);
	queue(OP_DELETE, key, NULL, 0);
}

/* Whether an entry already stored should stay rather than the new one: it
 * knows at least as much. A verified solution beats an unsat claim; knowing
 * uniqueness beats not knowing; a verdict with its provers beats one
 * without. */
static bool keep_stored(const MDB_val *stored, const uint8_t *fresh, size_t fresh_len)
{
	static struct grid sp;
	static struct cache_entry se, fe;
	char why[GRID_ERR_MAX];
	if (cache_decode(stored->mv_data, stored->mv_size, &sp, &se, why, sizeof why) <= 0)
		return false;
	if (cache_decode(fresh, fresh_len, NULL, &fe, why, sizeof why) <= 0)
		return true;
	if (sp.box != fresh[3] || memcmp(sp.cell, fresh + HEADER, (size_t)sp.cells) != 0)
		return false; /* another puzzle's entry (a collision): replaced */
	if (se.verdict == V_SOLVED && !grid_verify(&sp, &se.solution, why, sizeof why))
		return false;
	if (se.verdict != fe.verdict)
		return se.verdict == V_SOLVED;
	if (se.verdict == V_SOLVED && se.uniq == UNIQ_UNKNOWN && fe.uniq != UNIQ_UNKNOWN)
		return false;
	return !(se.provers[0] == '\0' && fe.provers[0] != '\0');
}

/* Pages the three databases hold (and the two meta pages): what is in use.
 * The rest of the file is free pages. */
static size_t used_pages(MDB_txn *txn)
{
	size_t used = 2;
	MDB_dbi dbs[] = {0 /* LMDB's free list */, dbi, uses_dbi};
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
		MDB_stat s;
		if (mdb_stat(txn, dbs[i], &s) == 0)
			used += s.ms_branch_pages + s.ms_leaf_pages + s.ms_overflow_pages;
	}
	return used;
}

static int cmp_tick(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Deletes the least recently used entries until pages in use are at most
 * target: in rounds, each the oldest share of the entries that the pages
 * over target are of all (the ticks read, sorted, and the entries at or
 * below the share's last tick deleted). */
static int evict(MDB_txn *txn, size_t target, long *evicted)
{
	int rc = 0;
	size_t used;
	while (rc == 0 && (used = used_pages(txn)) > target) {
		MDB_stat st;
		rc = mdb_stat(txn, uses_dbi, &st);
		if (rc != 0 || st.ms_entries == 0)
			break;
		size_t count = st.ms_entries, n = count * (used - target) / used;
		n = n ? n : 1;
		uint64_t *ticks = malloc(count * sizeof *ticks);
		if (!ticks)
			return ENOMEM;
		MDB_cursor *cur;
		rc = mdb_cursor_open(txn, uses_dbi, &cur);
		MDB_val k, v;
		size_t got = 0;
		while (rc == 0 && got < count && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
			ticks[got++] = v.mv_size == 8 ? get_le64(v.mv_data) : 0;
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
			if ((v.mv_size == 8 ? get_le64(v.mv_data) : 0) > last)
				continue;
			uint8_t key[16] = {0};
			if (k.mv_size == 16)
				memcpy(key, k.mv_data, 16);
			MDB_val mk = {sizeof key, key};
			/* (MDB_NEXT after a delete gives the entry that followed) */
			rc = mdb_cursor_del(cur, 0);
			if (rc == 0 && k.mv_size == 16)
				rc = mdb_del(txn, dbi, &mk, NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
			deleted++;
			(*evicted)++;
		}
		if (rc == MDB_NOTFOUND)
			rc = 0;
		mdb_cursor_close(cur);
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

/* Room the entries leave in the map for LMDB's copies: a transaction
 * writes a new copy of every page it changes, and the pages the one before
 * freed are reused only after it. Each of the two changes at most a path
 * and an entry's overflow pages per entry written, or all the pages there
 * are: at most two thirds of the map. */
static size_t reserve_pages(MDB_txn *txn, const struct write *w)
{
	MDB_stat st;
	if (mdb_stat(txn, dbi, &st) != 0)
		return cap_pages * 2 / 3;
	size_t overflow = 0;
	for (size_t i = w->from; i < w->from + w->n; i++) {
		size_t pages = (pending[i].len + 64) / st.ms_psize;
		overflow = pages > overflow ? pages : overflow;
	}
	size_t n = w->n > BATCH ? w->n : BATCH;
	size_t per_entry = st.ms_depth + 2 /* the uses path, a split */ + overflow;
	size_t reserve = 2 * n * per_entry;
	return reserve < cap_pages * 2 / 3 ? reserve : cap_pages * 2 / 3;
}

static void apply(MDB_txn *txn, struct write *w)
{
	MDB_val mk = {sizeof META_KEY - 1, META_KEY}, mv;
	uint64_t tick = 1;
	w->rc = mdb_get(txn, dbi, &mk, &mv);
	if (w->rc == 0 && mv.mv_size == META_LEN)
		tick = get_le64((const uint8_t *)mv.mv_data + 8);
	else if (w->rc == 0 || w->rc == MDB_NOTFOUND)
		w->rc = 0;
	for (size_t i = w->from; i < w->from + w->n && w->rc == 0 && !w->evict_only; i++) {
		struct pending *p = &pending[i];
		MDB_val k = {sizeof p->key, p->key}, v;
		int rc = mdb_get(txn, dbi, &k, &v);
		if (rc != 0 && rc != MDB_NOTFOUND) {
			w->rc = rc;
			break;
		}
		bool had = rc == 0;
		switch (p->op) {
		case OP_DELETE:
			if (had) {
				w->rc = mdb_del(txn, dbi, &k, NULL);
				if (w->rc == 0)
					w->rc = set_use(txn, p->key, 0);
			}
			break;
		case OP_TOUCH:
			if (had)
				w->rc = set_use(txn, p->key, ++tick);
			break;
		case OP_PUT:
			if (had && keep_stored(&v, p->value, p->len)) {
				w->rc = set_use(txn, p->key, ++tick);
				break;
			}
			put_le64(p->value + TICK_AT, ++tick);
			v.mv_data = p->value;
			v.mv_size = p->len;
			w->rc = mdb_put(txn, dbi, &k, &v, 0);
			if (w->rc == 0)
				w->rc = set_use(txn, p->key, tick);
			w->written++;
			break;
		}
	}
	if (w->rc == 0)
		write_meta(txn, tick, &w->rc);
	size_t high = cap_pages - reserve_pages(txn, w), low = high - high / 8;
	if (w->rc == 0 && (w->evict_only || used_pages(txn) > high))
		w->rc = evict(txn, w->evict_only ? low / 2 : low, &w->evicted);
}

static void write_batch(void *arg)
{
	struct write *w = arg;
	MDB_txn *txn;
	w->rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (w->rc == MDB_MAP_RESIZED) {
		mdb_env_set_mapsize(env, 0);
		w->rc = mdb_txn_begin(env, NULL, 0, &txn);
	}
	if (w->rc != 0)
		return;
	apply(txn, w);
	end_write(txn, &w->rc);
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (!reading)
		flush_async();
	else
		flush_soon();
}

static void flush_soon(void)
{
	if (!base)
		return;
	if (!flush_timer) {
		flush_timer = evtimer_new(base, flush_cb, NULL);
		if (!flush_timer)
			die("out of memory");
	}
	if (!evtimer_pending(flush_timer, NULL)) {
		struct timeval tv = {0, BATCH_MS * 1000};
		evtimer_add(flush_timer, &tv);
	}
}

struct write_result {
	int rc;   /* LMDB's, for the last transaction tried */
	long written, evicted;
};

/* One transaction for the whole queue. When the map is full (a batch
 * larger than the room left for page copies), entries are evicted in a
 * transaction of their own and the queue written in smaller parts: the
 * run's answers are never lost to a full store, only old entries. */
static void write_all(void *arg)
{
	struct write_result *r = arg;
	size_t done = 0, part = npending;
	bool evicted_for_it = false;
	while (done < npending) {
		struct write w = {.from = done, .n = part < npending - done ? part : npending - done};
		write_batch(&w);
		r->rc = w.rc;
		/* full even for one entry, just after evicting: it does not fit */
		if (w.rc == MDB_MAP_FULL && !(part == 1 && evicted_for_it)) {
			evicted_for_it = true;
			/* LMDB reuses the pages a transaction frees only two
			 * transactions later: one that writes just the format
			 * record is the second (or the first, when the last
			 * transaction freed pages) */
			struct write nop = {.n = 0}, e = {.evict_only = true};
			write_batch(&nop);
			write_batch(&e);
			if (e.rc == 0)
				r->evicted += e.evicted;
			write_batch(&nop);
			part = part > 1 ? part / 2 : 1;
			continue;
		}
		if (w.rc != 0)
			return;
		evicted_for_it = false;
		done += w.n;
		r->written += w.written;
		r->evicted += w.evicted;
	}
}

/* What a child reports, then the argument it was given, as fn left it:
 * one write, at most PIPE_BUF bytes, so one read takes it all. */
#define CHILD_ARG_MAX 1024
struct child_report {
	int sig;     /* a fault that ended fn */
	int open_rc; /* the store could not be opened */
};

static int open_child_env(void)
{
	int rc = mdb_env_create(&env);
	if (rc == 0)
		rc = mdb_env_set_mapsize(env, cap_bytes);
	if (rc == 0)
		rc = mdb_env_set_maxdbs(env, 2);
	if (rc == 0)
		rc = mdb_env_set_assert(env, on_lmdb_assert);
	if (rc == 0)
		rc = mdb_env_open(env, store_dir, MDB_NOTLS | MDB_NOMETASYNC, 0600);
	MDB_txn *txn;
	if (rc == 0)
		rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
	if (rc == 0) {
		rc = mdb_dbi_open(txn, NULL, 0, &dbi);
		/* none yet when create_uses is what the child is for */
		if (rc == 0 && uses_dbi)
			rc = mdb_dbi_open(txn, "uses", 0, &uses_dbi);
		if (rc == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	return rc;
}

/* Starts fn(arg) in a child process with its own handle on the store.
 * Every write goes this way: LMDB writing into a damaged file can overrun
 * its own buffers (glibc then aborts on a corrupt heap), which no trap
 * undoes; in a child it costs the child. The child's report, then arg as
 * fn left it, come on *fd in one write. -1 when there is no child (errno). */
static int child_start(void (*fn)(void *), void *arg, size_t argsz, pid_t *pid, int *fd)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	*pid = fork();
	if (*pid == 0) {
		/* a ^C or a SIGTERM to the racer's group is for the racer: the
		 * batch ends in its few milliseconds, and a write cut short
		 * would read as damage */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGCHLD, SIG_DFL);
		/* what LMDB or a sanitizer says of a damaged file is said once,
		 * by the parent */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
		close(fds[0]);
		/* the parent's handle stays untouched: LMDB's do not cross a fork */
		rtxn = NULL;
		struct child_report rep = {0, open_child_env()};
		if (rep.open_rc == 0)
			rep.sig = trapped(fn, arg);
		uint8_t out[sizeof rep + CHILD_ARG_MAX];
		if (argsz > sizeof out - sizeof rep)
			_exit(1);
		memcpy(out, &rep, sizeof rep);
		memcpy(out + sizeof rep, arg, argsz);
		_exit(write(fds[1], out, sizeof rep + argsz) == (ssize_t)(sizeof rep + argsz) ? 0 : 1);
	}
	int err = errno;
	close(fds[1]);
	if (*pid < 0) {
		close(fds[0]);
		errno = err;
		return -1;
	}
	*fd = fds[0];
	return 0;
}

/* Reads the child's report (waiting for it) and reaps the child. Returns
 * 0; the signal that ended fn or the child (SIGABRT for LMDB's own
 * checks); -2 when the child could not open the store (*open_rc); -3 when
 * it ended without a report and without a signal we know of. */
static int child_finish(pid_t pid, int fd, void *arg, size_t argsz, int *open_rc)
{
	struct child_report rep = {0, 0};
	uint8_t in[sizeof rep + CHILD_ARG_MAX];
	ssize_t got;
	while ((got = read(fd, in, sizeof in)) < 0 && errno == EINTR)
		;
	close(fd);
	/* (the racer's SIGCHLD handler may have reaped it: then no status) */
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)(sizeof rep + argsz))
		return WIFSIGNALED(st) ? WTERMSIG(st) : -3;
	memcpy(&rep, in, sizeof rep);
	memcpy(arg, in + sizeof rep, argsz);
	if (rep.open_rc) {
		*open_rc = rep.open_rc;
		return -2;
	}
	return rep.sig;
}

/* fn(arg) in a child, waiting for it: as child_finish, or -1 (errno). */
static int in_child(void (*fn)(void *), void *arg, size_t argsz, int *open_rc)
{
	pid_t pid;
	int fd;
	if (child_start(fn, arg, argsz, &pid, &fd) < 0)
		return -1;
	return child_finish(pid, fd, arg, argsz, open_rc);
}

/* What a failed in_child says: damage (a fault, LMDB's own checks), or
 * an error (a child killed from outside is not the store's fault). */
static void child_failed(int res, int open_rc, const char *what)
{
	char why[256];
	if (res == -1) {
		cache_fail(what, errno);
	} else if (res == -2) {
		cache_fail(what, open_rc);
	} else if (is_fault(res) || res == -3) {
		/* -3: a sanitizer's exit, or a crash whose status the racer's
		 * SIGCHLD handler took */
		if (res == -3)
			snprintf(why, sizeof why, "writing to it ended the writer process without a report");
		else
			fault_why(res, why, sizeof why);
		damaged(why);
	} else {
		if (!failed_once)
			warn("cache: %s: the writer process was killed (%s); going on without the cache", what,
			     strsignal(res));
		failed_once = true;
		release_env();
	}
}

/* The writer at work while the event loop goes on (at most one). */
static struct {
	pid_t pid;
	int fd;
	struct event *ev;
	struct write_result r;
} writer = {-1, -1, NULL, {0, 0, 0}};

/* The writer's report: counts, or damage, or a failure. */
static void writer_done(void)
{
	int open_rc = 0;
	int res = child_finish(writer.pid, writer.fd, &writer.r, sizeof writer.r, &open_rc);
	writer.pid = -1;
	writer.fd = -1;
	if (writer.ev)
		event_free(writer.ev);
	writer.ev = NULL;
	if (res != 0) {
		child_failed(res, open_rc, "cannot write");
		return;
	}
	cache_counts.written += writer.r.written;
	cache_counts.evicted += writer.r.evicted;
	if (writer.r.rc != 0)
		cache_fail(writer.r.rc == MDB_MAP_FULL ? "full (is --cache-size too small for one entry?)"
						       : "cannot write",
			   writer.r.rc);
}

static void on_writer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	writer_done();
	if (enabled && npending)
		flush_soon();
}

/* A batch to a writer child, without waiting for it: the event loop goes
 * on while it writes (and syncs). The queue is the child's copy from
 * here. */
static void flush_async(void)
{
	if (!enabled || !npending || reading || writer.pid > 0) {
		if (enabled && npending)
			flush_soon();
		return;
	}
	if (!base) {
		cache_flush();
		return;
	}
	memset(&writer.r, 0, sizeof writer.r); /* its padding too: it crosses a pipe */
	if (child_start(write_all, &writer.r, sizeof writer.r, &writer.pid, &writer.fd) < 0) {
		cache_fail("cannot write", errno);
		return;
	}
	writer.ev = event_new(base, writer.fd, EV_READ, on_writer, NULL);
	if (!writer.ev)
		die("out of memory");
	event_add(writer.ev, NULL);
	drop_pending();
	if (flush_timer)
		evtimer_del(flush_timer);
}

void cache_flush(void)
{
	if (writer.pid > 0)
		writer_done();
	if (!enabled || !npending || reading)
		return;
	struct write_result r;
	memset(&r, 0, sizeof r); /* its padding too: it crosses a pipe */
	int open_rc = 0;
	int res = in_child(write_all, &r, sizeof r, &open_rc);
	if (res != 0) {
		child_failed(res, open_rc, "cannot write");
		return;
	}
	cache_counts.written += r.written;
	cache_counts.evicted += r.evicted;
	if (r.rc != 0) {
		cache_fail(r.rc == MDB_MAP_FULL ? "full (is --cache-size too small for one entry?)" : "cannot write",
			   r.rc);
		return;
	}
	drop_pending();
	if (flush_timer)
		evtimer_del(flush_timer);
}
