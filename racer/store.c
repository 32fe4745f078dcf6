/* The cache's one interface (store.h): each call goes to the Redis cache
 * when --cache (or SUDOKU_RACE_CACHE) named a redis:// URL and it is up,
 * else to the LMDB store. */
#include "config.h"

#include <string.h>

#include "store.h"

static bool use_redis;

bool store_is_url(const char *where)
{
	return where && strncmp(where, "redis://", 8) == 0;
}

void store_open(void)
{
	if (opt.no_cache)
		return;
	char err[512];
	if (store_is_url(opt.cache_dir)) {
		use_redis = true;
		if (redis_open(opt.cache_dir, err, sizeof err) < 0)
			warn("cache: %s; going on without the cache", err);
		return;
	}
	const char *dir = opt.cache_dir ? opt.cache_dir : cache_default_dir();
	if (!dir) {
		warn("cache: no home directory to keep it in; going on without the cache");
		return;
	}
	if (cache_open(dir, false, err, sizeof err) < 0)
		warn("cache: %s; going on without the cache", err);
}

bool store_enabled(void)
{
	return use_redis ? redis_enabled() : cache_enabled();
}

void store_batch_begin(void)
{
	if (!use_redis)
		cache_read_begin();
}

void store_batch_end(void)
{
	if (!use_redis)
		cache_read_end();
}

enum cache_result store_lookup(const struct puzzle *pz, struct cache_entry *e, char *why,
			       size_t whysz)
{
	if (use_redis)
		return redis_lookup(pz);
	return cache_get(&pz->item.grid, e, why, whysz);
}

void store_drop(const struct grid *puzzle)
{
	if (use_redis)
		redis_drop(puzzle);
	else
		cache_delete(puzzle);
}

void store_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (use_redis)
		redis_put(puzzle, e);
	else
		cache_put(puzzle, e);
}

void store_race_ended(const struct puzzle *pz)
{
	if (use_redis)
		redis_race_ended(pz);
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
		cache_flush();
}

void store_close(void)
{
	if (use_redis)
		redis_close();
	else
		cache_close();
}

void store_stats(FILE *f)
{
	if (use_redis)
		redis_stats(f);
}

int store_command(int argc, char **argv)
{
	if (store_is_url(opt.cache_dir))
		return redis_command(opt.cache_dir, argc, argv);
	return cache_command(argc, argv);
}
