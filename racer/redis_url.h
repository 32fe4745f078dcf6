/* A redis:// URL (redis_url.c), as --cache and SUDOKU_RACE_CACHE give it:
 *   redis://[[USER:]PASSWORD@]HOST[:PORT][/DB][?required=1]
 * USER and PASSWORD percent-decoded (as redis-cli -u takes them); without
 * a PASSWORD in the URL, the environment's REDISCLI_AUTH (as redis-cli). */
#ifndef RACER_REDIS_URL_H
#define RACER_REDIS_URL_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
