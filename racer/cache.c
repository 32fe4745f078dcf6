/* The result cache (DESIGN.md "The cache"): LMDB, shared safely by racers
 * running at once (one writer at a time, readers never wait).
 *
 * Key: the 16 bytes of the puzzle's XXH3-128 hash (protocol/hash.c).
 * Value, format 1:
 *   byte 0      format (1)
 *   byte 1      verdict: 1 solved, 2 unsat
 *   byte 2      uniqueness: 0 unknown, 1 unique, 2 several solutions
 *   byte 3      box size n
 *   bytes 4-7   the winner's time in microseconds, little-endian
 *   bytes 8-23  the winner's name, NUL-padded
 *   bytes 24-39 the racer's version, NUL-padded
 *   then the puzzle's cells (one byte each, 0 blank), then for a solved
 *   puzzle the solution's cells.
 * The puzzle is kept so that a hit can be checked against the puzzle asked
 * (a tampered entry, a hash collision) and so that `cache export` can write
 * it out. Every hit is verified before use; a bad entry is deleted.
 * Writes are queued and committed in batches. */
#include "config.h"

#include <errno.h>
#include <lmdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"

#define FORMAT 1
#define HEADER 40
#define VERDICT_SOLVED 1
#define VERDICT_UNSAT 2
/* Address space for the map: the file grows only as entries come. */
#define MAP_SIZE ((size_t)4 << 30)
/* Queued writes that make a batch; a timer commits smaller ones. */
#define BATCH 1024
#define BATCH_MS 250

struct cache_counts cache_counts;

static MDB_env *env;
static MDB_dbi dbi;
static MDB_txn *rtxn;
static bool enabled, reading, failed_once;

struct pending {
	uint8_t key[16];
	uint8_t *value; /* NULL: delete */
	size_t len;
};
static struct pending *pending;
static size_t npending, cappending;
static struct event *flush_timer;

size_t cache_value_max(void)
{
	return HEADER + 2 * (size_t)GRID_MAX_CELLS;
}

static void make_key(const struct grid *g, uint8_t key[16])
{
	struct grid_hash h = grid_hash(g);
	for (int i = 0; i < 8; i++) {
		key[i] = (uint8_t)(h.high >> (56 - 8 * i));
		key[8 + i] = (uint8_t)(h.low >> (56 - 8 * i));
	}
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
	memcpy(buf + 24, e->version[0] ? e->version : PACKAGE_VERSION,
	       strnlen(e->version[0] ? e->version : PACKAGE_VERSION, 16));
	memcpy(buf + HEADER, puzzle->cell, cells);
	if (e->verdict == V_SOLVED)
		memcpy(buf + HEADER + cells, e->solution.cell, cells);
	return len;
}

