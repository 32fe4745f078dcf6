/* The ring of slots that hold the puzzles between the output and the
 * input, each found by its sequence number (also its request id). The
 * sequence numbers in use are [out, next): a slot is claimed for the next
 * one, committed when the input filled it, and released, oldest first,
 * when its answer was written. Slots are reused last freed first, so an
 * easy file runs in the few slots in use at once (their pages stay warm). */
#ifndef RACER_RING_H
#define RACER_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	char *mem;
	size_t slot_size, mapped;
	uint64_t cap;            /* slots: a power of two */
	uint32_t *slot_of;       /* by seq & (cap - 1) */
	uint32_t *free_slot;     /* a stack of free slots */
	uint32_t nfree;
	bool next_claimed;       /* slot_of[next] is taken */
	uint64_t out, next;      /* the sequence numbers in use */
};

/* At least want slots of slot_size bytes, zeroed; sequence numbers from 1. */
void ring_init(struct ring *r, size_t slot_size, uint64_t want);
/* The slot of the next sequence number (claimed; the same until committed). */
void *ring_next(struct ring *r);
/* The claimed slot holds a puzzle now: its sequence number. */
uint64_t ring_commit(struct ring *r);
/* The slot of seq, or NULL when seq is not in use. */
void *ring_at(const struct ring *r, uint64_t seq);
/* The oldest in use is done with: its slot is free again. */
void ring_release_oldest(struct ring *r);
/* Slots not in use. */
static inline uint64_t ring_room(const struct ring *r)
{
	return r->cap - (r->next - r->out);
}
static inline bool ring_empty(const struct ring *r)
{
	return r->out == r->next;
}
void ring_free(struct ring *r);

#endif
