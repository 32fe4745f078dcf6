/* The cache's value codec: one entry (a puzzle's verdict, its solution, who
 * found it) as the bytes both stores keep, the LMDB store (cache.c) and the
 * Redis cache (cache_redis.c), and the check of a stored value against the
 * puzzle asked. No I/O here: the stores and the tests call it.
 *
 * A key is the 16 bytes of the puzzle's XXH3-128 (protocol/hash.c), high
 * half first. A value, as this racer writes it (format 3):
 *   byte 0      format: 3
 *   byte 1      verdict: 1 solved, 2 unsat
 *   byte 2      uniqueness: 0 unknown, 1 unique, 2 several solutions
 *   byte 3      box size n
 *   bytes 4-7   the winner's time in microseconds, little-endian
 *   bytes 8-15  when it was written: the LMDB store's tick, little-endian
 *               (its last use is in the store's "uses" database)
 *   bytes 16-18 the lengths of the three names that follow: the winner's
 *               (16 at most), the racer's version (16), and who proved an
 *               unsat or count verdict (47: worker names, comma-separated;
 *               empty when not recorded)
 *   then the names, printable ASCII, one after the other
 *   then the cells, packed: each in w bits, low bits first, w enough for
 *   0 to the side (4 bits for a 9x9 grid, 7 for 64x64), the last byte's
 *   padding 0. An unsat puzzle: its cells (0 blank). A solved puzzle: a
 *   mask of its givens, a bit a cell (cell i: bit i % 8 of byte i / 8),
 *   then its solution's cells; the puzzle is the solution where the givens
 *   are. A solved 9x9 entry of `cp` is about 80 bytes.
 * Formats 1 and 2 (of sudoku-race 0.1 and 0.2; still read, never written):
 * the same first 8 bytes, then the winner's name (bytes 8-23) and the
 * version (24-39) NUL-padded; format 2 also the tick (40-47) and the
 * provers (48-95); then the puzzle's cells a byte each, then a solved
 * puzzle's solution's. (They took 258 bytes a 9x9 entry.)
 * The puzzle is kept so that a hit can be checked against the puzzle asked
 * (a tampered entry, a hash collision, another puzzle's value replayed under
 * this key) and so that `cache export` can write it out. */
#ifndef RACER_CACHE_VALUE_H
#define RACER_CACHE_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/grid.h"
#include "racer/outcome.h"

/* Worker names that proved an unsat or count verdict, comma-separated:
 * at most CACHE_PROVERS_MAX - 1 characters. */
#define CACHE_PROVERS_MAX 48
#define CACHE_KEY_LEN 16
/* The value's format written, and where format 2's parts are (above). */
#define CACHE_FORMAT 3
#define CACHE_HEADER_V1 40
#define CACHE_HEADER 96
#define CACHE_TICK_AT 40
/* The LMDB store's own format (its databases, not its values): in its
 * format record. */
#define CACHE_STORE_FORMAT 2

struct cache_entry {
	enum verdict verdict;  /* V_SOLVED (with uniqueness) or V_UNSAT */
	enum uniqueness uniq;
	double ms;
	char winner[17];
	char version[17];
	/* who proved the unsat verdict or the uniqueness (e.g. "cp,sat");
	 * "" when not recorded (entries of format 1 never record it) */
	char provers[CACHE_PROVERS_MAX];
	GRID_MEMBER(solution); /* V_SOLVED; last */
};

/* e's fields cleared, all but the solution's room (4 kB): an entry to fill */
static inline void cache_entry_clear(struct cache_entry *e)
{
	memset(e, 0, offsetof(struct cache_entry, solution));
}

/* What a look-up found: an entry verified against the puzzle, nothing (or
 * a value of a newer racer's format), or a bad value (dropped); or
 * (CACHE_TIMEOUT, a shared cache only) that the puzzle spent its --timeout
 * waiting for another racer that is solving it: it is out of time. */
enum cache_result { CACHE_MISS, CACHE_HIT, CACHE_BAD, CACHE_TIMEOUT };

/* The puzzle's key. */
void cache_key(const struct grid *puzzle, uint8_t key[CACHE_KEY_LEN]);
/* The longest value there is (a 64x64 grid, solved); no store takes a
 * longer one. */
size_t cache_value_max(void);
/* The value's length for this entry. */
size_t cache_value_len(const struct grid *puzzle, const struct cache_entry *e);
/* Writes the value; its length, or 0 when bufsz is too small. */
size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf,
		    size_t bufsz);
/* 1: ok (puzzle, when not NULL, and e filled); 0: a format from a newer
 * racer (not ours to judge); -1: bad, why says how. */
int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz);
/* A value read for puzzle: a hit (decoded into e, its puzzle the one asked
 * and its solution verified), a miss (a newer racer's format), or bad (why
 * says why). */
enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len,
			      struct cache_entry *e, char *why, size_t whysz);
/* When the value was written, as the LMDB store's tick (its writer sets
 * it as it puts the value; a value's use is never older): 0 for one that
 * does not say (format 1). */
uint64_t cache_written_at(const void *value, size_t len);
void cache_set_written_at(void *value, size_t len, uint64_t tick);
/* Whether a stored value should stay rather than a fresh one for the same
 * key: it knows at least as much. A verified solution beats an unsat
 * claim; knowing uniqueness beats not knowing; a verdict with its provers
 * beats one without. Another puzzle's value, or an unreadable one, goes. */
bool cache_keep_stored(const void *stored, size_t stored_len, const void *fresh, size_t fresh_len);

/* Eight bytes as a big-endian number (gcc makes no single load of the
 * loop, hence the swap where it is known to be needed) */
static inline uint64_t cache_be64(const void *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
#else
	const uint8_t *b = p;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
#endif
}

/* A key's first bits (at most 32) as a number: its bucket in a counting
 * sort into the store's order (the reader's look-ups, the writer's batch). */
static inline unsigned cache_key_bucket(const uint8_t *key, int bits)
{
	return (unsigned)(cache_be64(key) >> (64 - bits));
}

/* The store's order of keys: LMDB's own (memcmp of the shorter length,
 * then the shorter first), by two 64-bit compares for two keys of
 * CACHE_KEY_LEN bytes (inline: a look-up makes a dozen). The same order,
 * so a store either wrote reads with the other. <0, 0, >0. */
static inline int cache_key_order(const void *a, size_t alen, const void *b, size_t blen)
{
	if (alen == CACHE_KEY_LEN && blen == CACHE_KEY_LEN) {
		/* a key's bytes read as two big-endian numbers compare as
		 * memcmp compares them */
		uint64_t x = cache_be64(a), y = cache_be64(b);
		if (x == y)
			x = cache_be64((const uint8_t *)a + 8), y = cache_be64((const uint8_t *)b + 8);
		return (x > y) - (x < y);
	}
	size_t shorter = alen < blen ? alen : blen;
	int d = shorter ? memcmp(a, b, shorter) : 0;
	return d ? d : (alen > blen) - (alen < blen);
}

static inline uint64_t cache_le64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline void cache_put_le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

#endif
