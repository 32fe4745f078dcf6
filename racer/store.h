/* The result cache behind one interface, which the race, main.c and the
 * report use alone: the LMDB store of one machine (cache.c, the default),
 * or a Redis server that racers on many machines share (cache_redis.c),
 * as --cache or SUDOKU_RACE_CACHE names it. A look-up is answered through
 * the reply function, from the event loop, never from inside
 * store_lookup. */
#ifndef RACER_STORE_H
#define RACER_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/grid.h"
#include "racer/outcome.h"

/* Worker names that proved an unsat or count verdict, comma-separated:
 * at most CACHE_PROVERS_MAX - 1 characters. */
#define CACHE_PROVERS_MAX 48
/* --cache-size: the default, and the least it may be */
#define CACHE_SIZE_DEFAULT ((size_t)1 << 30)
#define CACHE_SIZE_MIN ((size_t)256 << 10)

struct cache_entry {
	enum verdict verdict;  /* V_SOLVED (with uniqueness) or V_UNSAT */
	enum uniqueness uniq;
	double ms;
	char winner[17];
	char version[17];
	/* who proved the unsat verdict or the uniqueness (e.g. "cp,sat");
	 * "" when not recorded (entries of format 1 never record it) */
	char provers[CACHE_PROVERS_MAX];
	struct grid solution;  /* V_SOLVED */
};

/* CACHE_PENDING: the answer comes later */
enum cache_result { CACHE_MISS, CACHE_HIT, CACHE_BAD, CACHE_PENDING };

/* A look-up's answer: CACHE_HIT (e: the entry, verified against the
 * puzzle), CACHE_MISS, or CACHE_BAD with bad saying why (the entry was
 * dropped). */
typedef void (*store_reply_fn)(void *owner, uint64_t seq, enum cache_result r, const struct cache_entry *e,
			       const char *bad);

/* Is this cache location a URL (redis://...) rather than a directory? */
bool store_is_url(const char *where);
/* Opens the cache the options name; on failure one warning, and none. */
struct event_base;
void store_open(struct event_base *base, store_reply_fn fn, void *owner);
bool store_enabled(void);
/* Look-ups between these go out together. */
void store_batch_begin(void);
void store_batch_end(void);
void store_lookup(uint64_t seq, const struct grid *puzzle);
void store_put(const struct grid *puzzle, const struct cache_entry *e);
/* A puzzle's race ended, whatever its verdict (after store_put, if any):
 * a claim on it goes (Redis). */
void store_race_ended(uint64_t seq, const struct grid *puzzle);
/* Writes what is queued; in the loop, without waiting. */
void store_flush(void);
/* After the loop: what was written reaches the store (a bounded wait). */
void store_finish(void);
void store_close(void);
/* --stats: what the store adds to the cache counts (nothing for LMDB). */
void store_stats(FILE *f);
/* sudoku-race cache ...: argv[0] is "cache". */
int store_command(int argc, char **argv);

/* --- cache.c: the LMDB store --- */

const char *cache_default_dir(void);
int cache_parse_size(const char *s, size_t *bytes);
int cache_open(const char *dir, bool readonly, char *err, size_t errsz);
bool cache_enabled(void);
size_t cache_limit(void);
void cache_close(void);
void cache_read_begin(void);
void cache_read_end(void);
enum cache_result cache_get(const struct grid *puzzle, struct cache_entry *e, char *why, size_t whysz);
void cache_put(const struct grid *puzzle, const struct cache_entry *e);
void cache_delete(const struct grid *puzzle);
void cache_flush(void);
void cache_fail(const char *what, int rc);
typedef void (*cache_visit)(const struct grid *puzzle, const struct cache_entry *e, int status, void *arg);
int cache_each(cache_visit fn, void *arg, char *err, size_t errsz);
int cache_clear(const char *dir, size_t *entries, char *msg, size_t msgsz);
int cache_command(int argc, char **argv);
size_t cache_value_max(void);
enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len, struct cache_entry *e,
			      char *why, size_t whysz);
size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf, size_t bufsz);
int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e, char *why,
		 size_t whysz);

/* --- cache_redis.c --- */

int redis_url_parse(const char *url, char *host, size_t hostsz, int *port, int *db, char *err, size_t errsz);
int redis_open(const char *url, char *err, size_t errsz);
void redis_set_reply(store_reply_fn fn, void *owner);
bool redis_enabled(void);
enum cache_result redis_lookup(uint64_t seq, const struct grid *puzzle);
void redis_put(const struct grid *puzzle, const struct cache_entry *e);
void redis_drop(const struct grid *puzzle);
void redis_race_ended(const struct grid *puzzle);
void redis_finish(void);
void redis_close(void);
void redis_stats(FILE *f);
int redis_command(const char *url, int argc, char **argv);

#endif
