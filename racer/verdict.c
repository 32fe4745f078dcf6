/* Final messages, verification and the verdicts that need proof
 * (verdict.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/bulk.h"
#include "racer/attempt.h"
#include "racer/puzzle.h"
#include "racer/schedule.h"
#include "racer/stats.h"
#include "racer/util.h"
#include "racer/verdict.h"
#include "racer/workers.h"

static void (*leave_out)(int spec, const char *why);
static long count_limit;

void verdict_init(void (*fn)(int spec, const char *why), long count)
{
	leave_out = fn;
	count_limit = count;
}

/* --- the table --- */

/* What a final message makes of its attempt, in a race still on and in
 * one decided already, before its claim is looked at (racing() and late()
 * verify a grid, weigh a verdict that needs proof). */
static const struct rule {
	uint8_t racing, decided;
} rules[] = {
	[MSG_SOLUTION] = {OUT_WON, OUT_LATE},
	[MSG_COUNT] = {OUT_COUNTED, OUT_LATE},
	[MSG_UNSAT] = {OUT_UNSAT, OUT_LATE},
	[MSG_GAVEUP] = {OUT_GAVEUP, OUT_GAVEUP},
	[MSG_CANCELLED] = {OUT_CANCELLED, OUT_CANCELLED},
	[MSG_ERROR] = {OUT_ERROR, OUT_ERROR},
};

static enum outcome rule_of(enum msg_type t, bool decided)
{
	if ((size_t)t >= sizeof rules / sizeof rules[0] || !rules[t].racing)
		return OUT_ERROR; /* a message that does not answer a solve */
	return (enum outcome)(decided ? rules[t].decided : rules[t].racing);
}

/* The request counter an outcome ends in (--stats); a win is counted with
 * the race's end. */
static enum spec_counter counter_of(enum outcome o)
{
	switch (o) {
	case OUT_LATE:
	case OUT_UNSAT:
	case OUT_COUNTED:
		return SC_LATE;
	case OUT_CANCELLED:
		return SC_CANCELLED;
	case OUT_GAVEUP:
		return SC_GAVEUP;
	case OUT_WRONG:
		return SC_WRONG;
	default:
		return SC_ERRORS;
	}
}

void verdict_gone(int spec, enum msg_type t)
{
	stats_spec_add(spec, counter_of(rule_of(t, true)), 1);
}

/* --- verification --- */

/* Reads and verifies an answer's grid; a wrong one costs the worker this
 * race (warned about once per entry). */
static bool verified(const struct puzzle *pz, struct worker_spec *s, const struct msg_reply *m, struct grid *sol)
{
	char why[GRID_ERR_MAX];
	struct notation nt;
	const char *text = m->grid;
	size_t len = m->grid_len;
	bool read;
	if (m->cells) {
		read = bulk_cells_grid(m, pz->grid->box, sol) == 0;
		if (!read)
			snprintf(why, sizeof why, "a frame's cells of side %d, or over it", m->cells_side);
	} else {
		read = text && (msg_parse_grid(text, len, pz->grid->box, sol) == 0 ||
				/* not the protocol's form of this size: the
				 * general reader, which says why */
				grid_parse(text, len, sol, &nt, why, sizeof why) == 0);
	}
	if (read && grid_verify(pz->grid, sol, why, sizeof why))
		return true;
	stats_spec_add(s->index, SC_WRONG, 1);
	if (!s->warned_wrong) {
		char where[PUZZLE_WHERE_MAX];
		s->warned_wrong = true;
		warn("worker %s sent a wrong answer for %sline %ld (%s); it loses that race", s->label,
		     puzzle_where(pz, where, sizeof where), pz->line, text || m->cells ? why : "no grid");
	}
	return false;
}

/* A puzzle without a solution whose givens clash: the racer's own proof. */
static bool givens_clash(const struct puzzle *pz)
{
	char err[GRID_ERR_MAX];
	return grid_check_givens(pz->grid, err, sizeof err) != 0;
}

