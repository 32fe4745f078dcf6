/* --stats (report.h): what happened, on standard error at the end, within 80 columns:
 * summary lines (wrapped, continued under their text), then three tables
 * per worker entry: its requests (the columns after "sent" partition it:
 * every request sent ends as exactly one of them), its processes, and its
 * status (wrapped at words). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "racer/jsonw.h"
#include "racer/options.h"
#include "racer/pool.h"
#include "racer/progress.h"
#include "racer/report.h"
#include "racer/schedule.h"
#include "racer/stats.h"
#include "racer/store.h"
#include "racer/util.h"
#include "racer/workers.h"

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
	racer_wrapped(stderr, text, at, at);
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
	int label = workers_label_width("worker", WIDTH - figures > 6 ? WIDTH - figures : 6);
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
		static const enum spec_counter col[] = {SC_SENT,   SC_WON,    SC_LATE, SC_CANCELLED, SC_GAVEUP,
							SC_WRONG, SC_ERRORS, SC_LOST, SC_OPEN};
		long v[sizeof col / sizeof col[0]];
		for (size_t c = 0; c < sizeof col / sizeof col[0]; c++)
			v[c] = stats_spec_get(i, col[c]);
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
		const long v[] = {pool_spec_nstarted(i),	 stats_spec_get(i, SC_RESPAWNS),
				  stats_spec_get(i, SC_DIED),	 stats_spec_get(i, SC_KILLED),
				  stats_spec_get(i, SC_MALFORMED), stats_spec_get(i, SC_REFUSED),
				  stats_spec_get(i, SC_HELLO_FAILURES)};
		for (int c = 0; c < 7; c++)
			snprintf(t.cell[i][c], sizeof t.cell[i][c], "%ld", v[c]);
		snprintf(t.cell[i][7], sizeof t.cell[i][7], "%.3f", stats_won_ms(i));
	}
	fprintf(f, "\nProcesses (malformed: lines that broke the protocol; refused: our lines it\n"
		   "could not read; nohello: ended before its hello; win_ms: its mean time on a win)\n");
	print_table(f, &t);
}

static void status_of(int i, char *buf, size_t size);

static void status_table(FILE *f)
{
	int label = workers_label_width("worker", 30);
	fprintf(f, "\n%-*s status\n", label, "worker");
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		char status[400];
		status_of(i, status, sizeof status);
		if ((int)strlen(s->label) > label)
			fprintf(f, "%s\n%-*s ", s->label, label, "");
		else
			fprintf(f, "%-*s ", label, s->label);
		racer_wrapped(f, status, label + 1, label + 1);
	}
}

/* An entry's status, as the table says it. */
static void status_of(int i, char *buf, size_t size)
{
	const struct worker_spec *s = &specs[i];
	if (s->status == SPEC_OK)
		snprintf(buf, size, "%s",
			 s->hello_seen ? "ok" : pool_spec_started(i) ? "starting (no hello before the end)"
								    : "not started (not needed)");
	else
		snprintf(buf, size, "%s: %s", s->status == SPEC_DISABLED ? "disabled" : "unavailable", s->why);
}

/* Did the run use a cache (the text and the JSON report say so alike)? */
static bool cache_used(void)
{
	return store_enabled() || stats_cache_get(CC_HITS) || stats_cache_get(CC_MISSES) ||
	       stats_cache_get(CC_BAD) || stats_cache_get(CC_WRITTEN);
}

