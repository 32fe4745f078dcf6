/* The cache's one interface (store.h): each call goes to the Redis cache
 * when --cache (or SUDOKU_RACE_CACHE) named a redis:// URL and it is up,
 * else to the LMDB store. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "racer/racer.h"

struct event_base *base;
static bool use_redis;
static store_reply_fn reply_fn;
static void *reply_owner;

/* LMDB's answers of a batch, handed over at its end */
struct answer {
	uint64_t seq;
	enum cache_result r;
	char bad[GRID_ERR_MAX + 64];
};
static struct answer *answers;
static struct cache_entry *entries;
static size_t nanswers, capanswers;

bool store_is_url(const char *where)
{
	return where && strncmp(where, "redis://", 8) == 0;
}

void store_open(struct event_base *loop, store_reply_fn fn, void *owner)
{
	base = loop;
	reply_fn = fn;
	reply_owner = owner;
	redis_set_reply(fn, owner);
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
	if (use_redis)
		return;
	cache_read_end();
	size_t n = nanswers;
	nanswers = 0;
	for (size_t i = 0; i < n; i++)
		reply_fn(reply_owner, answers[i].seq, answers[i].r, &entries[i], answers[i].bad[0] ? answers[i].bad : NULL);
}

void store_lookup(uint64_t seq, const struct grid *puzzle)
{
	if (use_redis) {
		if (redis_lookup(seq, puzzle) != CACHE_PENDING)
			reply_fn(reply_owner, seq, CACHE_MISS, NULL, NULL);
		return;
	}
	if (nanswers == capanswers) {
		capanswers = capanswers ? 2 * capanswers : 64;
		answers = xrealloc(answers, capanswers * sizeof *answers);
		entries = xrealloc(entries, capanswers * sizeof *entries);
	}
	struct answer *a = &answers[nanswers];
	a->seq = seq;
	a->bad[0] = '\0';
	a->r = cache_get(puzzle, &entries[nanswers], a->bad, sizeof a->bad);
	if (a->r == CACHE_BAD)
		cache_delete(puzzle);
	else
		a->bad[0] = '\0';
	nanswers++;
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
	free(answers);
	free(entries);
	answers = NULL;
	entries = NULL;
	nanswers = capanswers = 0;
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
