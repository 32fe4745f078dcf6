/* --stats: what happened, on standard error at the end. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "racer.h"
#include "store.h"

void stats_report(double wall_ms)
{
	progress_before_output();
	FILE *f = stderr;
	fprintf(f, "%s: %ld puzzles in %.1f ms: %ld solved, %ld unsat, %ld with several solutions, "
		   "%ld unsolved, %ld timeouts, %ld invalid, %ld unsupported\n",
		PROGRAM, counts.puzzles, wall_ms, counts.solved, counts.unsat, counts.multiple, counts.unsolved,
		counts.timeouts, counts.invalid, counts.unsupported);
	if (cache_counts.hits || cache_counts.misses || cache_counts.bad || cache_counts.written ||
	    store_enabled()) {
		fprintf(f, "%s: cache: %ld hits, %ld misses, %ld bad entries dropped, %ld written\n", PROGRAM,
			cache_counts.hits, cache_counts.misses, cache_counts.bad, cache_counts.written);
		store_stats(f);
	} else
		fprintf(f, "%s: cache: not used\n", PROGRAM);
	char buf[600];
	int pos = 0;
	for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
		if (specs[i].started)
			pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s x%d", pos ? ", " : "",
					specs[i].label, specs[i].nstarted);
	fprintf(f, "%s: processes started: %s\n", PROGRAM, pos ? buf : "none");
	fprintf(f, "%s: schedule: %s; %ld puzzles answered by the presolver alone, %ld escalated, "
		   "%ld raced by all at once\n",
		PROGRAM, opt.schedule_all ? "all" : "staged", counts.first_only, counts.escalated,
		counts.all_at_once);
	if (counts.confirmed || counts.unconfirmed || counts.liars)
		fprintf(f, "%s: verdicts that need proof: %ld confirmed by a second program, %ld unconfirmed "
			   "(no other complete worker could confirm them), %ld lies caught\n",
			PROGRAM, counts.confirmed, counts.unconfirmed, counts.liars);
	if (counts.escalated) {
		pos = 0;
		for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
			if (specs[i].st.won_escalated)
				pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s %ld", pos ? ", " : "",
						specs[i].label, specs[i].st.won_escalated);
		fprintf(f, "%s: won after escalation: %s\n", PROGRAM, pos ? buf : "none");
	}
	schedule_describe(buf, sizeof buf);
	if (buf[0])
		fprintf(f, "%s: presolver budgets: %s\n", PROGRAM, buf);
	schedule_describe_benched(buf, sizeof buf);
	if (buf[0])
		fprintf(f, "%s: left out of escalations (no win in the first ones): %s\n", PROGRAM, buf);
	int w = 6;
	for (int i = 0; i < nspecs; i++)
		if ((int)strlen(specs[i].label) > w)
			w = (int)strlen(specs[i].label);
	fprintf(f, "%-*s %6s %6s %5s %6s %6s %6s %6s %9s %9s %5s %6s %9s %8s %8s  %s\n", w, "worker",
		"sent", "won", "late", "wrong", "unsat", "gaveup", "error", "cancelled", "malformed", "died",
		"killed", "respawned", "nohello", "win_ms", "status");
	for (int i = 0; i < nspecs; i++) {
		struct worker_spec *s = &specs[i];
		const struct spec_stats *t = &s->st;
		char status[200];
		if (s->status == SPEC_OK)
			snprintf(status, sizeof status, "%s",
				 s->hello_seen ? "ok"
				 : s->started  ? "starting (no hello before the end)"
					       : "not started (not needed)");
		else
			snprintf(status, sizeof status, "%s: %s",
				 s->status == SPEC_DISABLED ? "disabled" : "unavailable", s->why);
		fprintf(f, "%-*s %6ld %6ld %5ld %6ld %6ld %6ld %6ld %9ld %9ld %5ld %6ld %9ld %8ld %8.3f  %s\n",
			w, s->label, t->sent, t->won, t->late, t->wrong, t->unsat, t->gaveup, t->errors, t->cancelled,
			t->malformed, t->died, t->killed, t->respawns, t->hello_failures, t->won ? t->won_ms / (double)t->won : 0.0,
			status);
	}
}
