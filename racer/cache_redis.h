/* The shared result cache on Redis (cache_redis.c), behind store.h. */
#ifndef RACER_CACHE_REDIS_H
#define RACER_CACHE_REDIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/grid.h"
#include "racer/cache_value.h"

/* A redis:// URL taken apart (cache_redis_cmd.c):
 *   redis://[[USER:]PASSWORD@]HOST[:PORT][/DB][?required=1]
 * USER and PASSWORD percent-decoded (as redis-cli -u takes them); without
 * a PASSWORD in the URL, the environment's REDISCLI_AUTH (as redis-cli). */
#define REDIS_HOST_MAX 256
#define REDIS_USER_MAX 256
#define REDIS_PASSWORD_MAX 512
struct redis_url {
	char host[REDIS_HOST_MAX];
	int port, db;
	char user[REDIS_USER_MAX];         /* "": AUTH PASSWORD (the default user) */
	char password[REDIS_PASSWORD_MAX]; /* "": no AUTH */
	bool password_from_env;            /* REDISCLI_AUTH */
	bool required;                     /* ?required=1 */
};

/* Checks a redis:// URL and fills u. -1 with err when it is not one, or
 * this racer was built without hiredis. */
int redis_url_parse(const char *url, struct redis_url *u, char *err, size_t errsz);
/* The URL for messages: a password in it shown as "***". */
const char *redis_url_shown(const char *url, char *buf, size_t bufsz);
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
