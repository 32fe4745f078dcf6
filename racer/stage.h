/* The first stage of a race and the way out of it (docs/racer.md, "The schedule";
 * schedule.c sets the budget): a puzzle goes to its presolver alone,
 * pipelined on the least busy of its processes, filled a run at a time;
 * the GPU worker takes batches of a deep queue; when the presolver has
 * not answered within the budget from the moment its process began the
 * puzzle, the rest of the portfolio joins (escalation), and the puzzles
 * queued behind it on that process are taken back. The stage keeps, per
 * process, whether it is held (its head escalated) and the budget's timer. */
#ifndef RACER_STAGE_H
#define RACER_STAGE_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct proc;
struct puzzle;

struct stage_hooks {
	/* pz, at the head of its presolver's process, is over its budget:
	 * true when the race escalated it (there was a place). */
	bool (*over_budget)(struct puzzle *pz);
	/* pz ran out of --timeout in its first stage. */
	void (*timed_out)(struct puzzle *pz);
};

void stage_init(struct event_base *base, int nprocs, const struct stage_hooks *h);
/* Where a puzzle's race starts: *p, a process of its presolver (or of the
 * GPU's entry), or NULL with no presolver for it (every entry races it).
 * False: it waits (the processes are full, or starting). waiting: puzzles
 * read and not yet raced. */
bool stage_place(const struct puzzle *pz, uint64_t waiting, struct proc **p);
/* pz was sent to p as its first stage. */
void stage_sent(struct proc *p);
/* p's head may have changed (an answer, a loss, a first send): the new
 * head's budget starts. */
void stage_head(struct proc *p);
/* pz escalated from the head of p: the puzzles queued behind it there
 * are taken back (cancelled; raced again when the cancel is acknowledged). */
void stage_take_back(struct proc *p, const struct puzzle *pz);
/* The process escalated puzzles of pz's presolver are held on. */
bool stage_held(const struct proc *p);
/* The puzzle longest over its budget that waits for a place, or NULL. */
struct puzzle *stage_oldest_overdue(void);
/* Puzzles to read ahead of the races (more while a GPU worker takes deep
 * batches). */
uint64_t stage_read_ahead(void);
/* Slots the first stages may hold at once (the presolvers' queues, a GPU
 * worker's deep one). */
uint64_t stage_slots_wanted(void);
/* A race started: a GPU worker starts in the background with the second. */
void stage_race_started(void);
/* Stops the timers (the run is ending). */
void stage_stop(void);
void stage_free(void);

#endif
