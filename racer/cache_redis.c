/* The shared result cache on Redis, for racers on many machines (docs/cache.md,
 * contrib/parallel/README.md), through hiredis's asynchronous API on the racer's
 * libevent loop: nothing here waits for the server.
 *
 * Keys, in the URL's database (HEX: the 32 hex digits of the puzzle's
 * XXH3-128, the LMDB store's key; entries in cache.c's value format,
 * versioned by its first byte as there):
 *   sudoku-race:HEX           the entry (cache_encode)
 *   sudoku-race:claim:HEX     OWNER, while that racer races the puzzle
 *   sudoku-race:alive:OWNER   while that racer runs: set with an expiry of
 *                             ALIVE_MS, renewed every RENEW_MS
 * A look-up is a GETRANGE of the longest value there is (a longer one is
 * never loaded whole: it is bad). On a miss, CLAIM (a script: atomic on
 * the server) returns the entry if it came meanwhile, else takes the claim
 * when nobody holds it or its owner is gone, else says that a racer has
 * it: the puzzle then waits, asking again (POLL_*), until the entry comes
 * (a hit) or the claim is free (raced here). A race's end writes the
 * entry, then releases the claim if it is still ours: in that order, on one
 * connection, so whoever takes a released claim sees the entry first. So
 * while Redis is up no two racers solve one puzzle, nor one racer twice.
 *
 * An owner is alive only while its key will expire within ALIVE_MS: a key
 * the server expires, which its racer renews. A key without an expiry (set
 * by hand, forged) or with a longer one does not count, and a claim of an
 * owner not alive is taken over at once. The wait for another racer's
 * claim is bounded too (wait_for_claim): by the puzzle's --timeout (the
 * wait is its budget: at the end of it the puzzle is "# timeout", as if
 * raced) and by CLAIM_WAIT_MS, after which the puzzle is raced here beside
 * the claim's owner. A claim of this racer's own (the same puzzle twice in
 * its input) is waited for as long as its race lasts.
 *
 * Trust: anyone who can write a key can write any value. Every hit is
 * verified against the puzzle, as cache.c's are (another puzzle's value
 * under this key, a wrong solution: bad, deleted, the puzzle raced). What
 * a hit cannot verify is not taken from the server: an unsat entry is a
 * miss (the puzzle is raced, and proved here), and a solution's uniqueness
 * and provers are dropped from it; with --count no entry answers (the
 * count is found here). A key of another type than a string costs that
 * key: deleted, the puzzle raced. A password (the URL's, else
 * REDISCLI_AUTH) is sent with AUTH before anything else.
 *
 * A server that cannot be reached, that refuses the password or asks for
 * one, that answers an error, or that is silent for 2 s while asked is
 * reported once, with the reason, and dropped: the puzzles waiting for it
 * are raced, the run goes on without a cache, and no answer waits on
 * Redis. With --cache-required (or ?required=1) the racer waits at the
 * start until the server has answered, and one that does not is an error
 * (exit 2) before the first puzzle. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#ifdef HAVE_HIREDIS
#include <hiredis/adapters/libevent.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#endif

#include "racer.h"
#include "racer/cache_redis.h"
#include "racer/stats.h"
#include "racer/cache_where.h"
#include "racer/store_reply.h"

#define PREFIX "sudoku-race:"

#ifndef HAVE_HIREDIS

/* Without hiredis a redis:// URL is refused as the options are read
 * (redis_url_parse): none of these is reached. */
int redis_open(const char *url, bool required, char *err, size_t errsz)
{
	(void)url, (void)required;
	snprintf(err, errsz, "built without Redis support");
	return -1;
}
bool redis_enabled(void)
{
	return false;
}
void redis_lookup(uint64_t seq, const struct grid *puzzle)
{
	(void)puzzle;
	store_reply_later(seq, CACHE_MISS, NULL, NULL);
}
void redis_put(const struct grid *puzzle, const struct cache_entry *e)
{
	(void)puzzle, (void)e;
}
void redis_race_ended(const struct grid *puzzle)
{
	(void)puzzle;
}
void redis_finish(void)
{
}
void redis_close(void)
{
}
void redis_stats(FILE *f)
{
	(void)f;
}

#else

#define ALIVE_MS 3000   /* an owner's key lives this long unless renewed */
#define RENEW_MS 1000
#define CLAIM_MS 600000 /* a claim whose release was lost goes in the end */
/* The longest a puzzle waits for another racer's claim; then it is raced
 * here too. (--timeout bounds the wait when it is shorter.) */
