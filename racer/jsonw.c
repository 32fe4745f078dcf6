/* JSON for the racer's reports (jsonw.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "racer/jsonw.h"

static void put(struct jsonw *w, const char *s, size_t n)
{
	char *at = answer_buf_room(&w->buf, n);
	if (!at) {
		w->failed = true;
		return;
	}
	memcpy(at, s, n);
	w->buf.len += n;
	w->buf.p[w->buf.len] = '\0';
}

/* A value's comma, unless it follows its key. */
static void before_value(struct jsonw *w, bool keyed)
{
	if (keyed || w->depth == 0)
		return;
	if (!w->first[w->depth - 1])
		put(w, ",", 1);
	w->first[w->depth - 1] = false;
}

void jsonw_begin(struct jsonw *w, char open)
{
	before_value(w, w->after_key);
	w->after_key = false;
	put(w, &open, 1);
	if (w->depth < JSONW_DEPTH)
		w->first[w->depth++] = true;
}

void jsonw_end(struct jsonw *w, char close)
{
	put(w, &close, 1);
	if (w->depth)
		w->depth--;
}

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w, false);
	if (answer_write_json_string(&w->buf, key) < 0)
		w->failed = true;
	put(w, ":", 1);
	w->after_key = true;
}

static void scalar(struct jsonw *w, const char *text)
{
	before_value(w, w->after_key);
	w->after_key = false;
	put(w, text, strlen(text));
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		scalar(w, "null");
		return;
	}
	before_value(w, w->after_key);
	w->after_key = false;
	if (answer_write_json_string(&w->buf, s) < 0)
		w->failed = true;
}

void jsonw_long(struct jsonw *w, long v)
{
	char t[24];
	snprintf(t, sizeof t, "%ld", v);
	scalar(w, t);
}

void jsonw_double(struct jsonw *w, double v, int decimals)
{
	char t[48];
	snprintf(t, sizeof t, "%.*f", decimals, v);
	scalar(w, t);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	scalar(w, v ? "true" : "false");
}

void jsonw_flush(struct jsonw *w, FILE *f)
{
	if (!w->failed && w->buf.len) {
		fwrite(w->buf.p, 1, w->buf.len, f);
		fputc('\n', f);
	}
	w->buf.len = 0;
}

void jsonw_free(struct jsonw *w)
{
	answer_buf_free(&w->buf);
	*w = (struct jsonw){0};
}
