/* The puzzles between the input and the output: each read into a slot of
 * the ring (ring.h) in input order, looked up in the cache, handed to the
 * race in order (the ones taken back first), and handed to the output in
 * input order once answered. A puzzle that the input or the cache answers
 * never reaches the race. */
#ifndef RACER_QUEUE_H
#define RACER_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/puzzle_stream.h"
#include "racer/store.h"

struct puzzle;

/* wake: something is due in the owner's tick (an answer to write, a puzzle
 * to race). slots: the ring's size. */
void queue_init(uint64_t slots, uint64_t read_ahead, void (*wake)(void));
/* Puzzles read and not yet raced, at most (a GPU worker's deep queue
 * wants more). */
void queue_set_read_ahead(uint64_t n);

/* --- the input's side --- */
/* Puzzles the input may add now (room in the ring, and not further ahead
 * of the races than the read-ahead). */
uint64_t queue_room(void);
/* The item the input fills for the next puzzle (the same until added). */
struct stream_item *queue_next_item(void);
/* The input filled it (ev: STREAM_PUZZLE or STREAM_INVALID). */
void queue_add(enum stream_event ev, const char *input_name);
/* queue_add calls between these have their cache look-ups go together. */
void queue_batch_begin(void);
void queue_batch_end(void);
/* The store's reply function (store_open). */
void queue_cached(void *owner, uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad);

/* --- the race's side --- */
/* The next puzzle to race (a taken-back one first), or NULL; it stays
 * next until queue_take. */
struct puzzle *queue_peek(void);
void queue_take(struct puzzle *pz);
/* A puzzle taken back (WAITING again): it is raced before the others. */
void queue_again(struct puzzle *pz);
/* Puzzles waiting to be raced. */
uint64_t queue_waiting(void);
/* The puzzle of a sequence number still in the ring, or NULL. */
struct puzzle *queue_find(uint64_t seq);

/* --- the output's side --- */
/* The next puzzle in input order when it is answered (else NULL), and its
 * release once written: its attempts still in flight outlive it. */
const struct puzzle *queue_next_done(void);
void queue_release_done(void);
/* Everything added has been answered and released. */
bool queue_all_done(void);
void queue_stop(void);
void queue_free(void);

#endif
