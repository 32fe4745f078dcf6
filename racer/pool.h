/* The processes of each entry of the portfolio (the policy; proc.c is the
 * mechanism): how many of each, started lazily and grown as work pays
 * for their start, what a death costs (strikes), when one starts again
 * (backoff), when an entry is left out, and the shutdown. The pool owns
 * the processes and passes what they say up to its owner. */
#ifndef RACER_POOL_H
#define RACER_POOL_H

#include <stdbool.h>

#include "protocol/message.h"
#include "racer/outcome.h"
#include "racer/workers.h"

struct attempt;
struct proc;
struct event_base;

struct pool_events {
	void (*answer)(void *owner, struct proc *p, struct attempt *a, const struct msg_reply *r);
	void (*progress)(void *owner, struct proc *p, struct attempt *a, const struct msg *m);
	void (*lost)(void *owner, struct proc *p, struct attempt *a, enum outcome why);
	/* a process became ready, or an entry went out: look again */
	void (*changed)(void *owner);
};

/* -j processes of each presolver entry (default: the processors), a
 * quarter as many of the others (at least one), one of a GPU entry.
 * Nothing is started. ev NULL: --list-workers' probe (one of each,
 * started once, never again). */
void pool_init(struct event_base *base, int jobs, const struct pool_events *ev, void *owner);
/* Starts an entry's first process (once; later calls do nothing). */
void pool_start_spec(int spec);
void pool_start_all(void);
/* One more process of an entry (its first, if none): false when all are
 * started (or it is out). */
bool pool_grow(int spec);
/* May a presolver entry with work queued on a ready process start one
 * more process now (the ski-rental rule: starts cost at most a share of
 * the work done)? */
bool pool_may_grow(int spec);
/* Is one of its processes saying hello yet? */
bool pool_spec_starting(int spec);
/* Could this entry still take part in a race later (starting, or waiting
 * to be started again)? */
bool pool_spec_may_join(int spec);
/* The ready process of an entry with the fewest in flight, skip() saying
 * no to none of them (skip may be NULL); NULL: none can take one now. */
struct proc *pool_pick(int spec, bool (*skip)(const struct proc *p));
/* Leaves an entry out for the rest of the run (its processes stopped);
 * say: warn. */
void pool_spec_out(int spec, enum spec_status status, bool say, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool pool_started(void);
bool pool_spec_started(int spec);
int pool_spec_nstarted(int spec);
/* The processes: all of them, and an entry's. */
int pool_size(void);
struct proc *pool_proc(int i);
int pool_copies(int spec);
/* Which of its entry's processes p is: 0, 1, ... */
int pool_copy_number(const struct proc *p);
/* True when every entry either said hello or is out (--list-workers). */
bool pool_all_settled(void);
/* Stops every process: quit, then SIGKILL after the grace; done() when
 * every one has ended and was waited for. */
void pool_shutdown(void (*done)(void));
void pool_free(void);

#endif
