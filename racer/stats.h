/* Every counter of a run, in one module: the puzzles and their verdicts,
 * each entry's requests and processes, the cache. The parts count through
 * these functions; --stats (report.c) and --progress read them. */
#ifndef RACER_STATS_H
#define RACER_STATS_H

#include <stdbool.h>

#include "racer/outcome.h"

enum race_counter {
	RC_PUZZLES,
	RC_SOLVED, RC_UNSAT, RC_MULTIPLE, RC_UNSOLVED, RC_TIMEOUTS, RC_INVALID, RC_UNSUPPORTED,
	RC_CACHE_HITS,
	RC_FIRST_ONLY, RC_ESCALATED, RC_ALL_AT_ONCE, /* how the races ran */
	RC_CONFIRMED, RC_UNCONFIRMED, RC_LIARS,      /* verdicts that need proof */
	RC_N
};

/* Per entry: every request sent ends as one of WON .. OPEN (--stats'
 * "sent = won + late + ... + open"); the rest count its processes. */
enum spec_counter {
	SC_SENT,
	SC_WON, SC_LATE, SC_CANCELLED, SC_GAVEUP, SC_WRONG, SC_ERRORS,
	SC_LOST, /* its process ended (died, killed, restarted) with it in flight */
	SC_OPEN, /* in flight when the run ended */
	SC_MALFORMED, SC_REFUSED, SC_DIED, SC_KILLED, SC_RESPAWNS, SC_HELLO_FAILURES,
	SC_WON_ESCALATED, /* races won after the rest joined */
	SC_N
};

/* CC_DROPPED: writes let go because the store's writer fell behind (its
 * queue is bounded) */
enum cache_counter { CC_HITS, CC_MISSES, CC_BAD, CC_WRITTEN, CC_EVICTED, CC_DROPPED, CC_N };

void stats_init(int nspecs);
void stats_free(void);

/* Adds n; returns the new value. */
long stats_add(enum race_counter c, long n);
long stats_spec_add(int spec, enum spec_counter c, long n);
long stats_cache_add(enum cache_counter c, long n);
/* A puzzle's verdict (and whether the cache gave it). */
void stats_verdict(enum verdict v, bool cache_hit);
/* An entry won a race in ms of its own time. */
void stats_won(int spec, double ms, bool escalated);

long stats_get(enum race_counter c);
long stats_spec_get(int spec, enum spec_counter c);
long stats_cache_get(enum cache_counter c);
/* An entry's mean time on a win, ms (0: no win). */
double stats_won_ms(int spec);

#endif
