/* The answer lines users see: text, --pretty, --json, and their reader
 * (answer.h). */
#include "config.h"

#include "answer.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *answer_buf_grow(struct answer_buf *o, size_t more)
{
	if (o->len + more + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + more + 1)
			cap *= 2;
		char *p = realloc(o->p, cap);
		if (!p)
			return NULL;
		o->p = p;
		o->cap = cap;
	}
	return o->p + o->len;
}

void answer_buf_free(struct answer_buf *o)
{
	free(o->p);
	o->p = NULL;
	o->len = o->cap = 0;
}

bool answer_failed(const struct answer *a)
{
	return a->kind != ANSWER_SOLVED;
}

const char *answer_status(enum answer_kind kind)
{
	switch (kind) {
	case ANSWER_SOLVED:
		return "solved";
	case ANSWER_MULTIPLE:
		return "multiple";
	case ANSWER_UNSAT:
	case ANSWER_CLASH:
		return "unsat";
	case ANSWER_UNSOLVED:
	case ANSWER_GAVEUP:
	case ANSWER_WRONG:
		return "unsolved";
	case ANSWER_TIMEOUT:
	case ANSWER_GAVEUP_AFTER:
		return "timeout";
	case ANSWER_INVALID:
		return "invalid";
	case ANSWER_UNSUPPORTED:
		return "unsupported";
	}
	return "unsolved";
}

/* --- writing --- */

/* An answer being appended to o: once memory runs out, failed stays set
 * and nothing more is written. */
struct out {
	struct answer_buf *o;
	bool failed;
};

static void put(struct out *w, const char *s, size_t n)
{
	char *at = w->failed ? NULL : answer_buf_room(w->o, n);
	if (!at) {
		w->failed = true;
		return;
	}
	memcpy(at, s, n);
	w->o->len += n;
	w->o->p[w->o->len] = '\0';
}

