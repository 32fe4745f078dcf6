/* The LMDB result cache of one machine, the racer's side (cache.c: its
 * helper processes are cache_lmdb.h's), and the `sudoku-race cache ...`
 * commands (cache_cmd.c). The race reaches it through store.h. */
#ifndef RACER_CACHE_H
#define RACER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "racer/cache_value.h"
#include "racer/cache_where.h"

/* Opens the store in dir (creating the directory, mode 0700), at most
 * opt.cache_size bytes, its helper processes started: blocks until the
 * store is open and checked. readonly: nothing is written (cache stats,
 * export; read-only media). On failure -1 and err says why; a damaged store
 * has been set aside (renamed) then, and err says where. In the event loop
 * from here on when there is one (base). */
int cache_open(const char *dir, bool readonly, char *err, size_t errsz);
bool cache_enabled(void);
/* The open store's size limit: --cache-size, else the one it keeps. */
size_t cache_limit(void);
/* Look-ups between these go out together; each answer comes through
 * store_reply (store.h), from the event loop. A hit the store finds worth
 * it is written down as a use (least recently used entries go first). */
void cache_batch_begin(void);
void cache_batch_end(void);
void cache_lookup(uint64_t seq, const struct grid *puzzle);
/* Queued for the writer, which commits in batches. An entry already stored
 * stays when it knows as much (cache_keep_stored). When the writer is
 * BACKLOG_MAX behind, dropped (CC_DROPPED). */
void cache_put(const struct grid *puzzle, const struct cache_entry *e);
/* The writer commits what it has now (without waiting for it). */
void cache_flush(void);
/* The writer is far behind: the input should pause; fn is called when it
 * has caught up (or was given up). */
bool cache_backlogged(void);
void cache_on_drained(void (*fn)(void));
/* What was queued reaches the store: waits for the writer (while it says
 * something at least every 30 s). -1 when the store failed. */
int cache_finish(void);
void cache_close(void);
/* --stats: what the LMDB store adds (the writes it dropped). */
void cache_stats(FILE *f);

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