/* --- claims --- */

static void drop_claims_of(struct claims *c, int spec)
{
	for (int k = 0; k < c->n;)
		if (c->spec[k] == spec) {
			c->n--;
			c->spec[k] = c->spec[c->n];
			c->verdict[k] = c->verdict[c->n];
			c->count[k] = c->count[c->n];
		} else {
			k++;
		}
}

/* A worker caught lying: out of this race now, and out of the portfolio
 * once the message being handled is done with. */
static void caught_lying(struct puzzle *pz, int liar, const char *claim, int witness)
{
	struct worker_spec *s = &specs[liar];
	puzzle_set_outcome(pz, liar, OUT_WRONG);
	stats_spec_add(liar, SC_WRONG, 1);
	stats_add(RC_LIARS, 1);
	drop_claims_of(&pz->claims, liar);
	if (s->status != SPEC_OK || s->warned_wrong)
		return;
	s->warned_wrong = true;
	char where[PUZZLE_WHERE_MAX], why[sizeof s->why];
	const char *by = witness >= 0 ? specs[witness].label : "two different verified solutions";
	warn("worker %s: claimed %s for %sline %ld, disproved by %s; left out from now on", s->label, claim,
	     puzzle_where(pz, where, sizeof where), pz->line, by);
	snprintf(why, sizeof why, "claimed %s for line %ld, disproved by %.40s", claim, pz->line, by);
	leave_out(liar, why);
}

/* The claims of verdict v on the table are lies (a verified solution, or
 * two different ones, disprove them). Returns whether by (a claimer) was
 * one of them. */
static bool claims_disproved(struct puzzle *pz, enum verdict v, const char *claim, int witness, int by)
{
	bool caught_by = false;
	struct claims *c = &pz->claims;
	for (int k = 0; k < c->n;)
		if (c->verdict[k] == v) {
			caught_by |= c->spec[k] == by;
			caught_lying(pz, c->spec[k], claim, witness); /* drops claim k */
		} else {
			k++;
		}
	return caught_by;
}

static struct step decided(enum verdict v)
{
	return (struct step){.kind = STEP_DECIDED, .v = v, .confirmer = -1};
}

static struct step noted(void)
{
	return (struct step){.kind = STEP_NOTED, .confirmer = -1};
}

/* The race ends on a claim of who's, confirmed by a second program or not. */
static struct step end_claimed(struct puzzle *pz, int who, enum verdict v, bool confirmed)
{
	struct claims *c = &pz->claims;
	for (int k = 0; k < c->n; k++)
		if (c->spec[k] != who)
			stats_spec_add(c->spec[k], SC_LATE, 1);
	for (int k = 0; k < c->n; k++)
		if (c->spec[k] == who)
			pz->count = c->count[k];
	c->confirmed = confirmed;
	stats_add(confirmed ? RC_CONFIRMED : RC_UNCONFIRMED, 1);
	pz->winner = who;
	pz->winner_ms = pz->att[who] ? pz->att[who]->ms : 0;
	puzzle_set_outcome(pz, who, v == V_UNSAT ? OUT_UNSAT : OUT_COUNTED);
	if (v != V_UNSAT)
		pz->uniq = v == V_MULTIPLE ? UNIQ_MULTIPLE : UNIQ_UNIQUE;
	return decided(v);
}

int verdict_confirmer(const struct puzzle *pz)
{
	int best = -1, box = pz->grid->box;
	const struct claims *c = &pz->claims;
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		if (s->status != SPEC_OK || (c->asked >> i & 1) ||
		    (s->hello_seen && (!s->complete || !workers_takes(s, box, count_limit > 0))))
			continue;
		bool other = true;
		for (int k = 0; k < c->n; k++)
			other &= !workers_same_program(i, c->spec[k]);
		if (!other)
			continue;
		enum outcome o = puzzle_outcome(pz, i);
		if (o == OUT_SENT)
			return i;
		if ((o == OUT_NONE || o == OUT_SKIPPED) &&
		    (best < 0 || schedule_confirmer_rank(box, i) < schedule_confirmer_rank(box, best)))
			best = i;
	}
	return best;
}

