/* Unit tests: final messages, verification and the verdicts that need
 * proof (racer/verdict.c), on a portfolio made up here. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "protocol/message.h"
#include "racer/attempt.h"
#include "racer/puzzle.h"
#include "racer/stats.h"
#include "racer/verdict.h"
#include "racer/workers.h"
#include "tap.h"

static const char *easy =
	"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
static const char *easy_solution =
	"417369825632158947958724316825437169791586432346912758289643571573291684164875293";
/* the same puzzle with another solution's first row swapped: wrong */
static const char *wrong_solution =
	"471369825632158947958724316825437169791586432346912758289643571573291684164875293";

enum { CP, SAT, CP2, LIAR, ACS, N };
static int left_out = -1;
static char left_why[400];

static void leave_out(int spec, const char *why)
{
	left_out = spec;
	snprintf(left_why, sizeof left_why, "%s", why);
}

static void portfolio(void)
{
	static const char *const names[N] = {"cp", "sat", "cp", "liar", "acs"};
	static const int programs[N] = {0, 1, 0, 3, 4};
	nspecs = N;
	specs = calloc(N, sizeof *specs);
	for (int i = 0; i < N; i++) {
		struct worker_spec *s = &specs[i];
		s->index = i;
		s->name = (char *)names[i];
		s->label = (char *)names[i];
		s->program = programs[i];
		s->hello_seen = true;
		s->complete = i != ACS;
		s->min_box = 2;
		s->max_box = 8;
	}
	stats_init(N);
}

static struct puzzle *fresh(struct puzzle *pz, uint64_t seq)
{
	char err[GRID_ERR_MAX];
	struct notation nt;
	puzzle_init(pz, seq, NULL, N);
	pz->line = (long)seq;
	pz->grid = &pz->grid_room.grid;
	grid_parse(easy, strlen(easy), pz->grid, &nt, err, sizeof err);
	puzzle_enter(pz, PZ_WAITING);
	puzzle_enter(pz, PZ_FIRST);
	pz->first_spec = CP;
	return pz;
}

/* What entry spec says about pz: the message line, parsed. */
static struct step say(struct puzzle *pz, int spec, const char *line)
{
	static struct msg m;
	static struct msg_reply r;
	static char buf[512];
	char err[128];
	snprintf(buf, sizeof buf, "%s", line);
	if (msg_parse(buf, strlen(buf), &m, err, sizeof err) < 0 || msg_read_reply(&m, &r, err, sizeof err) != MSG_READ_OK) {
		printf("# bad test line: %s\n", err);
		exit(1);
	}
	struct attempt *a = pz->att[spec] ? pz->att[spec] : puzzle_set_outcome(pz, spec, OUT_SENT);
	a->outcome = OUT_SENT;
	return verdict_answer(pz, a, &r);
}

int main(void)
{
	static struct puzzle p1, p2, p3, p4, p5;
	char line[256];
	portfolio();
	verdict_init(leave_out, 0);

	struct puzzle *pz = fresh(&p1, 1);
	snprintf(line, sizeof line, "solution 1 %s ms=0.25", easy_solution);
	struct step st = say(pz, CP, line);
	ok(st.kind == STEP_DECIDED && st.v == V_SOLVED, "a verified solution decides the race");
	ok(pz->winner == CP && pz->att[CP]->outcome == OUT_WON && pz->solution, "its worker wins, its grid is kept");
	ok(pz->att[CP]->ms > 0.249 && pz->att[CP]->ms < 0.251, "the worker's ms= is kept (%g)", (double)pz->att[CP]->ms);

	pz = fresh(&p2, 2);
	snprintf(line, sizeof line, "solution 2 %s", wrong_solution);
	st = say(pz, CP, line);
	ok(st.kind == STEP_NOTED && pz->att[CP]->outcome == OUT_WRONG, "a wrong solution loses, the race goes on");
	ok(stats_spec_get(CP, SC_WRONG) == 1, "and is counted wrong");
	st = say(pz, ACS, "unsat 2");
	ok(st.kind == STEP_NOTED && pz->att[ACS]->outcome == OUT_WRONG, "unsat from a stochastic worker is wrong");
	st = say(pz, SAT, "gaveup 2 limit");
	ok(st.kind == STEP_NOTED && pz->att[SAT]->outcome == OUT_GAVEUP, "gaveup: gave up");
	say(pz, LIAR, "error 2 oops");
	ok(pz->att[LIAR]->outcome == OUT_ERROR && stats_spec_get(LIAR, SC_ERRORS) == 1, "error: an error");

	/* unsat needs a second program */
	pz = fresh(&p3, 3);
	st = say(pz, CP, "unsat 3");
	ok(st.kind == STEP_CONFIRM && st.confirmer == SAT, "unsat asks another program to confirm (%d)", st.confirmer);
	ok(pz->claims.n == 1 && (pz->claims.asked >> SAT & 1), "the claim is kept, the confirmer marked asked");
	st = say(pz, CP2, "unsat 3");
	ok(st.kind == STEP_NOTED, "the same program under another entry confirms nothing");
	st = say(pz, SAT, "unsat 3");
	ok(st.kind == STEP_DECIDED && st.v == V_UNSAT && pz->claims.confirmed, "a second program's unsat decides it");
	is_str(pz->claims.provers, "cp+sat", "and both proved it");
	ok(pz->winner == CP, "the first claimer wins");

	/* a lie: unsat, then a verified solution */
	pz = fresh(&p4, 4);
	st = say(pz, LIAR, "unsat 4");
	ok(st.kind == STEP_CONFIRM, "the liar's unsat asks for confirmation");
	snprintf(line, sizeof line, "solution 4 %s", easy_solution);
	st = say(pz, CP, line);
	ok(st.kind == STEP_DECIDED && st.v == V_SOLVED, "a verified solution still wins");
	ok(left_out == LIAR && strstr(left_why, "claimed no solution"), "the liar is left out (%s)", left_why);
	ok(pz->att[LIAR]->outcome == OUT_WRONG && stats_get(RC_LIARS) == 1, "its claim is a lie caught");
	ok(pz->claims.n == 0, "and its claim is gone");

	/* after the race: a late unsat against the solution is a lie too */
	puzzle_decide(pz, V_SOLVED);
	left_out = -1;
	specs[LIAR].warned_wrong = false;
	st = say(pz, SAT, "unsat 4");
	ok(st.kind == STEP_NOTED && left_out == SAT, "a late unsat against a verified solution: a liar");
	snprintf(line, sizeof line, "solution 4 %s", easy_solution);
	long late = stats_spec_get(CP2, SC_LATE);
	say(pz, CP2, line);
	ok(pz->att[CP2]->outcome == OUT_LATE && stats_spec_get(CP2, SC_LATE) == late + 1, "a late right answer: late");

	/* nobody left to confirm: the claim stands, unconfirmed */
	pz = fresh(&p5, 5);
	for (int i = 0; i < N; i++)
		if (i != CP)
			specs[i].status = SPEC_DISABLED;
	st = say(pz, CP, "unsat 5");
	ok(st.kind == STEP_DECIDED && st.v == V_UNSAT && !pz->claims.confirmed, "no confirmer: unsat, unconfirmed");
	ok(stats_get(RC_UNCONFIRMED) == 1, "counted unconfirmed");

	long before = stats_spec_get(SAT, SC_CANCELLED);
	verdict_gone(SAT, MSG_CANCELLED);
	ok(stats_spec_get(SAT, SC_CANCELLED) == before + 1, "a word about a puzzle gone is counted as the table says");
	return tap_done();
}
