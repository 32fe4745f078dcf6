/* What a worker's final message means for its puzzle's race: one table
 * from message to outcome, for a race still on and for one decided
 * already (a late answer), the verification of solutions, and the
 * verdicts that need proof.
 *
 * A solution proves itself (it is verified against the rules and the
 * givens). "No solution" and a count do not: such a claim is final only
 * when a complete worker of another program makes the same one
 * (PROTOCOL.md 7). A claim that a verified solution disproves, or a
 * "unique" beside a different verified solution, is a lie: its entry is
 * left out for the rest of the run. Two claims that disagree with no
 * proof either way ask a third program.
 *
 * These functions change the puzzle's record and say what the race does
 * next; they start, send and end nothing themselves. */
#ifndef RACER_VERDICT_H
#define RACER_VERDICT_H

#include <stdbool.h>

#include "protocol/message.h"
#include "racer/outcome.h"

struct attempt;
struct grid;
struct puzzle;

enum step_kind {
	STEP_NOTED,     /* the attempt's outcome is set: look at the race again */
	STEP_DECIDED,   /* the race is decided: end it with .v (winner set) */
	STEP_CONFIRM,   /* a claim needs a second program: ask entry .confirmer */
	STEP_TAKEN_BACK, /* the presolver's cancel of a taken-back puzzle came */
};

struct step {
	enum step_kind kind;
	enum verdict v;
	int confirmer;
};

/* leave_out(spec, why): an entry was caught lying; the race leaves it out
 * once the message being handled is done with. count: --count's K (0:
 * none). */
void verdict_init(void (*leave_out)(int spec, const char *why), long count);

/* A final message r about attempt a of puzzle pz (racing, or decided and
 * not yet written). */
struct step verdict_answer(struct puzzle *pz, struct attempt *a, const struct msg_reply *r);

/* Nobody is left racing pz and it holds claims: the next program to ask,
 * or (none left) the first claim stands, unconfirmed. */
struct step verdict_settle_claims(struct puzzle *pz);

/* An entry that may confirm pz's claims (-1: none): complete (or not
 * started yet), of a program none of the claimers is, taking this size,
 * not asked yet; one that races the puzzle already comes first. */
int verdict_confirmer(const struct puzzle *pz);

/* A final message of entry spec about a puzzle already written: counted
 * as the table says. */
void verdict_gone(int spec, enum msg_type t);

#endif
