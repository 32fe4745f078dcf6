/* The Redis cache's URL, and `sudoku-race --cache redis://... cache
 * stats|clear` (blocking: no event loop), beside the cache itself
 * (cache_redis.c). */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif

#include "racer.h"
#include "racer/cache_redis.h"

#define DEFAULT_PORT 6379
#define PREFIX "sudoku-race:"

int redis_url_parse(const char *url, char *host, size_t hostsz, int *port, int *db, char *err,
		    size_t errsz)
{
	if (strncmp(url, "redis://", 8) != 0) {
		snprintf(err, errsz, "not a redis:// URL");
		return -1;
	}
	const char *h = url + 8, *p;
	size_t n;
	if (*h == '[') { /* an IPv6 address */
		const char *close = strchr(h, ']');
		if (!close) {
			snprintf(err, errsz, "an IPv6 address without its ']'");
			return -1;
		}
		h++;
		n = (size_t)(close - h);
		p = close + 1;
	} else {
		n = strcspn(h, ":/");
		p = h + n;
	}
	if (n == 0 || n >= hostsz) {
		snprintf(err, errsz, n ? "a host name too long" : "no host (redis://HOST[:PORT][/DB])");
		return -1;
	}
	if (memchr(h, '@', n)) {
		snprintf(err, errsz, "a user or password in the URL is not supported");
		return -1;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	*port = DEFAULT_PORT;
	*db = 0;
	if (*p == ':') {
		long v = 0;
		const char *d = ++p;
		while (*p >= '0' && *p <= '9' && v <= 65535)
			v = v * 10 + (*p++ - '0');
		if (p == d || v < 1 || v > 65535 || (*p && *p != '/')) {
			snprintf(err, errsz, "the port is not a number from 1 to 65535");
			return -1;
		}
		*port = (int)v;
	}
	if (*p == '/' && p[1]) {
		long v = 0;
		const char *d = ++p;
		while (*p >= '0' && *p <= '9' && v <= INT_MAX)
			v = v * 10 + (*p++ - '0');
		if (p == d || v > INT_MAX || *p) {
			snprintf(err, errsz, "the database is not a number (redis://HOST[:PORT][/DB])");
			return -1;
		}
		*db = (int)v;
	} else if (*p == '/') {
		p++;
	}
	if (*p) {
		snprintf(err, errsz, "'%s' after the host (redis://HOST[:PORT][/DB])", p);
		return -1;
	}
#ifndef HAVE_HIREDIS
	snprintf(err, errsz, "this sudoku-race was built without Redis support (hiredis: configure "
			     "--with-hiredis; on Debian, apt-get install libhiredis-dev)");
	return -1;
#else
	return 0;
#endif
}

#ifndef HAVE_HIREDIS

int redis_command(const char *url, int argc, char **argv)
{
	(void)url, (void)argc, (void)argv;
	fprintf(stderr, "%s: cache: built without Redis support\n", PROGRAM);
	return 2;
}

#else

/* --- sudoku-race cache stats|clear on a redis:// cache (blocking: no loop) --- */

static redisContext *command_connect(const char *url)
{
	char host[256], err[256];
	int port, db;
	if (redis_url_parse(url, host, sizeof host, &port, &db, err, sizeof err) < 0) {
		fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, url, err);
		return NULL;
	}
	struct timeval tv = {2, 0};
	redisContext *c = redisConnectWithTimeout(host, port, tv);
	if (!c || c->err) {
		fprintf(stderr, "%s: cache: %s: cannot connect: %s\n", PROGRAM, url, c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		return NULL;
	}
	redisSetTimeout(c, tv);
	if (db) {
		redisReply *r = redisCommand(c, "SELECT %d", db);
		bool ok = r && r->type == REDIS_REPLY_STATUS;
		if (!ok)
			fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, url, r ? r->str : c->errstr);
		freeReplyObject(r);
		if (!ok) {
			redisFree(c);
			return NULL;
		}
	}
	return c;
}

/* Every key of ours, a SCAN batch at a time: entries, claims, racers
 * running; clear deletes them. */
static int scan_keys(redisContext *c, const char *url, bool clear, long *entries, long *claims,
		     long *alive)
{
	char cursor[32] = "0";
	do {
		redisReply *r = redisCommand(c, "SCAN %s MATCH %s* COUNT 1000", cursor, PREFIX);
		if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
			fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, url,
				r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
			freeReplyObject(r);
			return -1;
		}
		snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
		const redisReply *keys = r->element[1];
		for (size_t i = 0; i < keys->elements; i++) {
			const char *k = keys->element[i]->str + strlen(PREFIX);
			if (strncmp(k, "claim:", 6) == 0)
				(*claims)++;
			else if (strncmp(k, "alive:", 6) == 0)
				(*alive)++;
			else
				(*entries)++;
			if (clear) {
				redisReply *d = redisCommand(c, "DEL %b", keys->element[i]->str,
							     keys->element[i]->len);
				freeReplyObject(d);
			}
		}
		freeReplyObject(r);
	} while (strcmp(cursor, "0") != 0);
	return 0;
}

int redis_command(const char *url, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	bool stats = strcmp(sub, "stats") == 0, clear = strcmp(sub, "clear") == 0;
	if (!stats && !clear) {
		fprintf(stderr, "%s: cache: %s: only 'cache stats' and 'cache clear' take a redis:// cache\n",
			PROGRAM, url);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr, "%s: usage: %s --cache URL cache stats|clear\n", PROGRAM, PROGRAM);
		return 2;
	}
	redisContext *c = command_connect(url);
	if (!c)
		return 2;
	long entries = 0, claims = 0, alive = 0;
	int rc = scan_keys(c, url, clear, &entries, &claims, &alive);
	redisFree(c);
	if (rc < 0)
		return 2;
	if (clear)
		printf("cache: %s: %ld entries cleared\n", url, entries);
	else
		printf("cache: %s\nentries: %ld\nclaims: %ld (racers running: %ld)\n", url, entries, claims,
		       alive);
	return 0;
}

#endif