/* --stats --json: the same figures as one JSON object on a line. */
static void json_report(double wall_ms)
{
	static const struct {
		const char *key;
		enum race_counter c;
	} race[] = {
		{"puzzles", RC_PUZZLES},     {"solved", RC_SOLVED},	  {"unsat", RC_UNSAT},
		{"multiple", RC_MULTIPLE},   {"unsolved", RC_UNSOLVED},   {"timeouts", RC_TIMEOUTS},
		{"invalid", RC_INVALID},     {"unsupported", RC_UNSUPPORTED}, {"cache_hits", RC_CACHE_HITS},
		{"presolver_alone", RC_FIRST_ONLY}, {"escalated", RC_ESCALATED}, {"all_at_once", RC_ALL_AT_ONCE},
		{"confirmed", RC_CONFIRMED}, {"unconfirmed", RC_UNCONFIRMED}, {"liars", RC_LIARS},
	};
	static const struct {
		const char *key;
		enum spec_counter c;
	} spec[] = {
		{"sent", SC_SENT},	   {"won", SC_WON},	      {"late", SC_LATE},
		{"cancelled", SC_CANCELLED}, {"gaveup", SC_GAVEUP},     {"wrong", SC_WRONG},
		{"error", SC_ERRORS},	   {"lost", SC_LOST},	      {"open", SC_OPEN},
		{"respawned", SC_RESPAWNS}, {"died", SC_DIED},	      {"killed", SC_KILLED},
		{"malformed", SC_MALFORMED}, {"refused", SC_REFUSED}, {"nohello", SC_HELLO_FAILURES},
		{"won_escalated", SC_WON_ESCALATED},
	};
	static const struct {
		const char *key;
		enum cache_counter c;
	} cache[] = {
		{"hits", CC_HITS}, {"misses", CC_MISSES}, {"bad", CC_BAD}, {"written", CC_WRITTEN},
		{"evicted", CC_EVICTED}, {"dropped", CC_DROPPED},
	};
	struct jsonw w = {0};
	char text[400];
	jsonw_begin(&w, '{');
	jsonw_key(&w, "ms");
	jsonw_double(&w, wall_ms, 1);
	for (size_t i = 0; i < sizeof race / sizeof race[0]; i++) {
		jsonw_key(&w, race[i].key);
		jsonw_long(&w, stats_get(race[i].c));
	}
	jsonw_key(&w, "schedule");
	jsonw_str(&w, opt.schedule_all ? "all" : "staged");
	jsonw_key(&w, "cache");
	if (cache_used()) {
		jsonw_begin(&w, '{');
		for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++) {
			jsonw_key(&w, cache[i].key);
			jsonw_long(&w, stats_cache_get(cache[i].c));
		}
		jsonw_end(&w, '}');
	} else {
		jsonw_str(&w, NULL);
	}
	jsonw_key(&w, "workers");
	jsonw_begin(&w, '[');
	for (int i = 0; i < nspecs; i++) {
		jsonw_begin(&w, '{');
		jsonw_key(&w, "worker");
		jsonw_str(&w, specs[i].label);
		jsonw_key(&w, "started");
		jsonw_long(&w, pool_spec_nstarted(i));
		for (size_t k = 0; k < sizeof spec / sizeof spec[0]; k++) {
			jsonw_key(&w, spec[k].key);
			jsonw_long(&w, stats_spec_get(i, spec[k].c));
		}
		jsonw_key(&w, "win_ms");
		jsonw_double(&w, stats_won_ms(i), 3);
		status_of(i, text, sizeof text);
		jsonw_key(&w, "status");
		jsonw_str(&w, text);
		jsonw_end(&w, '}');
	}
	jsonw_end(&w, ']');
	jsonw_end(&w, '}');
	jsonw_flush(&w, stderr);
	jsonw_free(&w);
}

void report_stats(double wall_ms)
{
	progress_before_output();
	if (opt.stats_json) {
		json_report(wall_ms);
		return;
	}
	FILE *f = stderr;
	say("%ld puzzles in %.1f ms: %ld solved, %ld unsat, %ld with several solutions, %ld unsolved, "
	    "%ld timeouts, %ld invalid, %ld unsupported",
	    stats_get(RC_PUZZLES), wall_ms, stats_get(RC_SOLVED), stats_get(RC_UNSAT), stats_get(RC_MULTIPLE),
	    stats_get(RC_UNSOLVED), stats_get(RC_TIMEOUTS), stats_get(RC_INVALID), stats_get(RC_UNSUPPORTED));
	long hits = stats_cache_get(CC_HITS), misses = stats_cache_get(CC_MISSES), bad = stats_cache_get(CC_BAD),
	     written = stats_cache_get(CC_WRITTEN);
	if (cache_used()) {
		say("cache: %ld hits, %ld misses, %ld bad entries dropped, %ld written", hits, misses, bad, written);
		store_stats(f);
	} else
		say("cache: not used");
	char buf[4096];
	int pos = 0;
	for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
		if (pool_spec_started(i))
			pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s x%d", pos ? ", " : "",
					specs[i].label, pool_spec_nstarted(i));
	say("processes started: %s", pos ? buf : "none");
	say("schedule: %s; %ld puzzles answered by the presolver alone, %ld escalated, %ld raced by all at "
	    "once",
	    opt.schedule_all ? "all" : "staged", stats_get(RC_FIRST_ONLY), stats_get(RC_ESCALATED),
	    stats_get(RC_ALL_AT_ONCE));
	if (stats_get(RC_CONFIRMED) || stats_get(RC_UNCONFIRMED) || stats_get(RC_LIARS))
		say("verdicts confirmed: %ld by a second program, %ld not, %ld lies caught",
		    stats_get(RC_CONFIRMED), stats_get(RC_UNCONFIRMED), stats_get(RC_LIARS));
	if (stats_get(RC_ESCALATED)) {
		pos = 0;
		for (int i = 0; i < nspecs && pos < (int)sizeof buf; i++)
			if (stats_spec_get(i, SC_WON_ESCALATED))
				pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%s %ld", pos ? ", " : "",
						specs[i].label, stats_spec_get(i, SC_WON_ESCALATED));
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
