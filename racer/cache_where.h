/* Where the cache lives, for the options and the commands (cache_where.c). */
#ifndef RACER_CACHE_WHERE_H
#define RACER_CACHE_WHERE_H

#include <stdbool.h>
#include <stddef.h>

/* --cache-size: the default, and the least it may be */
#define CACHE_SIZE_DEFAULT ((size_t)1 << 30)
#define CACHE_SIZE_MIN ((size_t)256 << 10)

/* Is this cache location a redis:// URL rather than a directory? */
bool store_is_url(const char *where);
/* Is it a URL of any scheme (SCHEME://...)? The scheme into scheme. */
bool store_url_scheme(const char *where, char *scheme, size_t schemesz);
/* The cache directory when --cache names none (XDG). NULL when there is no
 * home to put it in. */
const char *cache_default_dir(void);
/* --cache-size: bytes, or with K, M, G, T (powers of 1024; KiB, KB also). */
int cache_parse_size(const char *s, size_t *bytes);

#endif
