/* The races (docs/racer.md, "The schedule"). The puzzles come from the queue
 * (queue.h) in input order, those taken back first, and are raced in
 * stages: first by the
 * presolver of their size alone (stage.h), then by the rest of the
 * portfolio; --schedule=all, and sizes without a presolver, race every
 * entry at once. A race ends with the first verified solution, a proved
 * verdict (verdict.h), everyone failing, or --timeout.
 *
 * What the workers say arrives through the pool's callbacks and is only
 * recorded there; the race moves on in race_tick, which its owner runs
 * once a loop turn when asked to (the wake hook): dispatch, the races to
 * look at again, escalations waiting for a place, confirmations waiting
 * for room. */
#ifndef RACER_RACE_H
#define RACER_RACE_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/message.h"
#include "racer/pool.h"

struct event_base;
struct proc;
struct puzzle;

struct race_hooks {
	/* something changed: race_tick is due (once this loop turn) */
	void (*wake)(void);
	/* a worker's progress report on pz (NULL: gone) */
	void (*progress)(const struct proc *p, const struct puzzle *pz, const struct msg *m);
};

/* After the portfolio, the schedule and the pool. */
void race_init(struct event_base *base, const struct race_hooks *h);
/* progress_ms= in every solve (0: none). */
void race_set_progress_ms(long ms);

/* --- the owner's tick --- */
void race_tick(void);
/* The pool's callbacks (pool_init). */
extern const struct pool_events race_pool_events;
/* The run is ending: no more dispatch, no more timers. */
void race_stop(void);
void race_free(void);

#endif