struct step verdict_settle_claims(struct puzzle *pz)
{
	int c = verdict_confirmer(pz);
	if (c < 0)
		return end_claimed(pz, pz->claims.spec[0], (enum verdict)pz->claims.verdict[0], false);
	pz->claims.asked |= 1u << c;
	return (struct step){.kind = STEP_CONFIRM, .confirmer = c};
}

/* A complete worker's claim: v is V_UNSAT, or (--count) V_SOLVED for one
 * solution or V_MULTIPLE, with sol verified. */
static struct step claim(struct puzzle *pz, int who, enum verdict v, const struct grid *sol, long count)
{
	struct claims *c = &pz->claims;
	const char *name = specs[who].name;
	puzzle_set_outcome(pz, who, v == V_UNSAT ? OUT_UNSAT : OUT_COUNTED);
	if (v == V_UNSAT) {
		if (givens_clash(pz)) {
			snprintf(c->provers, sizeof c->provers, "%s", name);
			return end_claimed(pz, who, V_UNSAT, true);
		}
		if (pz->solution) {
			caught_lying(pz, who, "no solution", pz->winner);
			return noted();
		}
	} else {
		claims_disproved(pz, V_UNSAT, "no solution", who, -1);
		if (pz->solution && memcmp(pz->solution, sol->cell, (size_t)pz->grid->cells) != 0) {
			/* two different solutions: more than one, proved here;
			 * whoever said "one" lied */
			int by = v == V_MULTIPLE ? who : pz->winner;
			snprintf(c->provers, sizeof c->provers, "%s+%s", specs[pz->winner].name, name);
			if (v == V_SOLVED)
				caught_lying(pz, who, "a unique solution", -1);
			else if (by != who)
				stats_spec_add(who, SC_LATE, 1);
			if (claims_disproved(pz, V_SOLVED, "a unique solution", -1, by))
				by = who;
			pz->count = v == V_MULTIPLE ? count : 2;
			return end_claimed(pz, by, V_MULTIPLE, true);
		}
		if (!pz->solution) {
			puzzle_keep_solution(pz, sol->cell);
			pz->winner = who; /* whose solution it is */
		}
	}
	for (int k = 0; k < c->n; k++)
		if (workers_same_program(c->spec[k], who)) {
			stats_spec_add(who, SC_LATE, 1);
			return noted(); /* the same program again proves nothing */
		}
	for (int k = 0; k < c->n; k++)
		if (c->verdict[k] == v && c->count[k] == count) {
			snprintf(c->provers, sizeof c->provers, "%s+%s", specs[c->spec[k]].name, name);
			stats_spec_add(who, SC_LATE, 1);
			return end_claimed(pz, c->spec[k], v, true);
		}
	if (c->n < MAX_CLAIMS) {
		c->spec[c->n] = (int8_t)who;
		c->count[c->n] = count;
		c->verdict[c->n++] = (uint8_t)v;
	}
	return verdict_settle_claims(pz);
}

