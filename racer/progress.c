/* --progress: the race as it goes, on standard error.
 *
 * On a terminal, a display redrawn in place ten times a second and sized to
 * the terminal (read again on SIGWINCH): a row with the puzzles answered
 * out of the total, the rate and the ETA; a row of wins per worker; then
 * the busy processes, longest on its puzzle first, as many as there are
 * rows left. Rows are cut to the width and never outnumber the terminal's
 * rows, and the cursor stays at the end of the last one: a display as
 * high as the terminal scrolls nothing into the scrollback.
 *
 * Otherwise, a plain line every --progress-ms (answered, total, rate,
 * ETA), and the workers' own progress reports, at most one per worker
 * every half second. Either way, a summary line at the end.
 *
 * The total is known when the input is regular files (standard input
 * too): their lines are counted up front, and the puzzles to come are
 * estimated from the lines read so far (a grid may take several lines);
 * it is exact once the input is all read. From a pipe it is "?". No
 * colour is used, so NO_COLOR has nothing to turn off. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer/attempt.h"
#include "racer/input.h"
#include "racer/options.h"
#include "racer/pool.h"
#include "racer/proc.h"
#include "racer/progress.h"
#include "racer/puzzle.h"
#include "racer/stats.h"
#include "racer/util.h"
#include "racer/workers.h"

#define LIVE_MS 100
#define WORKER_LINE_MS 500
/* the longest worker label shown whole: on the live display, and in the
 * summary */
#define LABEL_MAX 24
#define SUMMARY_LABEL_MAX 48
/* the rate is taken over about the last RATE_SAMPLES seconds */
#define RATE_SAMPLES 10
/* a file larger than this is not counted up front (the total is "?") */
#define COUNT_MAX_BYTES ((off_t)1 << 30)

static bool enabled, live;
static struct event *tick_ev, *winch_ev;
static int drawn; /* rows of the display now on the screen */
static int term_rows = 24, term_cols = 80;
static uint64_t started_ns;
/* per process: its last report, of which attempt, and when it was a line */
struct report {
	char text[160];
	uint64_t seq;
	uint64_t line_ns;
};
static struct report *reports;

/* lines of each input (before_lines[i]: of the inputs before input i);
 * total_lines < 0: unknown */
static long total_lines = -1;
static long *before_lines;
static long estimate; /* the last estimate of the puzzles in the input */

static struct sample {
	uint64_t ns;
	long done;
} samples[RATE_SAMPLES + 1];
static int nsamples;

long progress_interval_ms(void)
{
	return !enabled ? 0 : live ? LIVE_MS : WORKER_LINE_MS;
}

static void put_all(const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(STDERR_FILENO, s, n);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

/* Lines in a regular file from fd's offset on (pread: the input reads it
 * from there later); -1 when it is not a regular file or too large. */
static long count_lines(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > COUNT_MAX_BYTES)
		return -1;
	off_t at = lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		at = 0;
	static char buf[65536];
	long lines = 0;
	bool partial = false;
	ssize_t n;
	while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
		for (const char *p = buf, *end = buf + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
			lines++;
		partial = buf[n - 1] != '\n';
		at += n;
	}
	return n < 0 ? -1 : lines + partial;
}

static void count_input(void)
{
	int n = opt.nargs ? opt.nargs : 1;
	before_lines = xcalloc((size_t)n + 1, sizeof *before_lines);
	long sum = 0;
	for (int i = 0; i < n; i++) {
		const char *name = opt.nargs ? opt.args[i] : "-";
		long k;
		if (strcmp(name, "-") == 0) {
			k = count_lines(STDIN_FILENO);
		} else {
			int fd = open(name, O_RDONLY | O_CLOEXEC);
			k = fd < 0 ? -1 : count_lines(fd);
			if (fd >= 0)
				close(fd);
		}
		if (k < 0)
			return; /* unknown: total_lines stays -1 */
		before_lines[i] = sum;
		sum += k;
	}
	total_lines = sum;
}

static long answered(void)
{
	return stats_get(RC_SOLVED) + stats_get(RC_UNSAT) + stats_get(RC_MULTIPLE) + stats_get(RC_UNSOLVED) +
	       stats_get(RC_TIMEOUTS) + stats_get(RC_INVALID) + stats_get(RC_UNSUPPORTED);
}

/* The puzzles in the input: exact once it is all read, else estimated
 * from the lines read so far; -1: unknown. */
static long total_puzzles(void)
{
	long puzzles = stats_get(RC_PUZZLES);
	if (input_done())
		return puzzles;
	if (total_lines < 0)
		return -1;
	if (puzzles) {
		int idx;
		long line;
		input_position(&idx, &line);
		long read = before_lines[idx] + line;
		if (read > 0)
			estimate = (long)((double)puzzles * (double)total_lines / (double)read + 0.5);
	}
	if (!estimate)
		estimate = total_lines; /* nothing read yet: a puzzle a line */
	return estimate > puzzles ? estimate : puzzles;
}

