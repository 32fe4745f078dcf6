/* The result cache behind one interface, which race.c, main.c and stats.c
 * use alone: the LMDB store of one machine (cache.c, the default), or a
 * Redis server that racers on many machines share (cache_redis.c), as
 * --cache or SUDOKU_RACE_CACHE names it. LMDB answers a look-up at once;
 * Redis answers later, through race_cache_reply(). */
#ifndef RACER_STORE_H
#define RACER_STORE_H

#include <stdbool.h>
#include <stdio.h>

#include "racer.h"

/* --- store.c --- */

/* Is this cache location a URL (redis://...) rather than a directory? */
bool store_is_url(const char *where);
/* Opens the cache the options name; on failure one warning, and none. */
void store_open(void);
bool store_enabled(void);
/* Look-ups between these share what they can (LMDB: a read transaction). */
void store_batch_begin(void);
void store_batch_end(void);
/* CACHE_HIT (e filled), CACHE_MISS, CACHE_BAD (why says what; drop it with
 * store_drop), or CACHE_PENDING: the answer comes through
 * race_cache_reply(), and the puzzle waits in PZ_LOOKUP. */
enum cache_result store_lookup(const struct puzzle *pz, struct cache_entry *e, char *why,
			       size_t whysz);
void store_drop(const struct grid *puzzle);
void store_put(const struct grid *puzzle, const struct cache_entry *e);
/* A puzzle's race ended, whatever its verdict (after store_put, if any). */
void store_race_ended(const struct puzzle *pz);
/* Writes what is queued; in the loop, without waiting. */
void store_flush(void);
/* After the loop: what was written reaches the store (a bounded wait). */
void store_finish(void);
void store_close(void);
/* --stats: what the store adds to the cache counts (nothing for LMDB). */
void store_stats(FILE *f);
/* sudoku-race cache ...: argv[0] is "cache". */
int store_command(int argc, char **argv);

/* --- race.c: a look-up answered later. CACHE_HIT: e is the entry;
 * CACHE_MISS: the puzzle is raced. bad: a bad entry was dropped on the
 * way (why), else NULL. --- */
void race_cache_reply(uint64_t seq, enum cache_result r, const struct cache_entry *e,
		      const char *bad);

/* --- cache_redis.c --- */

/* Checks a redis://HOST[:PORT][/DB] URL; fills host, port and db. -1 with
 * err when it is not one, or this racer was built without hiredis. */
int redis_url_parse(const char *url, char *host, size_t hostsz, int *port, int *db, char *err,
		    size_t errsz);
int redis_open(const char *url, char *err, size_t errsz);
bool redis_enabled(void);
enum cache_result redis_lookup(const struct puzzle *pz);
void redis_put(const struct grid *puzzle, const struct cache_entry *e);
void redis_drop(const struct grid *puzzle);
void redis_race_ended(const struct puzzle *pz);
void redis_finish(void);
void redis_close(void);
void redis_stats(FILE *f);
int redis_command(const char *url, int argc, char **argv);

#endif