int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz)
{
	const uint8_t *b = data;
	if (len < HEADER) {
		snprintf(why, whysz, "a value of %zu bytes", len);
		return -1;
	}
	if (b[0] > FORMAT)
		return 0; /* written by a newer racer: not ours to judge */
	int box = b[3];
	if (b[0] != FORMAT || (b[1] != VERDICT_SOLVED && b[1] != VERDICT_UNSAT) || b[2] > UNIQ_MULTIPLE ||
	    box < GRID_MIN_BOX || box > GRID_MAX_BOX) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	size_t cells = (size_t)box * box * box * box;
	bool solved = b[1] == VERDICT_SOLVED;
	if (len != HEADER + cells * (solved ? 2 : 1)) {
		snprintf(why, whysz, "a value of %zu bytes for a %dx%d grid", len, box * box, box * box);
		return -1;
	}
	e->verdict = solved ? V_SOLVED : V_UNSAT;
	e->uniq = (enum uniqueness)b[2];
	e->ms = (double)((uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24) /
		1000.0;
	memcpy(e->winner, b + 8, 16);
	e->winner[16] = '\0';
	memcpy(e->version, b + 24, 16);
	e->version[16] = '\0';
	if (puzzle) {
		puzzle->box = box;
		puzzle->side = box * box;
		puzzle->cells = (int)cells;
		memcpy(puzzle->cell, b + HEADER, cells);
	}
	if (solved) {
		e->solution.box = box;
		e->solution.side = box * box;
		e->solution.cells = (int)cells;
		memcpy(e->solution.cell, b + HEADER + cells, cells);
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

int cache_open(const char *dir, bool readonly, char *err, size_t errsz)
{
	if (!readonly && make_dirs(dir, err, errsz) < 0)
		return -1;
	int rc = mdb_env_create(&env);
	if (rc == 0)
		rc = mdb_env_set_mapsize(env, MAP_SIZE);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(env, 256);
	/* NOTLS: our read transaction is reset and renewed around each batch
	 * of look-ups, independent of the write transactions. NOMETASYNC: a
	 * crash may lose the last batch, never the store's consistency. */
	if (rc == 0)
		rc = mdb_env_open(env, dir, MDB_NOTLS | MDB_NOMETASYNC | (readonly ? MDB_RDONLY : 0), 0600);
	if (rc == 0) {
		int dead;
		mdb_reader_check(env, &dead);
		MDB_txn *txn;
		rc = mdb_txn_begin(env, NULL, readonly ? MDB_RDONLY : 0, &txn);
		if (rc == 0) {
			rc = mdb_dbi_open(txn, NULL, 0, &dbi);
			if (rc == 0)
				rc = mdb_txn_commit(txn);
			else
				mdb_txn_abort(txn);
		}
	}
	if (rc != 0) {
		snprintf(err, errsz, "%s: %s", dir, mdb_strerror(rc));
		if (env)
			mdb_env_close(env);
		env = NULL;
		return -1;
	}
	enabled = true;
	return 0;
}

bool cache_enabled(void)
{
	return enabled;
}

MDB_env *cache_env(void)
{
	return env;
}

unsigned int cache_dbi(void)
{
	return dbi;
}

static void drop_pending(void)
{
	for (size_t i = 0; i < npending; i++)
		free(pending[i].value);
	npending = 0;
}

void cache_fail(const char *what, int rc)
{
	if (!failed_once)
		warn("cache: %s: %s; going on without the cache", what, mdb_strerror(rc));
	failed_once = true;
	enabled = false;
	drop_pending();
	if (rtxn && reading)
		mdb_txn_reset(rtxn);
	reading = false;
}

void cache_close(void)
{
	cache_flush();
	drop_pending();
	free(pending);
	pending = NULL;
	cappending = 0;
	if (flush_timer)
		event_free(flush_timer);
	flush_timer = NULL;
	if (rtxn)
		mdb_txn_abort(rtxn);
	rtxn = NULL;
	if (env)
		mdb_env_close(env);
	env = NULL;
	enabled = false;
}

/* --- look-ups --- */

void cache_read_begin(void)
{
	if (!enabled || reading)
		return;
	int rc = rtxn ? mdb_txn_renew(rtxn) : mdb_txn_begin(env, NULL, MDB_RDONLY, &rtxn);
	if (rc != 0) {
		cache_fail("cannot read", rc);
		return;
	}
	reading = true;
}

static void flush_soon(void);

void cache_read_end(void)
{
	if (reading) {
		mdb_txn_reset(rtxn);
		reading = false;
	}
	if (npending >= BATCH)
		cache_flush();
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
	uint8_t key[16];
	make_key(puzzle, key);
	MDB_val k = {sizeof key, key}, v;
	int rc = mdb_get(rtxn, dbi, &k, &v);
	enum cache_result res = CACHE_MISS;
	if (rc == MDB_NOTFOUND) {
		res = CACHE_MISS;
	} else if (rc != 0) {
		cache_fail("cannot read", rc);
		return CACHE_MISS;
	} else {
		const uint8_t *b = v.mv_data;
		int d = cache_decode(v.mv_data, v.mv_size, NULL, e, why, whysz);
		if (d == 0) {
			res = CACHE_MISS;
		} else if (d < 0) {
			res = CACHE_BAD;
		} else if (b[3] != puzzle->box || memcmp(b + HEADER, puzzle->cell, (size_t)puzzle->cells) != 0) {
			snprintf(why, whysz, "it is the entry of another puzzle");
			res = CACHE_BAD;
		} else if (e->verdict == V_SOLVED && !grid_verify(puzzle, &e->solution, why, whysz)) {
			res = CACHE_BAD;
		} else {
			res = CACHE_HIT;
		}
	}
	if (own)
		cache_read_end();
	if (res == CACHE_HIT)
		cache_counts.hits++;
	else if (res == CACHE_BAD)
		cache_counts.bad++;
	else
		cache_counts.misses++;
	return res;
}

/* --- writes --- */

static void queue(const struct grid *puzzle, uint8_t *value, size_t len)
{
	if (npending == cappending) {
		cappending = cappending ? 2 * cappending : 64;
		pending = realloc(pending, cappending * sizeof *pending);
		if (!pending)
			die("out of memory");
	}
	struct pending *p = &pending[npending++];
	make_key(puzzle, p->key);
	p->value = value;
	p->len = len;
	if (npending >= BATCH && !reading)
		cache_flush();
	else
		flush_soon();
}

void cache_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (!enabled)
		return;
	size_t len = HEADER + (size_t)puzzle->cells * (e->verdict == V_SOLVED ? 2 : 1);
	uint8_t *buf = xmalloc(len);
	cache_encode(puzzle, e, buf, len);
	queue(puzzle, buf, len);
}

void cache_delete(const struct grid *puzzle)
{
	if (enabled)
		queue(puzzle, NULL, 0);
}

/* Whether an entry already stored should stay rather than the new one: it
 * knows at least as much. A verified solution beats an unsat claim; knowing
 * uniqueness beats not knowing. */
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
	if (se.verdict == V_SOLVED)
		return !(se.uniq == UNIQ_UNKNOWN && fe.uniq != UNIQ_UNKNOWN);
	return true;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (!reading)
		cache_flush();
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

void cache_flush(void)
{
	if (!enabled || !npending || reading)
		return;
	MDB_txn *txn;
	int rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (rc != 0) {
		cache_fail("cannot write", rc);
		return;
	}
	long written = 0;
	for (size_t i = 0; i < npending && rc == 0; i++) {
		struct pending *p = &pending[i];
		MDB_val k = {sizeof p->key, p->key}, v;
		if (!p->value) {
			rc = mdb_del(txn, dbi, &k, NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
			continue;
		}
		rc = mdb_get(txn, dbi, &k, &v);
		if (rc == 0 && keep_stored(&v, p->value, p->len))
			continue;
		if (rc != 0 && rc != MDB_NOTFOUND)
			break;
		v.mv_data = p->value;
		v.mv_size = p->len;
		rc = mdb_put(txn, dbi, &k, &v, 0);
		written++;
	}
	if (rc == 0)
		rc = mdb_txn_commit(txn);
	else
		mdb_txn_abort(txn);
	if (rc != 0) {
		cache_fail(rc == MDB_MAP_FULL ? "full" : "cannot write", rc);
		return;
	}
	cache_counts.written += written;
	drop_pending();
	if (flush_timer)
		evtimer_del(flush_timer);
}