/* Puzzles answered per second over the last few seconds (the whole run
 * until then). */
static double rate(uint64_t now, long done)
{
	if (!nsamples || now - samples[nsamples - 1].ns >= 1000000000u) {
		if (nsamples == RATE_SAMPLES + 1) {
			memmove(samples, samples + 1, RATE_SAMPLES * sizeof *samples);
			nsamples--;
		}
		samples[nsamples++] = (struct sample){now, done};
	}
	const struct sample *from = nsamples > 1 ? &samples[0] : &(struct sample){started_ns, 0};
	double secs = (double)(now - from->ns) / 1e9;
	return secs > 0 ? (double)(done - from->done) / secs : 0;
}

/* "45 s", "3:07", "1:02:03" */
static const char *duration(double secs, char *buf, size_t size)
{
	long s = (long)(secs + 0.5);
	if (s < 60)
		snprintf(buf, size, "%ld s", s);
	else if (s < 3600)
		snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
	else
		snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

/* "0.4 s", "12.3 s", then as duration() */
static const char *elapsed_time(double secs, char *buf, size_t size)
{
	if (secs < 60) {
		snprintf(buf, size, "%.1f s", secs);
		return buf;
	}
	return duration(secs, buf, size);
}

/* A worker entry's label, cut to LABEL_MAX (a path with options would
 * fill a row). */
static const char *short_label(const char *label, char *buf, size_t size)
{
	snprintf(buf, size, "%s", label);
	if (strlen(label) > LABEL_MAX && size > LABEL_MAX)
		snprintf(buf + LABEL_MAX - 3, size - (LABEL_MAX - 3), "...");
	return buf;
}

/* "1234/49158 puzzles (2.5%), 812/s, ETA 1:00" (no ETA while unknown) */
static void describe_progress(char *buf, size_t size, uint64_t now)
{
	long done = answered(), total = total_puzzles();
	double r = rate(now, done);
	char rs[32], eta[32] = "";
	snprintf(rs, sizeof rs, r >= 100 ? "%.0f/s" : "%.1f/s", r);
	if (total >= 0 && r > 0 && done < total) {
		char d[24];
		snprintf(eta, sizeof eta, ", ETA %s", duration((double)(total - done) / r, d, sizeof d));
	}
	char elapsed[24];
	elapsed_time((double)(now - started_ns) / 1e9, elapsed, sizeof elapsed);
	if (total >= 0)
		snprintf(buf, size, "%ld/%ld puzzles (%.1f%%), %s%s, in %s", done, total,
			 total ? 100.0 * (double)done / (double)total : 100.0, rs, eta, elapsed);
	else
		snprintf(buf, size, "%ld/? puzzles, %s, in %s", done, rs, elapsed);
}

/* "cp 1200, sat 30, cache 4", or "none yet"; cut: labels cut to LABEL_MAX */
/* A label for the summary: whole up to SUMMARY_LABEL_MAX, else its head
 * and its tail (where entries of one program differ: ":seed=2"), so that
 * the summary wraps at words within 80 columns. */
static const char *summary_label(const char *label, char *buf, size_t size)
{
	size_t n = strlen(label), head = 22, tail = SUMMARY_LABEL_MAX - head - 3;
	if (n <= SUMMARY_LABEL_MAX || size <= SUMMARY_LABEL_MAX)
		snprintf(buf, size, "%s", label);
	else
		snprintf(buf, size, "%.*s...%s", (int)head, label, label + n - tail);
	return buf;
}

static void describe_wins(char *buf, size_t size, bool cut)
{
	size_t pos = 0;
	buf[0] = '\0';
	char label[SUMMARY_LABEL_MAX + 1];
	for (int i = 0; i < nspecs && pos < size; i++)
		if (stats_spec_get(i, SC_WON))
			pos += (size_t)snprintf(buf + pos, size - pos, "%s%s %ld", pos ? ", " : "",
						cut ? short_label(specs[i].label, label, sizeof label)
						    : summary_label(specs[i].label, label, sizeof label),
						stats_spec_get(i, SC_WON));
	if (stats_get(RC_CACHE_HITS) && pos < size)
		pos += (size_t)snprintf(buf + pos, size - pos, "%scache %ld", pos ? ", " : "",
					stats_get(RC_CACHE_HITS));
	if (!pos)
		snprintf(buf, size, "none yet");
}

/* "cp", or "cp/2" for the second process of an entry that has several;
 * cut: its label cut to LABEL_MAX. */
static void proc_name(const struct proc *p, bool cut, char *buf, size_t size)
{
	char label[LABEL_MAX + 1];
	if (cut)
		short_label(p->spec->label, label, sizeof label);
	if (pool_copies(p->spec->index) > 1)
		snprintf(buf, size, "%s/%d", cut ? label : p->spec->label, pool_copy_number(p) + 1);
	else
		snprintf(buf, size, "%s", cut ? label : p->spec->label);
}

/* The stage of a puzzle's race, as --progress shows it. */
static const char *stage_name(const struct puzzle *pz)
{
	if (!pz)
		return "-";
	switch (pz->state) {
	case PZ_FIRST:
		return "presolver";
	case PZ_ALL:
		return pz->escalated ? "escalated" : "all";
	default:
		return pz->stage == STAGE_NONE ? "waiting" : pz->stage == STAGE_FIRST ? "presolver"
							    : pz->escalated ? "escalated" : "all";
	}
}

/* --- the display on a terminal --- */

static void read_size(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		term_rows = ws.ws_row;
		term_cols = ws.ws_col;
	}
}

