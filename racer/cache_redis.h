/* The shared result cache on Redis (cache_redis.c), behind store.h. */
#ifndef RACER_CACHE_REDIS_H
#define RACER_CACHE_REDIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/grid.h"
#include "racer/cache_value.h"
#include "racer/redis_url.h"

/* What a server's error reply means to a user (a password needed, a
 * password refused, or its own words), into buf. */
void redis_error_why(const char *reply, bool to_auth, char *buf, size_t bufsz);
/* Does an error reply to AUTH say only that the server takes no password
 * (a password given where none is needed: no harm, the connection works)? */
bool redis_auth_unneeded(const char *reply);

/* Connects (asynchronously, on the loop store.h's base names). required:
 * waits until the server has answered (AUTH, SELECT and a first write), so
 * that a server that cannot be reached or refuses the racer is known before
 * the first puzzle: -1 with err then. */
int redis_open(const char *url, bool required, char *err, size_t errsz);
bool redis_enabled(void);
/* The answer comes through store_reply (store.h). */
void redis_lookup(uint64_t seq, const struct grid *puzzle);
void redis_put(const struct grid *puzzle, const struct cache_entry *e);
void redis_race_ended(const struct grid *puzzle);
void redis_finish(void);
void redis_close(void);
void redis_stats(FILE *f);
int redis_command(const char *url, int argc, char **argv);

#endif
