/* The cache's one interface (store.h): each call goes to the Redis cache
 * when --cache (or SUDOKU_RACE_CACHE) named a redis:// URL and it is up,
 * else to the LMDB store. The answers to look-ups go to the function
 * store_open was given, always from the event loop. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"
#include "racer/cache.h"
#include "racer/cache_redis.h"
#include "racer/store.h"

static bool use_redis;
static store_reply_fn reply_fn;
static void *reply_owner;

/* Answers that wait for the loop's next turn. */
struct later {
	uint64_t seq;
	enum cache_result r;
	struct cache_entry *e;
	char *bad;
};
static struct later *later;
static size_t nlater, caplater;
static struct event *later_ev;

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

bool store_url_scheme(const char *where, char *scheme, size_t schemesz)
{
	/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
	if (!where || !((*where | 0x20) >= 'a' && (*where | 0x20) <= 'z'))
		return false;
	size_t n = strspn(where, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
	if (strncmp(where + n, "://", 3) != 0)
		return false;
	if (scheme)
		snprintf(scheme, schemesz, "%.*s", (int)n, where);
	return true;
}

bool store_is_url(const char *where)
{
	return where && strncasecmp(where, "redis://", 8) == 0;
}

void store_reply(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	if (reply_fn)
		reply_fn(reply_owner, seq, r, e, bad);
}

static void answer_later_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	/* answers may come while these go out: taken as a whole first */
	struct later *v = later;
	size_t n = nlater;
	later = NULL;
	nlater = caplater = 0;
	for (size_t i = 0; i < n; i++) {
		store_reply(v[i].seq, v[i].r, v[i].e, v[i].bad);
		free(v[i].e);
		free(v[i].bad);
	}
	free(v);
}

void store_reply_later(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	if (nlater == caplater) {
		caplater = caplater ? 2 * caplater : 64;
		later = realloc(later, caplater * sizeof *later);
		if (!later)
			die("out of memory");
	}
	struct later *l = &later[nlater++];
	l->seq = seq;
	l->r = r;
	l->e = NULL;
	l->bad = NULL;
	if (e) {
		l->e = xmalloc(sizeof *l->e);
		*l->e = *e;
	}
	if (bad) {
		l->bad = strdup(bad);
		if (!l->bad)
			die("out of memory");
	}
	if (!later_ev) {
		later_ev = event_new(base, -1, 0, answer_later_cb, NULL);
		if (!later_ev)
			die("out of memory");
	}
	if (nlater == 1)
		event_active(later_ev, EV_TIMEOUT, 0);
}

/* The loop the stores answer in (NULL: a `cache` command, no loop). */
struct event_base *base;

void store_open(struct event_base *loop, store_reply_fn fn, void *owner)
{
	base = loop;
	reply_fn = fn;
	reply_owner = owner;
	if (opt.no_cache)
		return;
	char err[1024];
	int rc;
	if (store_is_url(opt.cache_dir)) {
		use_redis = true;
		rc = redis_open(opt.cache_dir, opt.cache_required, err, sizeof err);
	} else {
		const char *dir = opt.cache_dir ? opt.cache_dir : cache_default_dir();
		if (dir) {
			rc = cache_open(dir, false, err, sizeof err);
		} else {
			snprintf(err, sizeof err, "no home directory to keep it in");
			rc = -1;
		}
	}
	if (rc == 0)
		return;
	if (opt.cache_required) {
		/* before the first puzzle, and before any worker starts */
		store_close();
		die("cache: %s (--cache-required)", err);
	}
	warn("cache: %s; going on without the cache", err);
}

bool store_enabled(void)
{
	return use_redis ? redis_enabled() : cache_enabled();
}

void store_batch_begin(void)
{
	if (!use_redis)
		cache_batch_begin();
}

void store_batch_end(void)
{
	if (!use_redis)
		cache_batch_end();
}

void store_lookup(uint64_t seq, const struct grid *puzzle)
{
	if (use_redis)
		redis_lookup(seq, puzzle);
	else
		cache_lookup(seq, puzzle);
}

void store_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (use_redis)
		redis_put(puzzle, e);
	else
		cache_put(puzzle, e);
}

void store_race_ended(uint64_t seq, const struct grid *puzzle)
{
	(void)seq;
	if (use_redis)
		redis_race_ended(puzzle);
}

bool store_backlogged(void)
{
	return !use_redis && cache_backlogged();
}

void store_on_drained(void (*fn)(void))
{
	cache_on_drained(fn);
}

void store_flush(void)
{
	if (!use_redis)
		cache_flush();
}

void store_finish(void)
{
	if (use_redis)
		redis_finish();
	else
		cache_finish();
}

void store_close(void)
{
	if (use_redis)
		redis_close();
	else
		cache_close();
	for (size_t i = 0; i < nlater; i++) {
		free(later[i].e);
		free(later[i].bad);
	}
	free(later);
	later = NULL;
	nlater = caplater = 0;
	if (later_ev)
		event_free(later_ev);
	later_ev = NULL;
}

void store_stats(FILE *f)
{
	if (use_redis)
		redis_stats(f);
	else
		cache_stats(f);
}

int store_command(int argc, char **argv)
{
	if (store_is_url(opt.cache_dir))
		return redis_command(opt.cache_dir, argc, argv);
	return cache_command(argc, argv);
}
