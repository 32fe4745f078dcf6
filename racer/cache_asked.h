/* The LMDB store's look-ups in flight (cache.c), in the order asked, which
 * is the order the reader process answers them in: each one's seq and key,
 * and its puzzle's cells, to check the answer against. A FIFO in two
 * growing arrays, reused from batch to batch: nothing is allocated per
 * look-up. */
#ifndef SUDOKU_CACHE_ASKED_H
#define SUDOKU_CACHE_ASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/grid.h"
#include "racer/cache_value.h"

struct cache_asked {
	uint64_t seq;
	uint8_t key[CACHE_KEY_LEN];
};

void asked_push(uint64_t seq, const uint8_t key[CACHE_KEY_LEN], const struct grid *puzzle);
/* Whether a look-up is in flight. */
bool asked_any(void);
/* The oldest look-up's seq; asked_any() first. */
uint64_t asked_oldest_seq(void);
/* Takes the oldest look-up off: its seq and key in *out, its puzzle in
 * *puzzle (room for any grid) unless puzzle is NULL. */
void asked_pop(struct cache_asked *out, struct grid *puzzle);
/* Takes every look-up off, oldest first, through fn. */
void asked_drain(void (*fn)(uint64_t seq));
void asked_free(void);

#endif
