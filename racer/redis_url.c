/* A redis:// URL taken apart and shown (redis_url.h): pure string work,
 * apart from the Redis cache (cache_redis.c) so that the options can check
 * a URL without naming the store that uses it. */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/number.h"
#include "racer/redis_url.h"

#define DEFAULT_PORT 6379
#define HOST_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
#define FORM "redis://[[USER:]PASSWORD@]HOST[:PORT][/DB][?required=1]"

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n), percent-decoded, into out (outsz with its NUL). */
static int decode(const char *s, size_t n, char *out, size_t outsz, const char *what, char *err, size_t errsz)
{
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			int hi = i + 2 < n ? hex_value(s[i + 1]) : -1, lo = i + 2 < n ? hex_value(s[i + 2]) : -1;
			if (hi < 0 || lo < 0) {
				snprintf(err, errsz, "a '%%' in the %s is not followed by two hex digits (%%40 is '@')",
					 what);
				return -1;
			}
			c = hi * 16 + lo;
			i += 2;
			if (c == 0) {
				snprintf(err, errsz, "a NUL byte (%%00) in the %s", what);
				return -1;
			}
		}
		if (j + 1 >= outsz) {
			snprintf(err, errsz, "the %s is too long", what);
			return -1;
		}
		out[j++] = (char)c;
	}
	out[j] = '\0';
	return 0;
}

/* ?required=1: the URL's options, from q (after the '?'). */
static int parse_query(const char *q, struct redis_url *u, char *err, size_t errsz)
{
	while (*q) {
		size_t n = strcspn(q, "&");
		const char *v = memchr(q, '=', n);
		size_t kn = v ? (size_t)(v - q) : n;
		if (kn != 8 || strncmp(q, "required", 8) != 0) {
			snprintf(err, errsz, "'%.*s' is not an option of the URL (?required=1)", (int)n, q);
			return -1;
		}
		static const char *const yes[] = {"1", "yes", "true"}, *const no[] = {"0", "no", "false"};
		size_t vn = v ? n - kn - 1 : 0;
		int set = v ? -1 : 1; /* a bare ?required is ?required=1 */
		for (size_t i = 0; v && i < 3; i++) {
			if (strlen(yes[i]) == vn && strncmp(v + 1, yes[i], vn) == 0)
				set = 1;
			if (strlen(no[i]) == vn && strncmp(v + 1, no[i], vn) == 0)
				set = 0;
		}
		if (set < 0) {
			snprintf(err, errsz, "'%.*s': required takes 1 or 0", (int)n, q);
			return -1;
		}
		u->required = set == 1;
		q += n;
		if (*q == '&')
			q++;
	}
	return 0;
}

int redis_url_parse(const char *url, struct redis_url *u, char *err, size_t errsz)
{
	memset(u, 0, sizeof *u);
	if (strncasecmp(url, "redis://", 8) != 0) {
		snprintf(err, errsz, "not a redis:// URL");
		return -1;
	}
	const char *h = url + 8, *p;
	/* the user and password end at the last '@' (one in a password may
	 * stay as it is); the user is before the first ':' */
	const char *at = strrchr(h, '@');
	if (at) {
		const char *colon = memchr(h, ':', (size_t)(at - h));
		if (colon && decode(h, (size_t)(colon - h), u->user, sizeof u->user, "user name", err, errsz) < 0)
			return -1;
		const char *pw = colon ? colon + 1 : h;
		if (decode(pw, (size_t)(at - pw), u->password, sizeof u->password, "password", err, errsz) < 0)
			return -1;
		if (!u->password[0]) {
			snprintf(err, errsz, "an empty password (%s)", FORM);
			return -1;
		}
		h = at + 1;
	} else {
		/* as redis-cli: the URL's password first, else the environment's */
		const char *env = getenv("REDISCLI_AUTH");
		if (env && env[0]) {
			if (strlen(env) >= sizeof u->password) {
				snprintf(err, errsz, "REDISCLI_AUTH is longer than %zu bytes", sizeof u->password - 1);
				return -1;
			}
			snprintf(u->password, sizeof u->password, "%s", env);
			u->password_from_env = true;
		}
	}
	size_t n;
	bool ipv6 = *h == '[';
	if (ipv6) {
		const char *close = strchr(h, ']');
		if (!close) {
			snprintf(err, errsz, "an IPv6 address without its ']'");
			return -1;
		}
		h++;
		n = (size_t)(close - h);
		p = close + 1;
	} else {
		n = strcspn(h, ":/?");
		p = h + n;
	}
	if (n == 0) {
		snprintf(err, errsz, "no host (%s)", FORM);
		return -1;
	}
	if (n >= sizeof u->host) {
		snprintf(err, errsz, "a host name too long");
		return -1;
	}
	memcpy(u->host, h, n);
	u->host[n] = '\0';
	/* a name, an IPv4 address, or in brackets an IPv6 one (a zone too) */
	if (strspn(u->host, ipv6 ? HOST_CHARS ":%" : HOST_CHARS) != n) {
		snprintf(err, errsz, "'%s' is not a host name or address", u->host);
		return -1;
	}
	u->port = DEFAULT_PORT;
	u->db = 0;
	uint64_t v;
	if (*p == ':') {
		n = strcspn(++p, "/?");
		if (parse_seed_n(p, n, &v) != PARSE_OK || v < 1 || v > 65535) {
			snprintf(err, errsz, "the port is not a number from 1 to 65535");
			return -1;
		}
		u->port = (int)v;
		p += n;
	}
	if (*p == '/' && p[1] && p[1] != '?') {
		n = strcspn(++p, "?");
		if (parse_seed_n(p, n, &v) != PARSE_OK || v > INT_MAX) {
			snprintf(err, errsz, "the database is not a number (%s)", FORM);
			return -1;
		}
		u->db = (int)v;
		p += n;
	} else if (*p == '/') {
		p++;
	}
	if (*p == '?') {
		if (parse_query(p + 1, u, err, errsz) < 0)
			return -1;
		p += strlen(p);
	}
	if (*p) {
		snprintf(err, errsz, "'%s' after the host (%s)", p, FORM);
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

const char *redis_url_shown(const char *url, char *buf, size_t bufsz)
{
	const char *s = strstr(url, "://");
	const char *at = s ? strrchr(s + 3, '@') : NULL;
	if (!at) {
		snprintf(buf, bufsz, "%s", url);
		return buf;
	}
	const char *colon = memchr(s + 3, ':', (size_t)(at - (s + 3)));
	snprintf(buf, bufsz, "%.*s***%s", (int)((colon ? colon + 1 : s + 3) - url), url, at);
	return buf;
}