#define CLAIM_WAIT_MS 10000
#define SILENCE_MS 2000 /* asked, and no answer for this long: it is gone */
#define WATCH_MS 250
/* A waiting puzzle asks again after 1, 2, 4 ... 16 ms, then after an eighth
 * of its wait so far (250 ms at most): two racers meeting the same puzzles
 * at once lose little, and a long wait costs the server little. */
#define POLL_FIRST_MS 1
#define POLL_FAST_MS 16
#define POLL_MAX_MS 250

/* KEYS: the entry, the claim. ARGV: owner, claim ms, 1 when no entry
 * answers (--count), the alive keys' prefix, the last byte of the longest
 * value, ALIVE_MS. Returns the entry (a solution: byte 2 is its verdict,
 * cache_value.h), or 1 (claimed), 2 (claimed from a racer gone), 0 (another
 * racer has it), 3 (this racer has it). A key of another type is no entry
 * and no claim. An owner is alive while its key expires within ALIVE_MS
 * (PTTL: -1 without an expiry, -2 not there). */
static const char claim_script[] =
	"local v = redis.pcall('GETRANGE', KEYS[1], 0, ARGV[5])\n"
	"if type(v) == 'string' and ARGV[3] == '0' and string.byte(v, 2) == 1 then return v end\n"
	"local o = redis.pcall('GET', KEYS[2])\n"
	"if type(o) ~= 'string' then o = false end\n"
	"if o == ARGV[1] then return 3 end\n"
	"if o then\n"
	"  local t = redis.call('PTTL', ARGV[4] .. o)\n"
	"  if t > 0 and t <= tonumber(ARGV[6]) then return 0 end\n"
	"end\n"
	"redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])\n"
	"if o then return 2 end\n"
	"return 1\n";
/* KEYS: the claim; ARGV: owner. Deletes the claim if it is still ours. */
static const char release_script[] =
	"if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end\n"
	"return 0\n";

static redisAsyncContext *ctx;
static bool up, failed;
static bool connected;      /* the connection was made */
static bool starting;       /* --cache-required: redis_open waits for the first answers */
static bool ready;          /* the first write was answered */
static char where[600];     /* the URL, for messages (its password as ***) */
static char owner[128];     /* this racer: host:pid:random */
static char alive_key[200];
static long outstanding;    /* commands sent, not answered */
static uint64_t quiet_ns;   /* the last answer, or when asking began */
static struct event *watch_timer, *renew_timer;
static struct {
	long claimed, taken_over, waited;
	long timed_out; /* waited for a claim as long as --timeout: "# timeout" */
	long cut;       /* waited for a claim CLAIM_WAIT_MS: raced here */
} rs;
static char fail_why[768];

/* A look-up in flight; privdata of its commands. */
struct lookup {
	uint64_t seq;
	struct grid *puzzle;         /* what a value found must be the entry of */
	char hex[GRID_HASH_HEX];
	bool claiming;               /* the claim script, not the first GET */
	bool waited;                 /* counted in rs.waited */
	int delay_ms;                /* the wait before asking again */
	uint64_t wait_ns;            /* waiting since */
	uint64_t other_ns;           /* waiting for another racer's claim since */
	char bad[GRID_ERR_MAX + 64]; /* a bad entry dropped on the way */
};

/* Puzzles waiting for another racer's claim. */
struct waiter {
	struct lookup *lk;
	struct event *ev;
	struct waiter *prev, *next;
};
static struct waiter *waiters;

/* privdata of writes, to count them; of AUTH; of the first write */
static char write_tag, auth_tag, ready_tag;
/* In a call of the race's (redis_lookup, redis_put, redis_race_ended): a
 * failure found there answers the look-ups in flight from the loop's next
 * turn, never inside the call. */
static int inside;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void key_of(const struct grid *g, char hex[GRID_HASH_HEX])
{
	grid_hash_hex(grid_hash(g), hex);
}

static void on_reply(redisAsyncContext *c, void *r, void *privdata);

static bool send_argv(void *privdata, int argc, const char **argv, const size_t *lens)
{
	if (!up || !ctx)
		return false;
	if (redisAsyncCommandArgv(ctx, on_reply, privdata, argc, argv, lens) != REDIS_OK) {
		fail("cannot send a command: %s", ctx->errstr[0] ? ctx->errstr : "the connection is closing");
		return false;
	}
	if (outstanding++ == 0)
		quiet_ns = now_ns();
	return true;
}

