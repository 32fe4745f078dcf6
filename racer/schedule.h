/* The staged race's policy (docs/racer.md, "The schedule"): which entry gets a
 * puzzle first and alone (the presolver of its size), for how long before
 * the rest of the portfolio joins (the budget, learned from the run's own
 * solve times), which entries keep joining the escalations, and which one
 * confirms a claim first. */
#ifndef RACER_SCHEDULE_H
#define RACER_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>

struct grid;

void schedule_init(void);
/* The entry that gets this puzzle first and alone, by its size (-1: none,
 * every entry races at once). */
int schedule_presolver(const struct grid *g);
/* An entry's status or hello changed: the presolvers are looked up again. */
void schedule_forget(void);
/* How long the presolver has on a puzzle of this size before the rest of
 * the portfolio joins, in ms. */
double schedule_budget_ms(int box);
/* A presolver's solve time (its own ms=) for a puzzle of this size. */
void schedule_record(int box, double ms);
/* An escalated race of this size was won by this entry. */
void schedule_escalation_won(int box, int spec);
/* Does this entry join the escalated races of this size? (Every entry
 * does until a few were won; then those that won any.) */
bool schedule_joins(int box, int spec);
/* Which complete entry is asked first to confirm a claim on a grid of this
 * size: the lowest rank. */
int schedule_confirmer_rank(int box, int spec);
/* For --stats: the budgets in use; the entries left out of escalations. */
void schedule_describe(char *buf, size_t size);
void schedule_describe_benched(char *buf, size_t size);

#endif