/* A message about a race still on. */
static struct step racing(struct puzzle *pz, struct attempt *a, const struct msg_reply *m, enum outcome o)
{
	struct worker_spec *s = &specs[a->spec];
	union grid_room sol_room;
	struct grid *sol = &sol_room.grid;
	switch (m->type) {
	case MSG_SOLUTION:
		if (count_limit) {
			/* a solution does not answer count=K */
			o = OUT_ERROR;
			break;
		}
		if (!verified(pz, s, m, sol)) {
			a->outcome = OUT_WRONG;
			return noted();
		}
		claims_disproved(pz, V_UNSAT, "no solution", s->index, -1);
		a->outcome = OUT_WON;
		pz->winner = s->index;
		pz->winner_ms = a->ms;
		pz->uniq = UNIQ_UNKNOWN;
		puzzle_keep_solution(pz, sol->cell);
		return decided(V_SOLVED);
	case MSG_COUNT: {
		long k = m->count;
		if (!count_limit || !s->complete) {
			o = OUT_ERROR;
			break;
		}
		if (k == 0)
			return claim(pz, s->index, V_UNSAT, NULL, 0);
		if (!verified(pz, s, m, sol)) {
			a->outcome = OUT_WRONG;
			return noted();
		}
		return claim(pz, s->index, k == 1 ? V_SOLVED : V_MULTIPLE, sol, k < count_limit ? k : count_limit);
	}
	case MSG_UNSAT:
		if (!s->complete) {
			/* only a complete worker can prove it */
			o = OUT_WRONG;
			break;
		}
		return claim(pz, s->index, V_UNSAT, NULL, 0);
	case MSG_GAVEUP:
		if (m->reason && strcmp(m->reason, "timeout") == 0)
			pz->timeout_reason = true;
		break;
	default:
		break;
	}
	a->outcome = (uint8_t)o;
	stats_spec_add(s->index, counter_of(o), 1);
	return noted();
}

/* A message about a race decided already (its answer not yet written). */
static struct step late(struct puzzle *pz, struct attempt *a, const struct msg_reply *m, enum outcome o)
{
	struct worker_spec *s = &specs[a->spec];
	union grid_room sol_room;
	struct grid *sol = &sol_room.grid;
	bool solved = pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE;
	if (m->type == MSG_SOLUTION && !verified(pz, s, m, sol)) {
		a->outcome = OUT_WRONG;
		return noted();
	}
	if (m->type == MSG_UNSAT && solved) {
		if (s->complete) {
			caught_lying(pz, s->index, "no solution", pz->winner);
			return noted();
		}
		o = OUT_WRONG;
	} else if (m->type == MSG_UNSAT) {
		o = OUT_UNSAT;
	}
	a->outcome = (uint8_t)o;
	stats_spec_add(s->index, counter_of(o), 1);
	return noted();
}

/* A worker's first error answer is named, with its own words: else a user
 * sees only "# unsolved" and a count in --stats. The words hold no C0
 * control character (the codec refuses them); the C1 ones, as UTF-8 writes
 * them (a terminal may act on U+009B as on ESC [), are shown as '?', and
 * the length is bounded here. */
static void warn_error(const struct puzzle *pz, struct worker_spec *s, const struct msg_reply *m)
{
	if (s->warned_error)
		return;
	s->warned_error = true;
	char text[160] = "", where[PUZZLE_WHERE_MAX];
	size_t len = 0;
	for (int i = 0; i < m->nwords && len + 1 < sizeof text; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i ? " " : "", m->words[i]);
	for (size_t i = 0; text[i] && text[i + 1]; i++)
		if ((unsigned char)text[i] == 0xc2 && (unsigned char)text[i + 1] >= 0x80 &&
		    (unsigned char)text[i + 1] <= 0x9f)
			text[i] = text[i + 1] = '?';
	warn("worker %s answered %sline %ld with an error: %s", s->label, puzzle_where(pz, where, sizeof where),
	     pz->line, m->nwords ? text : "(no text)");
}

struct step verdict_answer(struct puzzle *pz, struct attempt *a, const struct msg_reply *m)
{
	if (m->type == MSG_ERROR)
		warn_error(pz, &specs[a->spec], m);
	if (m->type == MSG_CANCELLED && pz->state == PZ_FIRST && pz->requeue && a->spec == pz->first_spec) {
		stats_spec_add(a->spec, SC_CANCELLED, 1);
		return (struct step){.kind = STEP_TAKEN_BACK, .confirmer = -1};
	}
	a->ms = (float)m->ms;
	bool done = !puzzle_racing(pz);
	enum outcome o = rule_of(m->type, done);
	return done ? late(pz, a, m, o) : racing(pz, a, m, o);
}
