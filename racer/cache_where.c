/* Where the cache lives (cache_where.h): the default directory, a size,
 * a URL. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "racer/cache_value.h"
#include "racer/cache_where.h"

const char *cache_default_dir(void)
{
	static char dir[4096];
	const char *xdg = getenv("XDG_CACHE_HOME");
	/* the XDG spec: a relative path is to be ignored */
	if (xdg && xdg[0] == '/') {
		snprintf(dir, sizeof dir, "%s/sudoku-race", xdg);
		return dir;
	}
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !home[0])
		return NULL;
	snprintf(dir, sizeof dir, "%s/.cache/sudoku-race", home);
	return dir;
}

int cache_parse_size(const char *s, size_t *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -1;
	double unit = 1;
	if (*end) {
		const char *units = "KMGT";
		const char *u = strchr(units, end[0] & ~0x20);
		if (!u || !*u || (end[1] && strcmp(end + 1, "iB") != 0 && strcmp(end + 1, "B") != 0))
			return -1;
		for (const char *p = units; p <= u; p++)
			unit *= 1024;
	}
	v *= unit;
	if (v < CACHE_SIZE_MIN || v > 1e15)
		return -1;
	*bytes = (size_t)v;
	return 0;
}

bool store_url_scheme(const char *where, char *scheme, size_t schemesz)
{
	/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
	if (!where || !((*where | 0x20) >= 'a' && (*where | 0x20) <= 'z'))
		return false;
	size_t n = strspn(where, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
	if (strncmp(where + n, "://", 3) != 0)
		return false;
	if (scheme)
		snprintf(scheme, schemesz, "%.*s", (int)n, where);
	return true;
}

bool store_is_url(const char *where)
{
	return where && strncasecmp(where, "redis://", 8) == 0;
}

