/* One attempt: a puzzle sent to one entry of the portfolio. The race owns
 * it (the puzzle points at its attempts, one per entry at most); the
 * process it was sent to holds it in its queue, in the order sent, until
 * the worker's final word on it or the process's end. An attempt outlives
 * its puzzle when the answer was written before the worker acknowledged
 * its cancel: pz is NULL then, and the last word frees it. */
#ifndef RACER_ATTEMPT_H
#define RACER_ATTEMPT_H

#include <stdint.h>

struct puzzle;

struct attempt {
	struct puzzle *pz;        /* NULL: its puzzle is gone */
	uint64_t seq;             /* the request id: the puzzle's sequence number */
	uint64_t cancel_ns;       /* when its cancel was sent; 0: not sent */
	struct attempt *next_free;
	float ms;                 /* the worker's own time (ms=) */
	int16_t proc;             /* the process it went to; -1: none */
	uint8_t spec;             /* the entry */
	uint8_t outcome;          /* enum outcome */
};

/* A new attempt of entry spec at pz (OUT_NONE, no process). */
struct attempt *attempt_new(struct puzzle *pz, uint64_t seq, int spec);
void attempt_free(struct attempt *a);
/* Every attempt's memory, at exit. */
void attempt_free_all(void);

#endif
