/* The shared result cache on Redis (cache_redis.c), behind store.h. */
#ifndef RACER_CACHE_REDIS_H
#define RACER_CACHE_REDIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/grid.h"
#include "racer/cache_value.h"

/* Checks a redis://HOST[:PORT][/DB] URL; fills host, port and db. -1 with
 * err when it is not one, or this racer was built without hiredis. */
int redis_url_parse(const char *url, char *host, size_t hostsz, int *port, int *db, char *err,
		    size_t errsz);
int redis_open(const char *url, char *err, size_t errsz);
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
