/* `sudoku-race --cache redis://... cache stats|clear` (blocking: no event
 * loop), and what a server's error replies mean, beside the cache itself
 * (cache_redis.c). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif

#include "racer.h"
#include "racer/cache_redis.h"
#include "racer/jsonw.h"

#define PREFIX "sudoku-race:"

bool redis_auth_unneeded(const char *reply)
{
	/* Redis 6 and later; before */
	return strstr(reply, "without any password configured") || strstr(reply, "no password is set");
}

void redis_error_why(const char *reply, bool to_auth, char *buf, size_t bufsz)
{
	if (strncmp(reply, "NOAUTH", 6) == 0)
		snprintf(buf, bufsz,
			 "the server needs a password (%s): give it in the URL (redis://:PASSWORD@HOST) or in "
			 "REDISCLI_AUTH",
			 reply);
	else if (to_auth)
		snprintf(buf, bufsz, "the server refused the password: %s", reply);
	else
		snprintf(buf, bufsz, "the server said: %s", reply);
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

/* A reply that is not what was asked: said, with shown (the URL). */
static void say_failed(const char *shown, const redisContext *c, const redisReply *r, bool to_auth)
{
	char why[1024];
	if (r && r->type == REDIS_REPLY_ERROR)
		redis_error_why(r->str, to_auth, why, sizeof why);
	else
		snprintf(why, sizeof why, "%s", c->errstr[0] ? c->errstr : "an answer of an unexpected type");
	fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, shown, why);
}

static redisContext *command_connect(const char *url, const char *shown)
{
	struct redis_url u;
	char err[256];
	if (redis_url_parse(url, &u, err, sizeof err) < 0) {
		fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, shown, err);
		return NULL;
	}
	struct timeval tv = {2, 0};
	redisContext *c = redisConnectWithTimeout(u.host, u.port, tv);
	if (!c || c->err) {
		fprintf(stderr, "%s: cache: %s: cannot connect: %s\n", PROGRAM, shown, c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		return NULL;
	}
	redisSetTimeout(c, tv);
	if (u.password[0]) {
		/* AUTH PASSWORD, or AUTH USER PASSWORD (Redis 6's users) */
		const char *argv[] = {"AUTH", u.user[0] ? u.user : u.password, u.password};
		redisReply *r = redisCommandArgv(c, u.user[0] ? 3 : 2, argv, NULL);
		bool ok = r && (r->type == REDIS_REPLY_STATUS ||
				(r->type == REDIS_REPLY_ERROR && redis_auth_unneeded(r->str)));
		if (!ok)
			say_failed(shown, c, r, true);
		freeReplyObject(r);
		if (!ok) {
			redisFree(c);
			return NULL;
		}
	}
	if (u.db) {
		redisReply *r = redisCommand(c, "SELECT %d", u.db);
		bool ok = r && r->type == REDIS_REPLY_STATUS;
		if (!ok)
			say_failed(shown, c, r, false);
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
static int scan_keys(redisContext *c, const char *shown, bool clear, long *entries, long *claims,
		     long *alive)
{
	char cursor[32] = "0";
	do {
		redisReply *r = redisCommand(c, "SCAN %s MATCH %s* COUNT 1000", cursor, PREFIX);
		if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
			say_failed(shown, c, r, false);
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
	char shown[1024];
	redis_url_shown(url, shown, sizeof shown);
	const char *sub = argc > 1 ? argv[1] : "";
	bool stats = strcmp(sub, "stats") == 0, clear = strcmp(sub, "clear") == 0;
	if (!stats && !clear) {
		fprintf(stderr, "%s: cache: %s: only 'cache stats' and 'cache clear' take a redis:// cache\n",
			PROGRAM, shown);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr, "%s: usage: %s --cache URL cache stats|clear\n", PROGRAM, PROGRAM);
		return 2;
	}
	redisContext *c = command_connect(url, shown);
	if (!c)
		return 2;
	long entries = 0, claims = 0, alive = 0;
	int rc = scan_keys(c, shown, clear, &entries, &claims, &alive);
	redisFree(c);
	if (rc < 0)
		return 2;
	if (clear) {
		printf("cache: %s: %ld entries cleared\n", shown, entries);
	} else if (opt.json) {
		/* the keys of an LMDB store's that a server has too */
		struct jsonw w = {0};
		jsonw_begin(&w, '{');
		jsonw_key(&w, "cache");
		jsonw_str(&w, shown);
		jsonw_key(&w, "exists");
		jsonw_bool(&w, true);
		jsonw_key(&w, "entries");
		jsonw_long(&w, entries);
		jsonw_key(&w, "claims");
		jsonw_long(&w, claims);
		jsonw_key(&w, "racers");
		jsonw_long(&w, alive);
		jsonw_end(&w, '}');
		jsonw_flush(&w, stdout);
		jsonw_free(&w);
	} else {
		printf("cache: %s\nentries: %ld\nclaims: %ld (racers running: %ld)\n", shown, entries, claims,
		       alive);
	}
	return 0;
}

#endif
