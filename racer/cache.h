/* The LMDB result cache of one machine (cache.c), and the `sudoku-race
 * cache ...` commands (cache_cmd.c). The race reaches it through store.h. */
#ifndef RACER_CACHE_H
#define RACER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racer/cache_value.h"
#include "racer/store.h"

/* --cache-size: the default, and the least it may be */
#define CACHE_SIZE_DEFAULT ((size_t)1 << 30)
#define CACHE_SIZE_MIN ((size_t)256 << 10)

/* Resolves the cache directory (--cache, or XDG). Returns NULL when there
 * is no home to put it in. */
const char *cache_default_dir(void);
/* --cache-size: bytes, or with K, M, G, T (powers of 1024; KiB, KB also). */
int cache_parse_size(const char *s, size_t *bytes);
/* Opens (creating the directory, mode 0700), at most opt.cache_size bytes.
 * On failure -1 and err says why; a damaged store has been set aside
 * (renamed) then, and err says where. */
int cache_open(const char *dir, bool readonly, char *err, size_t errsz);
bool cache_enabled(void);
/* The open store's size limit: --cache-size, else the one it keeps. */
size_t cache_limit(void);
void cache_close(void);
/* Look-ups between begin and end share one read transaction. A hit counts
 * as a use (least recently used entries are evicted first). */
void cache_read_begin(void);
void cache_read_end(void);
enum cache_result cache_get(const struct grid *puzzle, struct cache_entry *e, char *why,
			    size_t whysz);
/* Queued; written in batches (cache_flush, or a timer). An entry already
 * stored stays when it knows as much (a verified solution over unsat,
 * known uniqueness, recorded provers). */
void cache_put(const struct grid *puzzle, const struct cache_entry *e);
void cache_delete(const struct grid *puzzle);
void cache_flush(void);
/* The store failed while running: one warning, then no cache. */
void cache_fail(const char *what, int rc);

/* For cache_cmd.c. status: 1, an entry (puzzle and e); 0, an entry of a
 * newer racer's format; -1, an unreadable one (both NULL). */
typedef void (*cache_visit)(const struct grid *puzzle, const struct cache_entry *e, int status,
			    void *arg);
/* Every entry of the open store. -1 and err when it cannot be read (a
 * damaged store is set aside, and err says so). */
int cache_each(cache_visit fn, void *arg, char *err, size_t errsz);
/* Empties the store in dir. 0: emptied (entries: how many); 1: it was
 * damaged and has been removed (msg says so); -1: msg says why not. */
int cache_clear(const char *dir, size_t *entries, char *msg, size_t msgsz);
/* sudoku-race cache stats|clear|export|import: argv[0] is "cache". */
int cache_command(int argc, char **argv);

#endif
