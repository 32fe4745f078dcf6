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
#include "racer/cache_where.h"

#include "racer/store_reply.h"

/* Opens what the options name; on failure one warning, and no cache (with
 * --cache-required: an error, exit 2). */
void store_open(struct event_base *loop, store_reply_fn fn, void *owner);
bool store_enabled(void);
/* How many look-ups may be on their way at once (queue.c): as many as
 * make the store's batches cheapest. */
uint64_t store_lookups_ahead(void);
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

#endif
