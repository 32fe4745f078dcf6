/* The run's counters (stats.h). */
#include "config.h"

#include <stdlib.h>

#include "racer/stats.h"

static long race[RC_N];
static long cache[CC_N];
static long (*spec)[SC_N];
static double *won_ms;
static int nspec;

void stats_init(int n)
{
	nspec = n;
	spec = calloc((size_t)(n ? n : 1), sizeof *spec);
	won_ms = calloc((size_t)(n ? n : 1), sizeof *won_ms);
	if (!spec || !won_ms)
		abort();
}

void stats_free(void)
{
	free(spec);
	free(won_ms);
	spec = NULL;
	won_ms = NULL;
	nspec = 0;
}

long stats_add(enum race_counter c, long n)
{
	return race[c] += n;
}

long stats_spec_add(int s, enum spec_counter c, long n)
{
	return s >= 0 && s < nspec ? (spec[s][c] += n) : 0;
}

long stats_cache_add(enum cache_counter c, long n)
{
	return cache[c] += n;
}

void stats_verdict(enum verdict v, bool cache_hit)
{
	static const enum race_counter of[] = {
		[V_PENDING] = RC_N,	     [V_SOLVED] = RC_SOLVED,	[V_UNSAT] = RC_UNSAT,
		[V_MULTIPLE] = RC_MULTIPLE,  [V_UNSOLVED] = RC_UNSOLVED, [V_TIMEOUT] = RC_TIMEOUTS,
		[V_INVALID] = RC_INVALID,    [V_CLASH] = RC_UNSAT,	[V_UNSUPPORTED] = RC_UNSUPPORTED,
	};
	if (of[v] != RC_N)
		race[of[v]]++;
	if (cache_hit)
		race[RC_CACHE_HITS]++;
}

void stats_won(int s, double ms, bool escalated)
{
	if (s < 0 || s >= nspec)
		return;
	spec[s][SC_WON]++;
	won_ms[s] += ms;
	if (escalated)
		spec[s][SC_WON_ESCALATED]++;
}

long stats_get(enum race_counter c)
{
	return race[c];
}

long stats_spec_get(int s, enum spec_counter c)
{
	return s >= 0 && s < nspec ? spec[s][c] : 0;
}

long stats_cache_get(enum cache_counter c)
{
	return cache[c];
}

double stats_won_ms(int s)
{
	return s >= 0 && s < nspec && spec[s][SC_WON] ? won_ms[s] / (double)spec[s][SC_WON] : 0.0;
}
