/* Unit tests: the Redis cache's URL (racer/cache_redis_cmd.c): its forms,
 * the password's decoding, REDISCLI_AUTH, ?required, what a message shows,
 * and what the server's errors are said to mean. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "racer/cache_redis.h"
#include "racer/redis_url.h"
#include "tap.h"

static struct redis_url u;
static char err[512];

static int parse(const char *url)
{
	err[0] = '\0';
	return redis_url_parse(url, &u, err, sizeof err);
}

#ifndef HAVE_HIREDIS
static void parse_tests(void)
{
	ok(parse("redis://host") < 0 && strstr(err, "without Redis support"), "without hiredis: refused (%s)", err);
}
#else
static void parse_tests(void)
{
	ok(parse("redis://host") == 0 && strcmp(u.host, "host") == 0 && u.port == 6379 && u.db == 0 &&
		   !u.password[0] && !u.user[0] && !u.required,
	   "redis://host: port 6379, database 0, no password");
	ok(parse("REDIS://h:7/3") == 0 && strcmp(u.host, "h") == 0 && u.port == 7 && u.db == 3,
	   "the scheme in any case; port and database");
	ok(parse("redis://h/") == 0 && u.db == 0, "a '/' with no database: 0");
	ok(parse("redis://h:65535/2147483647") == 0 && u.port == 65535 && u.db == 2147483647,
	   "the largest port and database");
	ok(parse("redis://[::1]:6380/2") == 0 && strcmp(u.host, "::1") == 0 && u.port == 6380 && u.db == 2,
	   "an IPv6 address in brackets");
	ok(parse("redis://[fe80::1%eth0]") == 0 && strcmp(u.host, "fe80::1%eth0") == 0, "an IPv6 zone");

	ok(parse("redis://:secret@h") == 0 && strcmp(u.password, "secret") == 0 && !u.user[0],
	   "redis://:PASSWORD@HOST: AUTH PASSWORD");
	ok(parse("redis://secret@h") == 0 && strcmp(u.password, "secret") == 0 && !u.user[0],
	   "redis://PASSWORD@HOST (as redis-cli -u takes it)");
	ok(parse("redis://alice:s:e@c@h:1") == 0 && strcmp(u.user, "alice") == 0 &&
		   strcmp(u.password, "s:e@c") == 0 && strcmp(u.host, "h") == 0 && u.port == 1,
	   "USER:PASSWORD@: the user to the first ':', the password to the last '@'");
	ok(parse("redis://a%6Cice:p%40ss%3Aw%2Frd%20%25x@h") == 0 && strcmp(u.user, "alice") == 0 &&
		   strcmp(u.password, "p@ss:w/rd %x") == 0,
	   "percent-decoded, hex digits in either case");
	ok(parse("redis://:a%4@h") < 0 && strstr(err, "not followed by two hex digits"), "a bad escape (%s)", err);
	ok(parse("redis://:a%zz@h") < 0, "a bad escape: %%zz");
	ok(parse("redis://:a%00@h") < 0 && strstr(err, "NUL"), "%%00 (%s)", err);
	ok(parse("redis://:@h") < 0 && strstr(err, "empty password"), "an empty password (%s)", err);
	ok(parse("redis://u:@h") < 0, "an empty password after a user");

	setenv("REDISCLI_AUTH", "from-env", 1);
	ok(parse("redis://h") == 0 && strcmp(u.password, "from-env") == 0 && u.password_from_env,
	   "no password in the URL: REDISCLI_AUTH");
	ok(parse("redis://:url@h") == 0 && strcmp(u.password, "url") == 0 && !u.password_from_env,
	   "the URL's password wins");
	setenv("REDISCLI_AUTH", "", 1);
	ok(parse("redis://h") == 0 && !u.password[0], "an empty REDISCLI_AUTH: none");
	unsetenv("REDISCLI_AUTH");

	ok(parse("redis://h?required=1") == 0 && u.required, "?required=1");
	ok(parse("redis://h:1/2?required=yes") == 0 && u.required && u.db == 2, "?required=yes after a database");
	ok(parse("redis://h?required") == 0 && u.required, "a bare ?required");
	ok(parse("redis://h/?required=0") == 0 && !u.required, "?required=0");
	ok(parse("redis://h?required=1&required=0") == 0 && !u.required, "the last one counts");
	ok(parse("redis://h?required=2") < 0, "?required=2: refused (%s)", err);
	ok(parse("redis://h?db=1") < 0 && strstr(err, "not an option"), "an unknown option (%s)", err);

	static const char *const bad[] = {"redis://",	   "redis://:7",    "redis://h:0",    "redis://h:65536",
					  "redis://h:x",   "redis://h/x",   "redis://h/1/2",  "redis://[::1",
					  "redis://h#f",   "redis://a,b",   "redis://h x",    "rediss://h",
					  "redis:/h",	   "http://h",	    "redis://h:+1",   "redis://h:-1",
					  "redis://h:1x",  "redis://h:99999999999999999999999",
					  "redis://h/-0",  "redis://h/+1",  "redis://h/2147483648"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ok(parse(bad[i]) < 0 && err[0], "%s: refused (%s)", bad[i], err);
}
#endif

int main(void)
{
	char buf[1024];
	unsetenv("REDISCLI_AUTH");
	parse_tests();

	is_str(redis_url_shown("redis://h:1/2", buf, sizeof buf), "redis://h:1/2", "shown: no password, as it is");
	is_str(redis_url_shown("redis://:pw@h", buf, sizeof buf), "redis://:***@h", "shown: :PASSWORD@");
	is_str(redis_url_shown("redis://pw@h", buf, sizeof buf), "redis://***@h", "shown: PASSWORD@");
	is_str(redis_url_shown("redis://al:p@w@h?required=1", buf, sizeof buf), "redis://al:***@h?required=1",
	       "shown: USER:PASSWORD@, to the last '@'");
	is_str(redis_url_shown("http://u:pw@h/x", buf, sizeof buf), "http://u:***@h/x", "shown: any scheme");
	is_str(redis_url_shown("/some/dir@x", buf, sizeof buf), "/some/dir@x", "shown: a directory as it is");

	redis_error_why("NOAUTH Authentication required.", false, buf, sizeof buf);
	ok(strstr(buf, "the server needs a password (NOAUTH") && strstr(buf, "REDISCLI_AUTH"), "NOAUTH: %s", buf);
	redis_error_why("WRONGPASS invalid username-password pair or user is disabled.", true, buf, sizeof buf);
	ok(strstr(buf, "the server refused the password: WRONGPASS") == buf, "to AUTH: %s", buf);
	redis_error_why("OOM command not allowed", false, buf, sizeof buf);
	is_str(buf, "the server said: OOM command not allowed", "another error: the server's words");
	ok(redis_auth_unneeded("ERR AUTH <password> called without any password configured for the default "
			       "user. Are you sure your configuration is correct?"),
	   "a password the server does not need (Redis 6 and later)");
	ok(redis_auth_unneeded("ERR Client sent AUTH, but no password is set"), "(Redis 5)");
	ok(!redis_auth_unneeded("WRONGPASS invalid username-password pair"), "a wrong one is not that");
	return tap_done();
}