static void unlink_waiter(struct waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	event_free(w->ev);
}

static void lookup_free(struct lookup *lk)
{
	free(lk->puzzle);
	free(lk);
}

/* The look-up's end: answered (store.h), and freed. A miss after a bad
 * entry was dropped on the way is CACHE_BAD. */
static void answer(struct lookup *lk, enum cache_result r, const struct cache_entry *e)
{
	/* as cache.c counts: a bad entry is not a miss too */
	if (r == CACHE_HIT)
		stats_cache_add(CC_HITS, 1);
	else if (lk->bad[0] && r == CACHE_MISS)
		r = CACHE_BAD;
	else if (!lk->bad[0])
		stats_cache_add(CC_MISSES, 1);
	if (inside)
		store_reply_later(lk->seq, r, e, r == CACHE_BAD ? lk->bad : NULL);
	else
		store_reply(lk->seq, r, e, r == CACHE_BAD ? lk->bad : NULL);
	lookup_free(lk);
}

/* Every puzzle waiting for a claim: raced here (tell) or forgotten. */
static void drop_waiters(bool tell)
{
	while (waiters) {
		struct waiter *w = waiters;
		struct lookup *lk = w->lk;
		unlink_waiter(w);
		free(w);
		if (tell)
			answer(lk, CACHE_MISS, NULL);
		else
			lookup_free(lk);
	}
}

/* The server is gone (or unusable): said once; every look-up in flight and
 * every puzzle waiting is raced; no more commands. */
static void fail(const char *fmt, ...)
{
	if (!up)
		return;
	up = false;
	failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fail_why, sizeof fail_why, fmt, ap);
	va_end(ap);
	/* --cache-required at the start: redis_open says it, as an error */
	if (!starting)
		warn("cache: %s: %s; going on without the cache", where, fail_why);
	if (watch_timer)
		evtimer_del(watch_timer);
	if (renew_timer)
		evtimer_del(renew_timer);
	if (ctx) {
		redisAsyncContext *c = ctx;
		ctx = NULL;
		/* one hiredis is freeing already ends by itself; inside a
		 * callback, redisAsyncFree waits for the callback's return */
		if (!(c->c.flags & (REDIS_DISCONNECTING | REDIS_FREEING)))
			redisAsyncFree(c); /* look-ups in flight: on_reply(NULL) */
	}
	drop_waiters(true);
}

static void drop_hex(const char *hex)
{
	char key[64];
	snprintf(key, sizeof key, PREFIX "%s", hex);
	const char *argv[] = {"DEL", key};
	send_argv(NULL, 2, argv, NULL);
}

static void drop_bad(struct lookup *lk, const char *why)
{
	stats_cache_add(CC_BAD, 1);
	snprintf(lk->bad, sizeof lk->bad, "%s", why);
	drop_hex(lk->hex);
}

static void claim(struct lookup *lk)
{
	char vkey[64], ckey[64], ms[24], last[24];
	snprintf(vkey, sizeof vkey, PREFIX "%s", lk->hex);
	snprintf(ckey, sizeof ckey, PREFIX "claim:%s", lk->hex);
	snprintf(ms, sizeof ms, "%d", CLAIM_MS);
	snprintf(last, sizeof last, "%zu", cache_value_max());
	char alive[24];
	snprintf(alive, sizeof alive, "%d", ALIVE_MS);
	const char *argv[] = {"EVAL", claim_script, "2", vkey, ckey, owner, ms, opt.count ? "1" : "0",
			      PREFIX "alive:", last, alive};
	lk->claiming = true;
	if (!send_argv(lk, 11, argv, NULL))
		answer(lk, CACHE_MISS, NULL);
}

static void on_poll(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	struct waiter *w = arg;
	struct lookup *lk = w->lk;
	unlink_waiter(w);
	free(w);
	claim(lk);
}

/* A racer has the puzzle (ours: this racer itself): ask again a little
 * later. Another racer's claim is waited for as long as the puzzle's
 * --timeout (then it is out of time: CACHE_TIMEOUT) and CLAIM_WAIT_MS at
 * most (then it is raced here, beside the claim's owner), whichever is
 * shorter, counted from the first time another racer had it. */
