/* --progress: the race as it goes, on standard error. On a terminal, a live
 * display with one row per worker process (state, its latest progress
 * fields, time on its current puzzle), redrawn in place ten times a second;
 * otherwise one plain line per progress report, at most one per worker
 * every half second. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"

#define LIVE_MS 100
#define PLAIN_MS 500

static bool enabled, live;
static struct event *redraw_ev;
static int drawn; /* rows of the display now on the screen */
static uint64_t started_ns;

long progress_interval_ms(void)
{
	return !enabled ? 0 : live ? LIVE_MS : PLAIN_MS;
}

static void redraw_cb(evutil_socket_t fd, short what, void *arg);

void progress_init(void)
{
	enabled = opt.progress;
	if (!enabled)
		return;
	const char *term = getenv("TERM");
	live = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	started_ns = now_ns();
	if (live) {
		redraw_ev = event_new(base, -1, EV_PERSIST, redraw_cb, NULL);
		if (!redraw_ev)
			die("out of memory");
		struct timeval tv = {0, LIVE_MS * 1000};
		event_add(redraw_ev, &tv);
	}
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

void progress_before_output(void)
{
	if (!live || !drawn)
		return;
	char esc[32];
	/* up to the display's first row, then clear to the end of the screen */
	int n = snprintf(esc, sizeof esc, "\r\033[%dA\033[J", drawn);
	put_all(esc, (size_t)n);
	drawn = 0;
}

/* "cp", or "cp/2" for the second process of an entry that has several. */
static void proc_name(const struct proc *p, char *buf, size_t size)
{
	if (p->spec->nprocs > 1)
		snprintf(buf, size, "%s/%d", p->spec->label, p->copy + 1);
	else
		snprintf(buf, size, "%s", p->spec->label);
}

/* The stage of a puzzle's race, as --progress shows it. */
static const char *stage_name(const struct puzzle *pz)
{
	if (!pz)
		return "-";
	switch (pz->stage) {
	case STAGE_FIRST:
		return "presolver";
	case STAGE_ALL:
		return pz->escalated ? "escalated" : "all";
	default:
		return "waiting";
	}
}

void progress_message(struct proc *p, uint64_t seq, const struct msg *m)
{
	if (!enabled)
		return;
	size_t pos = 0;
	p->progress[0] = '\0';
	for (int i = 0; i < m->nfields && pos < sizeof p->progress; i++)
		pos += (size_t)snprintf(p->progress + pos, sizeof p->progress - pos, "%s%s=%s", i ? " " : "",
					m->fields[i].key, m->fields[i].value);
	p->progress_seq = seq;
	if (live)
		return;
	uint64_t now = now_ns();
	if (p->progress_line_ns && now - p->progress_line_ns < (uint64_t)PLAIN_MS * 1000000u)
		return;
	p->progress_line_ns = now;
	struct puzzle *pz = race_find(seq);
	char where[4200] = "";
	if (pz)
		snprintf(where, sizeof where, " (%s%sline %ld)", pz->input_name ? pz->input_name : "",
			 pz->input_name ? ": " : "", pz->item.line);
	char who[80];
	proc_name(p, who, sizeof who);
	fprintf(stderr, "%s: puzzle %llu%s: %s: %s (%s, %.1f s)\n", PROGRAM, (unsigned long long)seq, where,
		who, p->progress, stage_name(pz), (double)(now - p->head_ns) / 1e9);
}

static int term_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

static void add_row(char *buf, size_t size, size_t *pos, int width, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add_row(char *buf, size_t size, size_t *pos, int width, const char *fmt, ...)
{
	char row[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(row, sizeof row, fmt, ap);
	va_end(ap);
	/* a wrapped row would spoil the redraw: cut it at the screen's width */
	if ((int)strlen(row) > width - 1)
		row[width - 1] = '\0';
	*pos += (size_t)snprintf(buf + *pos, size - *pos, "\033[2K%s\n", row);
}

static void redraw_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	int width = term_width();
	size_t size = (size_t)(nprocs + 2) * 600, pos = 0;
	int rows = 1;
	char *buf = xmalloc(size);
	long answered = counts.solved + counts.unsat + counts.multiple + counts.unsolved + counts.timeouts +
			counts.invalid + counts.unsupported;
	uint64_t now = now_ns();
	add_row(buf, size, &pos, width, "%s: %ld puzzles read, %ld answered, %.1f s", PROGRAM, counts.puzzles,
		answered, (double)(now - started_ns) / 1e9);
	for (int i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		char who[80], on[80] = "", fields[200] = "";
		if (!p->spec->started && p->spec->status == SPEC_OK)
			continue; /* not needed yet: no row */
		proc_name(p, who, sizeof who);
		const char *state = p->spec->status == SPEC_DISABLED      ? "disabled"
				    : p->spec->status == SPEC_UNAVAILABLE ? "unavailable"
									  : proc_state_name(p->state);
		if (p->ninflight && proc_ready(p)) {
			uint64_t seq = p->inflight[0].seq;
			snprintf(on, sizeof on, "puzzle %llu %-9s %6.1f s", (unsigned long long)seq,
				 stage_name(race_find(seq)), (double)(now - p->head_ns) / 1e9);
			if (p->progress_seq == seq)
				snprintf(fields, sizeof fields, "%s", p->progress);
		}
		add_row(buf, size, &pos, width, "  %-20.20s %-11s %-30s %s", who, state, on, fields);
		rows++;
	}
	progress_before_output();
	put_all(buf, pos);
	drawn = rows;
	free(buf);
}

void progress_end(void)
{
	if (!enabled)
		return;
	if (live)
		progress_before_output();
	if (redraw_ev)
		event_free(redraw_ev);
	redraw_ev = NULL;
	enabled = false;
}
