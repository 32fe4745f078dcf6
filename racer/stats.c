/* --stats: what happened, on standard error at the end, within 80 columns:
 * summary lines (wrapped, continued under their text), then three tables
 * per worker entry: its requests (the columns after "sent" partition it:
 * every request sent ends as exactly one of them), its processes, and its
 * status (wrapped at words). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "racer.h"
#include "store.h"

#define WIDTH 80
#define MAX_COLUMNS 10

/* "sudoku-race: TEXT", wrapped under the text's first column. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	int at = (int)strlen(PROGRAM ": ");
	fprintf(stderr, "%s: ", PROGRAM);
	print_wrapped(stderr, text, (struct wrap){.at = at, .indent = at, .clauses = true});
}

int label_width(const char *heading, int most)
{
	int w = (int)strlen(heading);
	for (int i = 0; i < nspecs; i++)
		if ((int)strlen(specs[i].label) > w)
			w = (int)strlen(specs[i].label);
	return w < most ? w : most;
}

/* A table of numbers, a row per entry, its first column the entries'
 * labels: as wide as the widest label when that fits in 80 columns; a
 * label wider than that has a line of its own, its figures on the next. */
struct table {
	int ncols;
	const char *name[MAX_COLUMNS];
	char cell[MAX_SPECS][MAX_COLUMNS][24];
};

static void print_table(FILE *f, const struct table *t)
{
	int width[MAX_COLUMNS], figures = 0;
	for (int c = 0; c < t->ncols; c++) {
		width[c] = (int)strlen(t->name[c]);
		for (int i = 0; i < nspecs; i++)
			if ((int)strlen(t->cell[i][c]) > width[c])
				width[c] = (int)strlen(t->cell[i][c]);
		figures += 1 + width[c];
	}
	int label = label_width("worker", WIDTH - figures > 6 ? WIDTH - figures : 6);
	fprintf(f, "%-*s", label, "worker");
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, " %*s", width[c], t->name[c]);
	fputc('\n', f);
	for (int i = 0; i < nspecs; i++) {
		if ((int)strlen(specs[i].label) > label)
			fprintf(f, "%s\n%-*s", specs[i].label, label, "");
		else
			fprintf(f, "%-*s", label, specs[i].label);
		for (int c = 0; c < t->ncols; c++)
			fprintf(f, " %*s", width[c], t->cell[i][c]);
		fputc('\n', f);
	}
}

static void set_columns(struct table *t, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	t->ncols = n;
	for (int c = 0; c < n; c++)
		t->name[c] = va_arg(ap, const char *);
	va_end(ap);
}

static void requests_table(FILE *f)
{
	static struct table t;
	set_columns(&t, 9, "sent", "won", "late", "cancelled", "gaveup", "wrong", "error", "lost", "open");
	for (int i = 0; i < nspecs; i++) {
		const struct spec_stats *s = &specs[i].st;
		const long v[] = {s->sent,   s->won,	s->late, s->cancelled, s->gaveup,
				  s->wrong, s->errors, s->lost, s->open};
		for (int c = 0; c < t.ncols; c++)
			snprintf(t.cell[i][c], sizeof t.cell[i][c], "%ld", v[c]);
	}
	fprintf(f, "\nRequests: sent = won + late + cancelled + gaveup + wrong + error + lost + open\n"
		   "(late: answered after the race was decided; lost: its process ended or was\n"
		   "restarted with it in flight; open: in flight when the run ended)\n");
	print_table(f, &t);
}

static void processes_table(FILE *f)
{
	static struct table t;
	set_columns(&t, 8, "started", "respawned", "died", "killed", "malformed", "refused", "nohello",
		    "win_ms");
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *w = &specs[i];
		const struct spec_stats *s = &w->st;
		const long v[] = {w->nstarted, s->respawns, s->died, s->killed, s->malformed, s->refused,
				  s->hello_failures};
		for (int c = 0; c < 7; c++)
			snprintf(t.cell[i][c], sizeof t.cell[i][c], "%ld", v[c]);
		snprintf(t.cell[i][7], sizeof t.cell[i][7], "%.3f", s->won ? s->won_ms / (double)s->won : 0.0);
	}
	fprintf(f, "\nProcesses (malformed: lines that broke the protocol; refused: our lines it\n"
		   "could not read; nohello: ended before its hello; win_ms: its mean time on a win)\n");
	print_table(f, &t);
}

static void status_table(FILE *f)
{
	int label = label_width("worker", 30);
	fprintf(f, "\n%-*s status\n", label, "worker");
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		char status[400];
		if (s->status == SPEC_OK)
			snprintf(status, sizeof status, "%s",
				 s->hello_seen ? "ok"
				 : s->started  ? "starting (no hello before the end)"
					       : "not started (not needed)");
		else
			snprintf(status, sizeof status, "%s: %s",
				 s->status == SPEC_DISABLED ? "disabled" : "unavailable", s->why);
		if ((int)strlen(s->label) > label)
			fprintf(f, "%s\n%-*s ", s->label, label, "");
		else
			fprintf(f, "%-*s ", label, s->label);
		print_wrapped(f, status, (struct wrap){.at = label + 1, .indent = label + 1, .clauses = true});
	}
}

void stats_report(double wall_ms)
{
	progress_before_output();
	FILE *f = stderr;
	say("%ld puzzles in %.1f ms: %ld solved, %ld unsat, %ld with several solutions, %ld unsolved, "
	    "%ld timeouts, %ld invalid, %ld unsupported",
	    counts.puzzles, wall_ms, counts.solved, counts.unsat, counts.multiple, counts.unsolved,
	    counts.timeouts, counts.invalid, counts.unsupported);
	if (cache_counts.hits || cache_counts.misses || cache_counts.bad || cache_counts.written ||
	    store_enabled()) {
		say("cache: %ld hits, %ld misses, %ld bad entries dropped, %ld written", cache_counts.hits,
		    cache_counts.misses, cache_counts.bad, cache_counts.written);
		store_stats(f);
	} else
		say("cache: not used");
	char buf[4096];
	int pos = 0;
	for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
		if (specs[i].started)
			pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s x%d", pos ? ", " : "",
					specs[i].label, specs[i].nstarted);
	say("processes started: %s", pos ? buf : "none");
	say("schedule: %s; %ld puzzles answered by the presolver alone, %ld escalated, %ld raced by all at "
	    "once",
	    opt.schedule_all ? "all" : "staged", counts.first_only, counts.escalated, counts.all_at_once);
	if (counts.confirmed || counts.unconfirmed || counts.liars)
		say("verdicts confirmed: %ld by a second program, %ld not, %ld lies caught",
		    counts.confirmed, counts.unconfirmed, counts.liars);
	if (counts.escalated) {
		pos = 0;
		for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
			if (specs[i].st.won_escalated)
				pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s %ld", pos ? ", " : "",
						specs[i].label, specs[i].st.won_escalated);
		say("won after escalation: %s", pos ? buf : "none");
	}
	schedule_describe(buf, sizeof buf);
	if (buf[0])
		say("presolver budgets: %s", buf);
	schedule_describe_benched(buf, sizeof buf);
	if (buf[0])
		say("left out of escalations (no win in the first ones): %s", buf);
	requests_table(f);
	processes_table(f);
	status_table(f);
}