static void wait_for_claim(struct lookup *lk, bool ours)
{
	if (!lk->waited) {
		lk->waited = true;
		rs.waited++;
	}
	uint64_t now = now_ns();
	if (!lk->wait_ns)
		lk->wait_ns = now;
	double left = -1; /* ms to the end of the wait; -1: none */
	if (!ours) {
		if (!lk->other_ns)
			lk->other_ns = now;
		bool by_timeout = opt.timeout_s > 0 && opt.timeout_s * 1000 <= CLAIM_WAIT_MS;
		left = (by_timeout ? opt.timeout_s * 1000 : CLAIM_WAIT_MS) - ms_since(lk->other_ns);
		if (left <= 0) {
			if (by_timeout)
				rs.timed_out++;
			else
				rs.cut++;
			answer(lk, by_timeout ? CACHE_TIMEOUT : CACHE_MISS, NULL);
			return;
		}
	}
	lk->delay_ms = lk->delay_ms ? lk->delay_ms * 2 : POLL_FIRST_MS;
	if (lk->delay_ms > POLL_FAST_MS)
		lk->delay_ms = POLL_FAST_MS;
	double eighth = ms_since(lk->wait_ns) / 8;
	if (eighth > lk->delay_ms)
		lk->delay_ms = eighth < POLL_MAX_MS ? (int)eighth : POLL_MAX_MS;
	/* asked once more at the end of the wait */
	if (left >= 0 && lk->delay_ms > left)
		lk->delay_ms = left < 1 ? 1 : (int)left + 1;
	struct waiter *w = xcalloc(1, sizeof *w);
	w->lk = lk;
	w->ev = evtimer_new(base, on_poll, w);
	if (!w->ev)
		die("cannot create a timer");
	w->next = waiters;
	if (waiters)
		waiters->prev = w;
	waiters = w;
	struct timeval tv = ms_tv(lk->delay_ms);
	evtimer_add(w->ev, &tv);
}

static void on_lookup_reply(struct lookup *lk, const redisReply *reply)
{
	struct cache_entry e;
	char why[GRID_ERR_MAX + 64];
	if (reply->type == REDIS_REPLY_INTEGER && lk->claiming) {
		if (reply->integer == 0 || reply->integer == 3) {
			wait_for_claim(lk, reply->integer == 3);
			return;
		}
		rs.claimed++;
		if (reply->integer == 2)
			rs.taken_over++;
		answer(lk, CACHE_MISS, NULL);
		return;
	}
	/* GETRANGE of a key not there: "" */
	if ((reply->type == REDIS_REPLY_NIL || (reply->type == REDIS_REPLY_STRING && reply->len == 0)) &&
	    !lk->claiming) {
		claim(lk);
		return;
	}
	if (reply->type != REDIS_REPLY_STRING) {
		fail("an answer of an unexpected type (%d)", reply->type);
		answer(lk, CACHE_MISS, NULL);
		return;
	}
	enum cache_result r = CACHE_BAD;
	if (reply->len > cache_value_max())
		snprintf(why, sizeof why, "a value over %zu bytes", cache_value_max());
	else
		r = cache_check(lk->puzzle, reply->str, reply->len, &e, why, sizeof why);
	if (r == CACHE_HIT && e.verdict == V_SOLVED) {
		/* the solution is verified; its uniqueness is the server's word */
		e.uniq = UNIQ_UNKNOWN;
		e.provers[0] = '\0';
		answer(lk, CACHE_HIT, &e);
		return;
	}
	if (r == CACHE_BAD)
		drop_bad(lk, why);
	/* not usable (bad, a newer racer's, an unsat): claimed and raced (a
	 * second bad entry in a row, or one the claim script gave: raced
	 * without a claim) */
	if (!lk->claiming)
		claim(lk);
	else
		answer(lk, CACHE_MISS, NULL);
}

