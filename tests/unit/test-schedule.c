/* Unit tests: the staged race's policy (racer/schedule.c): presolvers by
 * size, the learned budget, escalations' members, confirmers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grid.h"
#include "racer/options.h"
#include "racer/schedule.h"
#include "racer/stats.h"
#include "racer/workers.h"
#include "tap.h"

enum { CP, SAT, DLX, ACS, N };

int main(void)
{
	static const char *const names[N] = {"cp", "sat", "dlx", "acs"};
	nspecs = N;
	specs = calloc(N, sizeof *specs);
	for (int i = 0; i < N; i++) {
		specs[i].index = i;
		specs[i].name = specs[i].label = (char *)names[i];
		specs[i].program = i;
	}
	stats_init(N);
	schedule_init();
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	grid_init(g, 3);
	g->cell[0] = 1;
	ok(schedule_presolver(g) == CP, "cp presolves 9x9");
	ok(specs[CP].presolver, "and is marked a presolver");
	grid_init(g, 5);
	for (int i = 0; i < g->cells / 2; i++)
		g->cell[i] = (uint8_t)(1 + i % 25);
	ok(schedule_presolver(g) == SAT, "sat presolves a 25x25 grid with givens");
	grid_init(g, 5);
	ok(schedule_presolver(g) == CP, "cp presolves a near-empty 25x25 grid");
	specs[CP].status = SPEC_DISABLED;
	schedule_forget();
	grid_init(g, 3);
	ok(schedule_presolver(g) == DLX, "without cp, dlx presolves 9x9");
	specs[CP].status = SPEC_OK;
	schedule_forget();

	ok(schedule_budget_ms(3) == 20, "the 9x9 budget starts at twice its floor (%g)", schedule_budget_ms(3));
	for (int i = 0; i < 16; i++)
		schedule_record(3, 0.1);
	ok(schedule_budget_ms(3) == 10, "fast solves bring it to its floor (%g)", schedule_budget_ms(3));
	for (int i = 0; i < 256; i++)
		schedule_record(3, 20);
	ok(schedule_budget_ms(3) == 80, "four times the 95th percentile (%g)", schedule_budget_ms(3));
	for (int i = 0; i < 256; i++)
		schedule_record(3, 1000);
	ok(schedule_budget_ms(3) == 250, "never above its ceiling (%g)", schedule_budget_ms(3));
	opt.budget_s = 0.5;
	ok(schedule_budget_ms(3) == 500, "--budget fixes it");
	opt.budget_s = 0;

	ok(schedule_joins(3, ACS), "every entry joins the first escalations");
	for (int i = 0; i < 8; i++)
		schedule_escalation_won(3, DLX);
	ok(schedule_joins(3, DLX) && !schedule_joins(3, ACS), "after eight, only those that won some");
	ok(schedule_joins(4, ACS), "per size");

	ok(schedule_confirmer_rank(3, CP) < schedule_confirmer_rank(3, DLX) &&
	       schedule_confirmer_rank(3, DLX) < schedule_confirmer_rank(3, SAT),
	   "confirmers of 9x9: cp, then dlx, then the others");
	return tap_done();
}