static void put_str(struct out *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_long(struct out *w, long v)
{
	char t[24];
	int n = snprintf(t, sizeof t, "%ld", v);
	put(w, t, (size_t)n);
}

static void put_ms(struct out *w, double ms)
{
	char t[48];
	int n = snprintf(t, sizeof t, "%.3f", ms);
	put(w, t, n > 0 && (size_t)n < sizeof t ? (size_t)n : 0);
}

/* A grid in notation nt (pretty: boxed, its own LF); false when it does
 * not fit (a grid that is not of the notation's kind). */
static bool put_grid(struct out *w, const struct grid *g, const struct notation *nt, bool pretty)
{
	size_t max = pretty ? grid_format_pretty_max(g->side) : grid_format_max(g->side);
	char *at = w->failed ? NULL : answer_buf_room(w->o, max + 1);
	if (!at) {
		w->failed = true;
		return false;
	}
	int n = pretty ? grid_format_pretty(g, nt, at, max + 1) : grid_format(g, nt, at, max + 1);
	if (n < 0) {
		w->o->p[w->o->len] = '\0';
		return false;
	}
	w->o->len += (size_t)n;
	return true;
}

/* The reason in pieces: the text line after "# " (with_file: the file
 * named as the text line names it; else, for the kinds with a note, the
 * note alone, as JSON's "reason"). num holds a number's text. Returns the
 * number of pieces; 0 for a solution. */
static int reason(const struct answer *a, bool text, const char *piece[4], char num[96])
{
	const char *word;
	switch (a->kind) {
	case ANSWER_SOLVED:
		return 0;
	case ANSWER_MULTIPLE:
		snprintf(num, 96, "multiple solutions: %s%ld", a->count >= a->count_limit ? "at least " : "",
			 a->count);
		piece[0] = num;
		return 1;
	case ANSWER_UNSAT:
		piece[0] = "unsat";
		return 1;
	case ANSWER_UNSOLVED:
		piece[0] = "unsolved";
		return 1;
	case ANSWER_GAVEUP:
		piece[0] = "gave up: ";
		piece[1] = a->note && a->note[0] ? a->note : "no solution found";
		return 2;
	case ANSWER_WRONG:
		piece[0] = "error: ";
		piece[1] = a->note ? a->note : "";
		return 2;
	case ANSWER_TIMEOUT:
	case ANSWER_GAVEUP_AFTER:
		snprintf(num, 96, "%s after %g s", a->kind == ANSWER_TIMEOUT ? "timeout" : "gave up", a->seconds);
		piece[0] = num;
		return 1;
	case ANSWER_CLASH:
		word = "unsat: ";
		break;
	case ANSWER_INVALID:
		word = "invalid: ";
		break;
	case ANSWER_UNSUPPORTED:
		word = "unsupported: ";
		break;
	default:
		return 0;
	}
	int n = 0;
	if (text) {
		piece[n++] = word;
		if (a->file) {
			piece[n++] = a->file;
			piece[n++] = ": ";
		}
	}
	piece[n++] = a->note ? a->note : "";
	return n;
}

/* A '#' line: "# ", the reason, LF. */
static int write_reason_line(struct answer_buf *o, const struct answer *a)
{
	struct out w = {o, false};
	const char *piece[4];
	char num[96];
	int n = reason(a, true, piece, num);
	put(&w, "# ", 2);
	for (int i = 0; i < n; i++)
		put_str(&w, piece[i]);
	put(&w, "\n", 1);
	return w.failed ? -1 : 0;
}

int answer_write_text(struct answer_buf *o, const struct answer *a, bool pretty)
{
	if (a->kind == ANSWER_SOLVED) {
		/* the racer's and the filter's most frequent line: one look for
		 * room, the grid written in place, its LF after it */
		const struct grid *g = a->solution;
		size_t max = !g ? 0 : pretty ? grid_format_pretty_max(g->side) : grid_format_max(g->side);
		char *at = answer_buf_room(o, max + 1);
		if (!at)
			return -1;
		int n = !g ? -1 : pretty ? grid_format_pretty(g, a->nt, at, max + 1) : grid_format(g, a->nt, at, max + 1);
		/* a grid its notation cannot write (none: a solution is of its
		 * puzzle's size) leaves the line empty: one line a puzzle */
		if (n < 0)
			n = 0;
		if (!pretty || n == 0)
			at[n++] = '\n';
		o->len += (size_t)n;
		o->p[o->len] = '\0';
		return 0;
	}
	return write_reason_line(o, a);
}

/* The length of a valid UTF-8 sequence at s (n bytes, s[0] >= 0x80), or
 * minus the length of its maximal ill-formed part (replaced by one U+FFFD,
 * as Unicode's "best practice" and Python's decoder do). */
static int utf8_at(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int need;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0; /* not overlong */
		else if (c == 0xed)
			hi = 0x9f; /* not a surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90; /* not overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* not past U+10FFFF */
	} else {
		return -1;
	}
	for (int k = 1; k <= need; k++) {
		if ((size_t)k >= n || s[k] < lo || s[k] > hi)
			return -k;
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* n bytes of s inside a JSON string: '"' and '\' escaped, control
 * characters as \u00XX, bytes that are not valid UTF-8 as \ufffd. */
static void json_chars(struct out *w, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0;
	while (i < n) {
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		int len = c >= 0x80 ? utf8_at(u + i, n - i) : -1;
		if (len > 0) {
			i += (size_t)len;
			continue;
		}
		put(w, s + run, i - run);
		if (c == '"') {
			put(w, "\\\"", 2);
		} else if (c == '\\') {
			put(w, "\\\\", 2);
		} else if (c < 0x20) {
			char e[8];
			snprintf(e, sizeof e, "\\u%04x", c);
			put(w, e, 6);
		} else {
			put(w, "\\ufffd", 6);
			i += (size_t)-len;
			run = i;
			continue;
		}
		run = ++i;
	}
	put(w, s + run, i - run);
}

static void json_string(struct out *w, const char *s)
{
	put(w, "\"", 1);
	json_chars(w, s, strlen(s));
	put(w, "\"", 1);
}

static void json_string_or_null(struct out *w, const char *s)
{
	if (s && s[0])
		json_string(w, s);
	else
		put(w, "null", 4);
}

/* A grid as a JSON string: its notation's characters need no escape. */
static bool json_grid(struct out *w, const struct grid *g, const struct notation *nt)
{
	size_t at = w->o->len;
	put(w, "\"", 1);
	if (!put_grid(w, g, nt, false) || w->failed) {
		if (!w->failed) {
			w->o->len = at;
			w->o->p[at] = '\0';
		}
		return false;
	}
	put(w, "\"", 1);
	return true;
}

int answer_write_json_string(struct answer_buf *o, const char *s)
{
	struct out w = {o, false};
	json_string(&w, s);
	return w.failed ? -1 : 0;
}

int answer_write_json(struct answer_buf *o, const struct answer *a)
{
	struct out w = {o, false};
	const struct answer_race *race = a->race;
	enum answer_kind k = a->kind;
	put(&w, "{\"line\":", 8);
	put_long(&w, a->line);
	if (a->file) {
		put(&w, ",\"file\":", 8);
		json_string(&w, a->file);
	}
	if (a->puzzle) {
		size_t at = o->len;
		put(&w, ",\"puzzle\":", 10);
		if (!w.failed && !json_grid(&w, a->puzzle, a->nt) && !w.failed) {
			o->len = at;
			o->p[at] = '\0';
		}
	}
	put(&w, ",\"status\":\"", 11);
	put_str(&w, answer_status(k));
	put(&w, "\",\"solution\":", 13);
	if (!a->solution || !json_grid(&w, a->solution, a->nt))
		put(&w, "null", 4);
	put(&w, ",\"reason\":", 10);
	const char *piece[4];
	char num[96];
	int n = reason(a, false, piece, num);
	if (n) {
		put(&w, "\"", 1);
		for (int i = 0; i < n; i++)
			json_chars(&w, piece[i], strlen(piece[i]));
		put(&w, "\"", 1);
	} else {
		put(&w, "null", 4);
	}
	bool found = k == ANSWER_SOLVED || k == ANSWER_MULTIPLE;
	if (found)
		put_str(&w, a->unique == ANSWER_UNIQUE_YES  ? ",\"unique\":true"
			    : a->unique == ANSWER_UNIQUE_NO ? ",\"unique\":false"
							    : ",\"unique\":null");
	bool counted = race && race->counted;
	bool proved = k == ANSWER_UNSAT || k == ANSWER_CLASH;
	if (counted && (found || proved)) {
		put(&w, ",\"count\":", 9);
		put_long(&w, a->count);
		put(&w, ",\"count_limit\":", 15);
		put_long(&w, a->count_limit);
	}
	/* a verdict that needs proof: whether a second program (or the
	 * racer's own check of the givens) confirmed it, and who proved it */
	if (race && (proved || (counted && found))) {
		put_str(&w, race->confirmed ? ",\"confirmed\":true,\"provers\":" : ",\"confirmed\":false,\"provers\":");
		json_string_or_null(&w, race->provers);
	}
	put(&w, ",\"winner\":", 10);
	json_string_or_null(&w, a->winner);
	put(&w, ",\"worker_ms\":", 13);
	put_ms(&w, a->worker_ms);
	put(&w, ",\"ms\":", 6);
	put_ms(&w, a->ms);
	if (race) {
		put_str(&w, race->cache ? ",\"cache\":true,\"stage\":" : ",\"cache\":false,\"stage\":");
		json_string(&w, race->stage ? race->stage : "none");
		put(&w, ",\"workers\":[", 12);
		for (int i = 0; i < race->nworkers; i++) {
			const struct answer_attempt *t = &race->workers[i];
			put_str(&w, i ? ",{\"worker\":" : "{\"worker\":");
			json_string(&w, t->worker);
			put(&w, ",\"outcome\":", 11);
			json_string(&w, t->outcome);
			if (t->ms > 0) {
				put(&w, ",\"ms\":", 6);
				put_ms(&w, t->ms);
			}
			put(&w, "}", 1);
		}
		put(&w, "]", 1);
	}
	put(&w, "}\n", 2);
	return w.failed ? -1 : 0;
}

/* --- reading --- */

/* s (n bytes) starts with the word w: the rest, else NULL. */
static const char *after(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0 ? s + k : NULL;
}

/* "S s" at p, up to end: S as %g writes it. */
static bool read_seconds(const char *p, const char *end, double *seconds)
{
	char t[64];
	size_t n = (size_t)(end - p);
	if (n < 3 || n >= sizeof t || end[-2] != ' ' || end[-1] != 's')
		return false;
	memcpy(t, p, n - 2);
	t[n - 2] = '\0';
	char *stop;
	*seconds = strtod(t, &stop);
	return stop != t && !*stop && t[0] != ' ';
}

int answer_parse(const char *line, size_t len, struct answer_read *r)
{
	memset(r, 0, sizeof *r);
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return -1;
	if (line[0] != '#') {
		r->kind = ANSWER_SOLVED;
		r->text = line;
		r->len = len;
		return 0;
	}
	const char *end = line + len, *p;
	if (len < 3 || line[1] != ' ')
		return -1;
	const char *s = line + 2;
	size_t n = len - 2;
	static const struct {
		const char *word;
		enum answer_kind kind;
	} noted[] = {
		{"unsat: ", ANSWER_CLASH},     {"invalid: ", ANSWER_INVALID}, {"unsupported: ", ANSWER_UNSUPPORTED},
		{"gave up: ", ANSWER_GAVEUP}, {"error: ", ANSWER_WRONG},
	};
	for (size_t i = 0; i < sizeof noted / sizeof noted[0]; i++)
		if ((p = after(s, n, noted[i].word)) != NULL) {
			r->kind = noted[i].kind;
			r->text = p;
			r->len = (size_t)(end - p);
			return 0;
		}
	if (n == 5 && memcmp(s, "unsat", 5) == 0) {
		r->kind = ANSWER_UNSAT;
		return 0;
	}
	if (n == 8 && memcmp(s, "unsolved", 8) == 0) {
		r->kind = ANSWER_UNSOLVED;
		return 0;
	}
	if ((p = after(s, n, "multiple solutions")) != NULL) {
		r->kind = ANSWER_MULTIPLE;
		if (p == end)
			return 0;
		if (!(p = after(p, (size_t)(end - p), ": ")))
			return -1;
		const char *q = after(p, (size_t)(end - p), "at least ");
		if (q) {
			r->at_least = true;
			p = q;
		}
		if (p == end)
			return -1;
		long k = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (k > (LONG_MAX - 9) / 10)
				return -1;
			k = k * 10 + (*p - '0');
		}
		r->count = k;
		return p == end ? 0 : -1;
	}
	if ((p = after(s, n, "timeout after ")) != NULL) {
		r->kind = ANSWER_TIMEOUT;
		return read_seconds(p, end, &r->seconds) ? 0 : -1;
	}
	if ((p = after(s, n, "gave up after ")) != NULL) {
		r->kind = ANSWER_GAVEUP_AFTER;
		return read_seconds(p, end, &r->seconds) ? 0 : -1;
	}
	return -1;
}