static void on_reply(redisAsyncContext *c, void *r, void *privdata)
{
	(void)c;
	const redisReply *reply = r;
	outstanding--;
	quiet_ns = now_ns();
	bool tagged = privdata == &write_tag || privdata == &auth_tag || privdata == &ready_tag;
	struct lookup *wrong = privdata && !tagged && reply && reply->type == REDIS_REPLY_ERROR &&
				       strncmp(reply->str, "WRONGTYPE", 9) == 0
			       ? privdata
			       : NULL;
	if (wrong) {
		/* a key of another type: that key's loss, not the cache's */
		drop_bad(wrong, "a key of another type than a string");
		if (!wrong->claiming)
			claim(wrong);
		else
			answer(wrong, CACHE_MISS, NULL);
		return;
	}
	if (privdata == &auth_tag && reply && reply->type == REDIS_REPLY_ERROR && redis_auth_unneeded(reply->str))
		return; /* a password the server does not need: no harm */
	if (reply && reply->type == REDIS_REPLY_ERROR) {
		char why[sizeof fail_why];
		redis_error_why(reply->str, privdata == &auth_tag, why, sizeof why);
		fail("%s", why);
	}
	if (privdata == &write_tag) {
		if (reply && reply->type == REDIS_REPLY_STATUS)
			stats_cache_add(CC_WRITTEN, 1);
		return;
	}
	if (privdata == &auth_tag)
		return;
	if (privdata == &ready_tag) {
		ready = reply && reply->type == REDIS_REPLY_STATUS;
		return;
	}
	struct lookup *lk = privdata;
	if (!lk)
		return;
	if (!reply || !up || reply->type == REDIS_REPLY_ERROR)
		answer(lk, CACHE_MISS, NULL);
	else
		on_lookup_reply(lk, reply);
}

static void on_connect(const redisAsyncContext *c, int status)
{
	if (status != REDIS_OK) {
		ctx = NULL; /* hiredis frees it */
		fail("cannot connect: %s", c->errstr);
	} else {
		connected = true;
	}
}

static void on_disconnect(const redisAsyncContext *c, int status)
{
	if (ctx == c) {
		ctx = NULL; /* hiredis frees it */
		fail("connection lost%s%s", status == REDIS_OK ? "" : ": ", status == REDIS_OK ? "" : c->errstr);
	}
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	if (up && outstanding > 0 && ms_since(quiet_ns) > SILENCE_MS)
		fail("%sno answer for %d s", connected ? "" : "cannot connect: ", SILENCE_MS / 1000);
}

/* This racer is alive for ALIVE_MS more (tag: privdata of the command). */
static void renew_alive(void *tag)
{
	char ms[24];
	snprintf(ms, sizeof ms, "%d", ALIVE_MS);
	const char *argv[] = {"SET", alive_key, owner, "PX", ms};
	send_argv(tag, 5, argv, NULL);
}

static void on_renew(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	renew_alive(NULL);
}

int redis_open(const char *url, bool required, char *err, size_t errsz)
{
	struct redis_url u;
	redis_url_shown(url, where, sizeof where);
	if (redis_url_parse(url, &u, err, errsz) < 0)
		return -1;
	char hostname[64] = "";
	gethostname(hostname, sizeof hostname - 1);
	snprintf(owner, sizeof owner, "%s:%ld:%08lx", hostname, (long)getpid(),
		 (unsigned long)((now_ns() ^ (uint64_t)getpid() << 32) & 0xffffffffu));
	snprintf(alive_key, sizeof alive_key, PREFIX "alive:%s", owner);
	/* a host name is resolved here, before the first puzzle (hiredis
	 * resolves it blocking); connecting itself does not block */
	ctx = redisAsyncConnect(u.host, u.port);
	if (!ctx || ctx->err) {
		snprintf(err, errsz, "%s: cannot connect: %s", where, ctx ? ctx->errstr : "out of memory");
		if (ctx)
			redisAsyncFree(ctx);
		ctx = NULL;
		return -1;
	}
	if (redisLibeventAttach(ctx, base) != REDIS_OK) {
		snprintf(err, errsz, "%s: cannot attach to the event loop", where);
		redisAsyncFree(ctx);
		ctx = NULL;
		return -1;
	}
	redisAsyncSetConnectCallback(ctx, on_connect);
	redisAsyncSetDisconnectCallback(ctx, on_disconnect);
	up = true;
	watch_timer = event_new(base, -1, EV_PERSIST, on_watch, NULL);
	renew_timer = event_new(base, -1, EV_PERSIST, on_renew, NULL);
	if (!watch_timer || !renew_timer)
		die("cannot create a timer");
	struct timeval watch = ms_tv(WATCH_MS), renew = ms_tv(RENEW_MS);
	evtimer_add(watch_timer, &watch);
	evtimer_add(renew_timer, &renew);
	/* sent once connected, in this order, before any look-up: the
	 * password first (AUTH PASSWORD, or AUTH USER PASSWORD: Redis 6's
	 * users) */
	if (u.password[0]) {
		const char *argv[] = {"AUTH", u.user[0] ? u.user : u.password, u.password};
		send_argv(&auth_tag, u.user[0] ? 3 : 2, argv, NULL);
	}
	if (u.db) {
		char dbs[16];
		snprintf(dbs, sizeof dbs, "%d", u.db);
		const char *argv[] = {"SELECT", dbs};
		send_argv(NULL, 2, argv, NULL);
	}
	renew_alive(&ready_tag);
	if (!required)
		return 0;
	/* --cache-required: the answers to those, or the failure (the
	 * watchdog ends a wait on a silent server or address) */
	starting = true;
	while (up && !ready)
		event_base_loop(base, EVLOOP_ONCE);
	starting = false;
	if (up)
		return 0;
	snprintf(err, errsz, "%s: %s", where, fail_why);
	return -1;
}

