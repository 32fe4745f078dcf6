/* The LMDB store, as its helper processes see it: cache_lmdb.c opens and
 * reads it (the reader: look-ups, every entry), cache_writer.c writes it
 * (the writer). Each runs in a process of its own, forked by cache.c
 * (spawn_helper), and talks to the racer in cache_msg.h's messages over a
 * socket: LMDB's faults on a damaged file end the helper, never the racer.
 *
 * The store: the main database maps each puzzle's key to its value
 * (cache_value.h). One more record there, under the key "sudoku-race" (no
 * puzzle's key: those are 16 bytes): "SRCACHE", the store's format (2), its
 * tick (8 bytes, little-endian), which counts uses, and its size limit (8
 * bytes, little-endian: the last --cache-size given, kept for the runs that
 * give none). A second database, "uses", maps each entry's key to the tick
 * of its last use (8 bytes, little-endian): a use writes that small record,
 * not the entry. Eviction reads the ticks and takes the oldest. */
#ifndef RACER_CACHE_LMDB_H
#define RACER_CACHE_LMDB_H

#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racer/cache_msg.h"

#define CACHE_DIR_MAX 4096

/* What cache.c gives a helper it forks (a copy: the helper's own). */
struct cache_helper_args {
	char dir[CACHE_DIR_MAX];
	size_t cap_bytes; /* --cache-size; 0: the store's own, else the default */
	bool readonly;    /* cache stats, export: nothing written, no lock taken where it cannot be */
	int fd;           /* the socket to the racer */
};

struct lmdb_store {
	MDB_env *env;
	MDB_dbi dbi, uses_dbi;
	bool has_uses;    /* a store of format 1 opened read-only has none */
	/* the uses by age: big-endian tick -> key (several keys at tick 1,
	 * the entries of a store of format 1), kept with the uses, so that
	 * the writer evicts the oldest from a cursor. A racer before it
	 * writes uses without ages: an age whose use moved on is stale, and
	 * eviction drops it. */
	MDB_dbi ages_dbi;
	bool has_ages;
	size_t cap_bytes; /* the limit it keeps */
	size_t map_bytes; /* the map this process has: at most what its address space holds */
	size_t cap_pages; /* what the entries may take: the smaller of the two, in pages */
	bool nolock;
};

/* The reader's and the writer's lives (spawn_helper's main). */
int cache_reader_main(void *arg);
int cache_writer_main(void *arg);

/* --- cache_lmdb.c, for the writer --- */

/* Opens the environment and its databases. full: as the reader does it
 * first (the directory made, the lock file's room taken, the file checked
 * for damage, a store of format 1 brought to 2); else as the writer does,
 * after it. On failure -1, with *kind and err. */
int lmdb_open(struct lmdb_store *s, const struct cache_helper_args *a, bool full, enum cmsg_fail *kind,
	      char *err, size_t errsz);
/* Errors by which LMDB says its file is not what it should be. */
bool lmdb_is_damage(int rc);
/* An age's key: the tick, big-endian, so that the ages sort oldest first. */
void lmdb_age_key(uint64_t tick, uint8_t out[8]);
/* key used at tick (0: not any more): its old age goes, and the new one
 * is the caller's to put (the writer appends a transaction's ages at its
 * end, in order). fresh: the key is new to the store, with no use to look
 * up. *was, when was is not NULL: the use before (0: none). */
int lmdb_set_use(struct lmdb_store *s, MDB_txn *txn, const uint8_t key[CACHE_KEY_LEN], uint64_t tick, bool fresh,
		 uint64_t *was);
/* A writer whose evictions fail for want of room (MDB_MAP_FULL): the map
 * grown past the file's pages, no transaction open. Whether it grew. */
bool lmdb_make_room(struct lmdb_store *s);
void lmdb_write_meta(struct lmdb_store *s, MDB_txn *txn, uint64_t tick, int *rc);
/* The end of a write transaction: committed, and the file filled out to
 * its last page, unless *rc already says it failed (then abandoned). */
void lmdb_end_write(struct lmdb_store *s, MDB_txn *txn, int *rc);
/* The first message of a helper, or its last, written whole (blocking);
 * false when the racer is gone. */
bool helper_send(int fd, struct cmsg_buf *out);
/* What every helper does first: its name, and standard input, output and
 * error on /dev/null (what LMDB or a sanitizer says of a damaged file is
 * said once, by the racer). */
void helper_start(const char *name);
/* A bound on the work that follows: HELPER_CPU_S seconds of processor time
 * (SIGXCPU ends the helper past it). LMDB can go round a loop of a damaged
 * file's pages without end; no bounded piece of a sound store's work takes
 * that much (a slow disk's waits are not processor time): a look-up batch,
 * a write transaction, a round of eviction. The writer's longest on a
 * store of a million entries took 1.8 s here; under the sanitizers, work
 * is some three times slower. */
void helper_budget(void);
#define HELPER_CPU_S 10

/* A helper's exit status when the racer broke the protocol (not one a
 * sanitizer or the C library uses) */
#define HELPER_EXIT_BROKEN_PEER 86

#define META_KEY "sudoku-race"
#define META_MAGIC "SRCACHE"
#define META_LEN 24

#endif
