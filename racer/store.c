/* The cache's one interface (store.h): each call goes to the Redis cache
 * when --cache (or SUDOKU_RACE_CACHE) named a redis:// URL and it is up,
 * else to the LMDB store. The answers to look-ups go to the function
 * store_open was given, always from the event loop. */
#include "config.h"

#include <stdio.h>

#include "racer.h"
#include "racer/cache.h"
#include "racer/cache_redis.h"
#include "racer/cache_where.h"
#include "racer/store.h"
#include "racer/store_reply.h"

static bool use_redis;


void store_open(struct event_base *loop, store_reply_fn fn, void *owner)
{
	store_reply_init(loop, fn, owner);
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

uint64_t store_lookups_ahead(void)
{
	/* The LMDB reader takes a batch's keys in order, and a longer batch
	 * shares more of the tree: on a warm run of 49,158, 2,048 took 0.975x
	 * the CPU of 1,024, and 1,024 0.88x of 512 (with the look-ups within
	 * the read-ahead). hiredis parses replies from one buffer that a
	 * deeper pipeline makes longer: 2,048 took 1.05x the CPU of 512. */
	return use_redis ? 512 : 2048;
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
	store_reply_free();
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