bool redis_enabled(void)
{
	return up;
}

void redis_lookup(uint64_t seq, const struct grid *puzzle)
{
	inside++;
	struct lookup *lk = xcalloc(1, sizeof *lk);
	lk->seq = seq;
	lk->puzzle = grid_dup(puzzle);
	key_of(puzzle, lk->hex);
	char vkey[64], last[24];
	snprintf(vkey, sizeof vkey, PREFIX "%s", lk->hex);
	snprintf(last, sizeof last, "%zu", cache_value_max());
	const char *argv[] = {"GETRANGE", vkey, "0", last};
	if (opt.count) {
		claim(lk); /* no entry answers a count */
	} else if (!send_argv(lk, 4, argv, NULL)) {
		lookup_free(lk);
		stats_cache_add(CC_MISSES, 1);
		store_reply_later(seq, CACHE_MISS, NULL, NULL);
	}
	inside--;
}

void redis_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (!up)
		return;
	static uint8_t *buf;
	if (!buf)
		buf = xmalloc(cache_value_max());
	size_t len = cache_encode(puzzle, e, buf, cache_value_max());
	char hex[GRID_HASH_HEX], key[64];
	key_of(puzzle, hex);
	snprintf(key, sizeof key, PREFIX "%s", hex);
	const char *argv[] = {"SET", key, (const char *)buf};
	const size_t lens[] = {3, strlen(key), len};
	inside++;
	send_argv(&write_tag, 3, argv, lens);
	inside--;
}

void redis_race_ended(const struct grid *puzzle)
{
	if (!up)
		return;
	char hex[GRID_HASH_HEX], ckey[64];
	key_of(puzzle, hex);
	snprintf(ckey, sizeof ckey, PREFIX "claim:%s", hex);
	const char *argv[] = {"EVAL", release_script, "1", ckey, owner};
	inside++;
	send_argv(NULL, 5, argv, NULL);
	inside--;
}

void redis_finish(void)
{
	drop_waiters(false);
	if (!up)
		return;
	/* our claims (of a run cut short) are free at once */
	const char *argv[] = {"DEL", alive_key};
	send_argv(NULL, 2, argv, NULL);
	if (renew_timer)
		evtimer_del(renew_timer);
	/* the watchdog ends this wait if the server falls silent */
	while (up && ctx && outstanding > 0)
		event_base_loop(base, EVLOOP_ONCE);
}

void redis_close(void)
{
	drop_waiters(false);
	up = false;
	if (ctx) {
		redisAsyncContext *c = ctx;
		ctx = NULL;
		redisAsyncFree(c);
	}
	if (watch_timer)
		event_free(watch_timer);
	if (renew_timer)
		event_free(renew_timer);
	watch_timer = renew_timer = NULL;
}

void redis_stats(FILE *f)
{
	char cut[160] = "";
	if (rs.timed_out || rs.cut)
		snprintf(cut, sizeof cut, " (%ld out of time, %ld raced after %d s)", rs.timed_out, rs.cut,
			 CLAIM_WAIT_MS / 1000);
	fprintf(f, "%s: cache: %s: %ld puzzles claimed (%ld from racers gone), %ld waited for a claim%s%s%s\n",
		PROGRAM, where, rs.claimed, rs.taken_over, rs.waited, cut, failed ? "; given up: " : "",
		failed ? fail_why : "");
}

#endif
