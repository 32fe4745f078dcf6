/* The result cache behind one interface, which the race and main.c use
 * alone: the LMDB store of one machine (cache.c, the default), or a Redis
 * server that racers on many machines share (cache_redis.c), as --cache or
 * SUDOKU_RACE_CACHE names it. Every look-up is answered later, from the
 * event loop, through the function given to store_open; the store names no
 * caller. */
#ifndef RACER_STORE_H
#define RACER_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/grid.h"
#include "racer/cache_value.h"

/* A look-up answered later: CACHE_HIT (e: the entry, verified against the puzzle),
 * CACHE_MISS, CACHE_BAD with bad saying why (the entry was dropped), or
 * CACHE_TIMEOUT (Redis: the puzzle waited its --timeout for another racer's
 * claim; it is decided as a timeout, not raced). Called from the event loop,
 * never from inside store_lookup. */
typedef void (*store_reply_fn)(void *owner, uint64_t seq, enum cache_result r,
			       const struct cache_entry *e, const char *bad);
struct event_base;
/* Opens what the options name; on failure one warning, and no cache (with
 * --cache-required: an error, exit 2). */
void store_open(struct event_base *loop, store_reply_fn fn, void *owner);
bool store_enabled(void);
void store_batch_begin(void);
void store_batch_end(void);            /* the batch's look-ups go out */
void store_lookup(uint64_t seq, const struct grid *puzzle); /* the answer comes through fn */
void store_put(const struct grid *puzzle, const struct cache_entry *e);
void store_race_ended(uint64_t seq, const struct grid *puzzle); /* Redis: a claim goes */
void store_flush(void);
/* Its writes are far behind: the input pauses until fn (store_on_drained)
 * says they caught up, so that memory stays flat on any input. */
bool store_backlogged(void);
void store_on_drained(void (*fn)(void));
void store_finish(void);  /* after the loop: what was written reaches the store (a bounded wait) */
void store_close(void);
void store_stats(FILE *f);
int store_command(int argc, char **argv);

/* --- where the cache lives: for the options and the commands --- */

/* Is this cache location a redis:// URL rather than a directory? */
bool store_is_url(const char *where);
/* Is it a URL of any scheme (SCHEME://...)? The scheme into scheme. */
bool store_url_scheme(const char *where, char *scheme, size_t schemesz);
/* The cache directory when --cache names none (XDG). NULL when there is no
 * home to put it in. */
const char *cache_default_dir(void);
/* --cache-size: bytes, or with K, M, G, T (powers of 1024; KiB, KB also). */
int cache_parse_size(const char *s, size_t *bytes);

/* --- for the stores: their answers, through the function store_open was
 * given --- */

void store_reply(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad);
/* The same from the event loop's next turn: for an answer found inside a
 * call of the race's (a look-up that cannot be asked, a store that went
 * meanwhile). e and bad are copied. */
void store_reply_later(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad);

#endif
