/* A puzzle's life (puzzle.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "racer/attempt.h"
#include "racer/puzzle.h"
#include "racer/stats.h"
#include "racer/util.h"

#define BIT(s) (1u << (s))
static const unsigned allowed[] = {
	[PZ_FREE] = BIT(PZ_LOOKUP) | BIT(PZ_WAITING) | BIT(PZ_DONE),
	[PZ_LOOKUP] = BIT(PZ_WAITING) | BIT(PZ_DONE),
	[PZ_WAITING] = BIT(PZ_FIRST) | BIT(PZ_ALL),
	[PZ_FIRST] = BIT(PZ_WAITING) | BIT(PZ_ALL) | BIT(PZ_DONE),
	[PZ_ALL] = BIT(PZ_DONE),
	[PZ_DONE] = BIT(PZ_FREE),
};

void puzzle_enter(struct puzzle *pz, enum pz_state to)
{
	if (!(allowed[pz->state] & BIT(to)))
		die("internal error: puzzle %llu went from state %d to %d", (unsigned long long)pz->seq,
		    (int)pz->state, (int)to);
	pz->state = to;
	if (to == PZ_FIRST)
		pz->stage = STAGE_FIRST;
	else if (to == PZ_ALL)
		pz->stage = STAGE_ALL;
}

void puzzle_init(struct puzzle *pz, uint64_t seq, const char *input_name, int nspecs)
{
	pz->seq = seq;
	pz->state = PZ_FREE;
	pz->stage = STAGE_NONE;
	pz->escalated = pz->requeue = pz->overdue = pz->cache_hit = false;
	pz->timeout_reason = pz->marked = false;
	pz->lost = 0;
	pz->verdict = V_PENDING;
	pz->uniq = UNIQ_UNKNOWN;
	pz->input_name = input_name;
	pz->first_spec = pz->winner = -1;
	pz->winner_name[0] = '\0';
	pz->winner_ms = pz->race_ms = 0;
	pz->count = 0;
	pz->dispatch_ns = pz->start_ns = 0;
	pz->prev = pz->next = pz->next_marked = pz->next_again = NULL;
	pz->claims.n = 0;
	pz->claims.confirmed = false;
	pz->claims.asked = 0;
	pz->claims.awaiting = -1;
	pz->claims.provers[0] = '\0';
	pz->text[0] = '\0';
	pz->solution = NULL;
	memset(pz->att, 0, (size_t)nspecs * sizeof pz->att[0]);
}

void puzzle_take_item(struct puzzle *pz, const struct stream_item *item, bool invalid)
{
	pz->line = item->line;
	pz->notation = item->notation;
	pz->grid = &pz->grid_room.grid;
	if (invalid) {
		grid_init(pz->grid, 0);
		snprintf(pz->text, sizeof pz->text, "%s", item->error);
		return;
	}
	if (item->grid.cells > PUZZLE_SMALL_CELLS)
		pz->grid = grid_dup(&item->grid);
	else
		grid_copy(pz->grid, &item->grid);
}

void puzzle_decide(struct puzzle *pz, enum verdict v)
{
	pz->verdict = v;
	puzzle_enter(pz, PZ_DONE);
	stats_verdict(v, pz->cache_hit);
}

bool puzzle_givens_clash(struct puzzle *pz)
{
	char err[GRID_ERR_MAX];
	if (grid_check_givens(pz->grid, err, sizeof err) == 0)
		return false;
	snprintf(pz->text, sizeof pz->text, "line %ld: %s", pz->line, err);
	return true;
}

void puzzle_keep_solution(struct puzzle *pz, const uint8_t *cells)
{
	size_t n = (size_t)pz->grid->cells;
	pz->solution = n <= sizeof pz->solution_small ? pz->solution_small : xmalloc(n);
	memcpy(pz->solution, cells, n);
}

void puzzle_release(struct puzzle *pz)
{
	if (pz->solution != pz->solution_small)
		free(pz->solution);
	pz->solution = NULL;
	if (pz->grid != &pz->grid_room.grid)
		free(pz->grid);
	pz->grid = NULL;
	msg_solve_record_clear(&pz->solve);
	if (pz->timeout_ev) {
		event_free(pz->timeout_ev);
		pz->timeout_ev = NULL;
	}
	pz->state = PZ_FREE;
}

const char *puzzle_where(const struct puzzle *pz, char *buf, size_t size)
{
	if (!pz->input_name)
		return "";
	snprintf(buf, size, "%s: ", pz->input_name);
	return buf;
}

enum outcome puzzle_outcome(const struct puzzle *pz, int spec)
{
	return pz->att[spec] ? (enum outcome)pz->att[spec]->outcome : OUT_NONE;
}

struct attempt *puzzle_set_outcome(struct puzzle *pz, int spec, enum outcome o)
{
	struct attempt *a = pz->att[spec];
	if (!a)
		a = pz->att[spec] = attempt_new(pz, pz->seq, spec);
	a->outcome = (uint8_t)o;
	return a;
}