void progress_before_output(void)
{
	if (!live || !drawn)
		return;
	char esc[32];
	/* the cursor is at the end of the last row: up to the first, then
	 * clear to the end of the screen (ESC [ 0 A would still move a row) */
	int n = drawn > 1 ? snprintf(esc, sizeof esc, "\r\033[%dA\033[J", drawn - 1)
			  : snprintf(esc, sizeof esc, "\r\033[J");
	put_all(esc, (size_t)n);
	drawn = 0;
}

struct screen {
	char *buf;
	size_t pos, size;
	int rows;
};

static void add_row(struct screen *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_row(struct screen *sc, const char *fmt, ...)
{
	char row[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(row, sizeof row, fmt, ap);
	va_end(ap);
	/* a row that wrapped would throw the count of rows off: cut it one
	 * short of the width (a full row leaves the cursor pending a wrap) */
	int width = term_cols > 1 ? term_cols - 1 : 1;
	if ((int)strlen(row) > width)
		row[width] = '\0';
	sc->pos += (size_t)snprintf(sc->buf + sc->pos, sc->size - sc->pos, "%s%s", sc->rows ? "\n" : "", row);
	sc->rows++;
}

static int by_head_time(const void *a, const void *b)
{
	const struct proc *p = *(struct proc *const *)a, *q = *(struct proc *const *)b;
	return p->head_ns < q->head_ns ? -1 : p->head_ns > q->head_ns;
}

static void redraw(void)
{
	uint64_t now = now_ns();
	struct screen sc = {.size = (size_t)(term_rows + 1) * 1100};
	sc.buf = xmalloc(sc.size);
	char line[512];
	describe_progress(line, sizeof line, now);
	add_row(&sc, "%s: %s", PROGRAM, line);
	if (term_rows >= 2) {
		describe_wins(line, sizeof line, true);
		add_row(&sc, "wins: %s", line);
	}
	/* the busy processes, longest on its puzzle first */
	int nprocs = pool_size();
	struct proc **busy = xmalloc((size_t)(nprocs ? nprocs : 1) * sizeof *busy);
	int nbusy = 0;
	for (int i = 0; i < nprocs; i++)
		if (proc_queued(pool_proc(i)) && proc_ready(pool_proc(i)))
			busy[nbusy++] = pool_proc(i);
	qsort(busy, (size_t)nbusy, sizeof *busy, by_head_time);
	int room = term_rows - sc.rows, width = 4;
	for (int i = 0; i < nbusy && i < room; i++) {
		char who[80];
		proc_name(busy[i], true, who, sizeof who);
		if ((int)strlen(who) > width)
			width = (int)strlen(who);
	}
	for (int i = 0; i < nbusy && room > 0; i++, room--) {
		if (room == 1 && i < nbusy - 1) {
			add_row(&sc, "  ... %d more busy", nbusy - i);
			break;
		}
		struct proc *p = busy[i];
		const struct attempt *head = proc_head(p);
		const struct report *r = &reports[p->index];
		char who[80];
		proc_name(p, true, who, sizeof who);
		bool fields = r->seq == head->seq && r->text[0];
		add_row(&sc, "  %-*s puzzle %-6llu %-9s %6.1f s%s%s", width, who, (unsigned long long)head->seq,
			stage_name(head->pz), (double)(now - p->head_ns) / 1e9, fields ? " " : "",
			fields ? r->text : "");
	}
	free(busy);
	progress_before_output();
	put_all(sc.buf, sc.pos);
	drawn = sc.rows;
	free(sc.buf);
}

/* --- plain lines --- */

static void plain_line(void)
{
	char line[512];
	describe_progress(line, sizeof line, now_ns());
	fprintf(stderr, "%s: progress: %s\n", PROGRAM, line);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (live)
		redraw();
	else
		plain_line();
}

static void winch_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	/* the old display is erased with the row count it was drawn with */
	progress_before_output();
	read_size();
	redraw();
}

void progress_init(struct event_base *base)
{
	enabled = opt.progress;
	if (!enabled)
		return;
	reports = xcalloc((size_t)(pool_size() ? pool_size() : 1), sizeof *reports);
	const char *term = getenv("TERM");
	live = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	started_ns = now_ns();
	count_input();
	tick_ev = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
	if (!tick_ev)
		die("out of memory");
	struct timeval tv = ms_tv(live ? LIVE_MS : (double)opt.progress_ms);
	event_add(tick_ev, &tv);
	if (live) {
		read_size();
		winch_ev = evsignal_new(base, SIGWINCH, winch_cb, NULL);
		if (!winch_ev || evsignal_add(winch_ev, NULL) < 0)
			die("cannot set up signal handling");
	}
}

void progress_message(const struct proc *p, const struct puzzle *pz, const struct msg *m)
{
	if (!enabled)
		return;
	struct report *r = &reports[p->index];
	size_t pos = 0;
	r->text[0] = '\0';
	for (int i = 0; i < m->nfields && pos < sizeof r->text; i++)
		pos += (size_t)snprintf(r->text + pos, sizeof r->text - pos, "%s%s=%s", i ? " " : "",
					m->fields[i].key, m->fields[i].value);
	uint64_t seq = strtoull(m->id, NULL, 10);
	r->seq = seq;
	if (live || !opt.verbose)
		return;
	uint64_t now = now_ns();
	if (r->line_ns && now - r->line_ns < (uint64_t)WORKER_LINE_MS * 1000000u)
		return;
	r->line_ns = now;
	char where[PUZZLE_WHERE_MAX + 32] = "";
	if (pz)
		snprintf(where, sizeof where, " (%s%sline %ld)", pz->input_name ? pz->input_name : "",
			 pz->input_name ? ": " : "", pz->line);
	char who[PATH_MAX + 64]; /* a label: a path and options */
	proc_name(p, false, who, sizeof who);
	char line[2 * PATH_MAX + 512];
	snprintf(line, sizeof line, "puzzle %llu%s: %s: %s (%s, %.1f s)", (unsigned long long)seq, where, who,
		 r->text, stage_name(pz), (double)(now - p->head_ns) / 1e9);
	int at = (int)strlen(PROGRAM ": ");
	fprintf(stderr, "%s: ", PROGRAM);
	racer_wrapped(stderr, line, at, at);
}

/* "3 puzzles answered in 1.2 s (2.5/s): 3 solved; wins: cp 3" */
static void summary_line(void)
{
	uint64_t now = now_ns();
	double secs = (double)(now - started_ns) / 1e9;
	long done = answered();
	char of[48] = "", d[24], wins[4096], verdicts[256];
	if (done != stats_get(RC_PUZZLES))
		snprintf(of, sizeof of, " of %ld", stats_get(RC_PUZZLES));
	const struct {
		long n;
		const char *what;
	} parts[] = {
		{stats_get(RC_SOLVED), "solved"},     {stats_get(RC_MULTIPLE), "multiple"},
		{stats_get(RC_UNSAT), "unsat"},       {stats_get(RC_UNSOLVED), "unsolved"},
		{stats_get(RC_TIMEOUTS), "timeout"},  {stats_get(RC_INVALID), "invalid"},
		{stats_get(RC_UNSUPPORTED), "unsupported"},
	};
	size_t pos = 0;
	verdicts[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (parts[i].n)
			pos += (size_t)snprintf(verdicts + pos, sizeof verdicts - pos, "%s%ld %s", pos ? ", " : "",
						parts[i].n, parts[i].what);
	describe_wins(wins, sizeof wins, false);
	char line[8192];
	snprintf(line, sizeof line, "%ld%s puzzles answered in %s (%.1f/s)%s%s; wins: %s", done, of,
		 elapsed_time(secs, d, sizeof d), secs > 0 ? (double)done / secs : 0.0, pos ? ": " : "", verdicts,
		 wins);
	/* within 80 columns: continued under its text */
	int at = (int)strlen(PROGRAM ": ");
	fprintf(stderr, "%s: ", PROGRAM);
	racer_wrapped(stderr, line, at, at);
}

void progress_end(void)
{
	if (!enabled)
		return;
	if (live)
		progress_before_output();
	summary_line();
	if (tick_ev)
		event_free(tick_ev);
	if (winch_ev)
		event_free(winch_ev);
	tick_ev = winch_ev = NULL;
	free(before_lines);
	free(reports);
	before_lines = NULL;
	reports = NULL;
	enabled = false;
}
