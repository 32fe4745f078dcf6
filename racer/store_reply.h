/* The look-ups' answers, from the stores (LMDB's, Redis's) to the function
 * store_open was given: at once, or from the event loop's next turn
 * (store_reply.c). A leaf: the stores call it, and it names none of them. */
#ifndef RACER_STORE_REPLY_H
#define RACER_STORE_REPLY_H

#include <stdint.h>

#include "racer/cache_value.h"

struct event_base;

/* A look-up answered later: CACHE_HIT (e: the entry, verified against the puzzle),
 * CACHE_MISS, CACHE_BAD with bad saying why (the entry was dropped), or
 * CACHE_TIMEOUT (Redis: the puzzle waited its --timeout for another racer's
 * claim; it is decided as a timeout, not raced). Called from the event loop,
 * never from inside store_lookup. */
typedef void (*store_reply_fn)(void *owner, uint64_t seq, enum cache_result r,
			       const struct cache_entry *e, const char *bad);

/* The loop the stores answer in (NULL: a `cache` command, no loop). */
extern struct event_base *base;

void store_reply_init(struct event_base *loop, store_reply_fn fn, void *owner);
void store_reply(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad);
/* The same from the event loop's next turn: for an answer found inside a
 * call of the race's (a look-up that cannot be asked, a store that went
 * meanwhile). e and bad are copied. */
void store_reply_later(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad);
void store_reply_free(void);

#endif
